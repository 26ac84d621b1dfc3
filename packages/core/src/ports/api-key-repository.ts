import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiClient, ApiKey, Caller } from '../domain/keys/api-key.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ApiKeyId } from '../domain/foundations/ids.js'

/** The client is used only if none exists for its party and name. */
export type MintRecord = {
  readonly client: ApiClient
  readonly key: Omit<ApiKey, 'clientId'>
}

/**
 * Whose keys a partner manages: its client's, of its own environment only (decision 128: a test
 * key neither sees nor revokes a live one). A `Caller` is one.
 */
export type KeyOwner = Pick<Caller, 'clientId' | 'environment'>

/** Stores API clients and keys. Reads return none for a missing row. */
export type ApiKeyRepository = {
  /** In one transaction: finds or creates the client, inserts the key, writes `audit`'s event; safe when two mints race. */
  readonly mint: (
    record: MintRecord,
    audit: (minted: { readonly client: ApiClient; readonly key: ApiKey }) => AuditEvent,
  ) => TE.TaskEither<StoreUnavailable, { readonly client: ApiClient; readonly key: ApiKey }>
  /** Whatever its status. */
  readonly findByIdSegment: (idSegment: string) => TE.TaskEither<StoreUnavailable, O.Option<ApiKey>>
  /** None when not `owner`'s. */
  readonly findForClient: (owner: KeyOwner, keyId: ApiKeyId) => TE.TaskEither<StoreUnavailable, O.Option<ApiKey>>
  /** `owner`'s keys in `(createdAt, id)` order, at most `page.limit + 1`. */
  readonly listForClient: (owner: KeyOwner, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly ApiKey[]>
  /** Revokes an active key of `owner`, keeping a first `revokedAt`; the event is written only when this call revoked it. */
  readonly revoke: (owner: KeyOwner, keyId: ApiKeyId, at: Date, audit: (revoked: ApiKey) => AuditEvent) => TE.TaskEither<StoreUnavailable, O.Option<ApiKey>>
  /** Sets each `lastUsedAt` to the later of stored and given. */
  readonly recordUsage: (usage: ReadonlyMap<ApiKeyId, Date>) => TE.TaskEither<StoreUnavailable, void>
}
