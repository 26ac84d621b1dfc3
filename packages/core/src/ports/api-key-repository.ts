import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiClient, ApiKey } from '../domain/keys/api-key.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ApiKeyId, ClientId } from '../domain/foundations/ids.js'

/** What a mint writes: the client (used only if none exists for its party and name) and the key. */
export type MintRecord = {
  readonly client: ApiClient
  readonly key: Omit<ApiKey, 'clientId'>
}

/**
 * Stores API clients and keys. Reads never fail for a missing row: they return none.
 */
export type ApiKeyRepository = {
  /**
   * In one transaction: finds the client with `client.partyId` + `client.name`, or creates
   * `client`; then inserts the key under that client. Returns the client actually used and
   * the stored key. Safe when two mints race for the same new client. The event `audit` makes
   * of the client and key actually stored is written in the same transaction (decision 45).
   */
  readonly mint: (
    record: MintRecord,
    audit: (minted: { readonly client: ApiClient; readonly key: ApiKey }) => AuditEvent,
  ) => TE.TaskEither<StoreUnavailable, { readonly client: ApiClient; readonly key: ApiKey }>
  /** The key whose id segment is `idSegment`, whatever its status. */
  readonly findByIdSegment: (idSegment: string) => TE.TaskEither<StoreUnavailable, O.Option<ApiKey>>
  /** The key `keyId` if it belongs to `clientId`. */
  readonly findForClient: (clientId: ClientId, keyId: ApiKeyId) => TE.TaskEither<StoreUnavailable, O.Option<ApiKey>>
  /** Keys of `clientId`, in `(createdAt, id)` order, at most `page.limit + 1` rows after `page.after`. */
  readonly listForClient: (clientId: ClientId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly ApiKey[]>
  /**
   * Marks the key revoked at `at` if it is active and belongs to `clientId`; a revoked key
   * keeps its first `revokedAt`. Returns the key as stored afterwards, none if not the client's.
   * The event `audit` makes of the revoked key is written in the same transaction, only when
   * this call revoked it (revoking a revoked key records nothing).
   */
  readonly revoke: (clientId: ClientId, keyId: ApiKeyId, at: Date, audit: (revoked: ApiKey) => AuditEvent) => TE.TaskEither<StoreUnavailable, O.Option<ApiKey>>
  /** Sets `lastUsedAt` for each key to the later of its stored value and the given time. */
  readonly recordUsage: (usage: ReadonlyMap<ApiKeyId, Date>) => TE.TaskEither<StoreUnavailable, void>
}
