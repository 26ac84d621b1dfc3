import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditAction, AuditEvent } from '../domain/audit/audit-event.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ClientId, PartyId } from '../domain/foundations/ids.js'

/** Every given field must match. */
export type AuditEventFilter = {
  readonly action?: AuditAction
  readonly subjectId?: string
  readonly apiClientId?: ClientId
  readonly partyId?: PartyId
}

/** The append-only audit log. Changes with a transaction write their event in it; `record` is for work without one (the accrual job). */
export type AuditLog = {
  /** Appends one event. */
  readonly record: (event: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** Newest first: `(occurredAt, id)` descending. */
  readonly list: (filter: AuditEventFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly AuditEvent[]>
}
