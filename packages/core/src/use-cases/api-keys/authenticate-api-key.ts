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

/** What `authenticateApiKey` needs; the lookup may be the key cache (`cachedApiKeys`). */
export type AuthenticateApiKeyDeps = {
  readonly apiKeys: Pick<ApiKeyRepository, 'findByIdSegment'>
  readonly keyMaterial: Pick<ApiKeyMaterial, 'hasValidChecksum' | 'matches'>
  readonly usage: Pick<KeyUsageRecorder, 'record'>
  readonly clock: Clock
}

/** Why a key does not authenticate: one `InvalidApiKey` for every refusal, or the store. */
export type AuthenticateApiKeyError = InvalidApiKey | StoreUnavailable

/**
 * The id segment under which a presented key would be looked up: that of a well-formed key
 * whose checksum is valid; none for anything else, which is refused without a lookup. The
 * checksum is public (CONTRACT.md), so a client can forge keys that pass it: an edge that
 * limits lookups per client counts the keys this returns a segment for.
 */
export const idSegmentToLookUp =
  (keyMaterial: Pick<ApiKeyMaterial, 'hasValidChecksum'>) =>
  (presented: string): O.Option<string> =>
    pipe(
      parsePresentedKey(presented),
      O.filter(() => keyMaterial.hasValidChecksum(presented)),
      O.map((parsed) => parsed.idSegment),
    )

/**
 * Turns a presented key into the caller it stands for. The format and checksum are checked
 * before any lookup (a typo or a random string costs no store read); the stored hash is
 * compared in constant time; a revoked key is refused. Every refusal is the same
 * `InvalidApiKey`, so a caller learns nothing about which check failed. A use of the key is
 * recorded (`usage`, batched).
 */
export const authenticateApiKey =
  (deps: AuthenticateApiKeyDeps) =>
  (presented: string): TE.TaskEither<AuthenticateApiKeyError, Caller> => {
    /** The found key as its caller, if it is the presented key and active. */
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
