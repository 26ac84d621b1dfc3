import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { ApiKey, Caller } from '../../domain/keys/api-key.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { decodePageRequest, pageOf, type Page } from '../../domain/foundations/pagination.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'

/** What `listApiKeys` needs. */
export type ListApiKeysDeps = { readonly apiKeys: Pick<ApiKeyRepository, 'listForClient'> }
/** Why `listApiKeys` fails: a bad `limit` or `cursor`, or the store. */
export type ListApiKeysError = InvalidRequest | StoreUnavailable

/**
 * Keys of the caller's API client (active and revoked), oldest first. The command is a page
 * (`limit`, `cursor`).
 */
export const listApiKeys =
  (deps: ListApiKeysDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<ListApiKeysError, Page<ApiKey>> =>
    pipe(
      TE.fromEither(decodePageRequest(command)),
      TE.chainW((page) =>
        pipe(
          deps.apiKeys.listForClient(caller.clientId, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )
