import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { ApiKey, Caller } from '../../domain/keys/api-key.js'
import { keyRevokedEvent, OPERATOR_CONTEXT, type AuditContext } from '../../domain/audit/audit-event.js'
import * as t from 'io-ts'
import { decode } from '../../domain/foundations/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'

/** What `revokeApiKey` needs. */
export type RevokeApiKeyDeps = { readonly apiKeys: Pick<ApiKeyRepository, 'revoke'>; readonly ids: IdGenerator; readonly clock: Clock }
/** A malformed id, another client's key, or the store. */
export type RevokeApiKeyError = InvalidRequest | NotFound | StoreUnavailable

const RevokeApiKeyCommand = commandOf(['apiKeyId'], t.UnknownRecord)

/**
 * Revokes a key of the caller's client; a revoked key is returned unchanged and audited once.
 * Caching instances drop it on notice (`KeyRevocations`).
 */
export const revokeApiKey =
  (deps: RevokeApiKeyDeps) =>
  (caller: Caller, command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<RevokeApiKeyError, ApiKey> =>
    pipe(
      TE.fromEither(decode(RevokeApiKeyCommand)(command)),
      TE.chainW(({ apiKeyId }) => {
        const now = deps.clock.now()
        const auditId = deps.ids.next()
        return deps.apiKeys.revoke(caller, apiKeyId, now, (revoked) => keyRevokedEvent(auditId, context, revoked, now))
      }),
      TE.chainW(TE.fromOption(() => notFound('api_key'))),
    )
