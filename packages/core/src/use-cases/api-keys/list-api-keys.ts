import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { ApiKey, Caller } from '../../domain/keys/api-key.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { decodePageRequest, pageOf, type Page } from '../../domain/foundations/pagination.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'

/** What `listApiKeys` needs. */
export type ListApiKeysDeps = { readonly apiKeys: Pick<ApiKeyRepository, 'listForClient'> }
/** A bad page, or the store. */
export type ListApiKeysError = InvalidRequest | StoreUnavailable

/** The caller's client's keys of its environment, active and revoked, oldest first. */
export const listApiKeys =
  (deps: ListApiKeysDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<ListApiKeysError, Page<ApiKey>> =>
    pipe(
      TE.fromEither(decodePageRequest(command)),
      TE.chainW((page) =>
        pipe(
          deps.apiKeys.listForClient(caller, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )
