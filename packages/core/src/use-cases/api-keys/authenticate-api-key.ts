import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { callerOf, parsePresentedKey, type ApiKey, type Caller } from '../../domain/keys/api-key.js'
import { invalidApiKey, type InvalidApiKey, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { ApiKeyMaterial } from '../../ports/api-key-material.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'
import type { Clock } from '../../ports/clock.js'
import type { KeyUsageRecorder } from '../../ports/key-usage-recorder.js'

/** What `authenticateApiKey` needs; the lookup may be the key cache. */
export type AuthenticateApiKeyDeps = {
  readonly apiKeys: Pick<ApiKeyRepository, 'findByIdSegment'>
  readonly keyMaterial: Pick<ApiKeyMaterial, 'hasValidChecksum' | 'matches'>
  readonly usage: Pick<KeyUsageRecorder, 'record'>
  readonly clock: Clock
}

/** One `InvalidApiKey` for every refusal, or the store. */
export type AuthenticateApiKeyError = InvalidApiKey | StoreUnavailable

/** The id segment a key would be looked up under: none for a malformed key or bad checksum (refused unread). */
export const idSegmentToLookUp =
  (keyMaterial: Pick<ApiKeyMaterial, 'hasValidChecksum'>) =>
  (presented: string): O.Option<string> =>
    pipe(
      parsePresentedKey(presented),
      O.filter(() => keyMaterial.hasValidChecksum(presented)),
      O.map((parsed) => parsed.idSegment),
    )

/**
 * The caller a presented key stands for. Format and checksum are checked before any lookup, the hash
 * compared in constant time; every refusal is the same `InvalidApiKey`. Uses are recorded in batches.
 */
export const authenticateApiKey =
  (deps: AuthenticateApiKeyDeps) =>
  (presented: string): TE.TaskEither<AuthenticateApiKeyError, Caller> => {
    const callerIfValid = (found: O.Option<ApiKey>): E.Either<AuthenticateApiKeyError, Caller> => {
      if (O.isNone(found) || !deps.keyMaterial.matches(presented, found.value.hash) || found.value.status !== 'active') return E.left(invalidApiKey)
      deps.usage.record(found.value.id, deps.clock.now())
      return E.right(callerOf(found.value))
    }
    return pipe(
      idSegmentToLookUp(deps.keyMaterial)(presented),
      TE.fromOption((): AuthenticateApiKeyError => invalidApiKey),
      TE.chainW(deps.apiKeys.findByIdSegment),
      TE.chainEitherKW(callerIfValid),
    )
  }
