import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { ApiKey, Caller } from '../../domain/api-key.js'
import { decode, strictObject, Uuid } from '../../domain/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/errors.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'
import type { Clock } from '../../ports/clock.js'

export type RevokeApiKeyDeps = { readonly apiKeys: Pick<ApiKeyRepository, 'revoke'>; readonly clock: Clock }
export type RevokeApiKeyError = InvalidRequest | NotFound | StoreUnavailable

const RevokeApiKeyParams = strictObject('RevokeApiKeyParams', { apiKeyId: Uuid }, {})

/**
 * Revokes a key of the caller's API client; the key is refused from its next request on.
 * Revoking a revoked key returns it unchanged. Another client's key is `NotFound`.
 */
export const revokeApiKey =
  (deps: RevokeApiKeyDeps) =>
  (caller: Caller, params: unknown): TE.TaskEither<RevokeApiKeyError, ApiKey> =>
    pipe(
      TE.fromEither(decode(RevokeApiKeyParams)(params)),
      TE.chainW(({ apiKeyId }) => deps.apiKeys.revoke(caller.clientId, apiKeyId, deps.clock.now())),
      TE.chainW(TE.fromOption(() => notFound('api_key'))),
    )
