import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditAction, AuditEvent } from '../domain/audit/audit-event.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ClientId, PartyId } from '../domain/foundations/ids.js'

/** Which events `list` returns: every given field must match; none given lists all. */
export type AuditEventFilter = {
  readonly action?: AuditAction
  readonly subjectId?: string
  readonly apiClientId?: ClientId
  readonly partyId?: PartyId
}

/**
 * The append-only audit log. Changes that have a transaction write their event inside it,
 * through the repository method that makes the change (each takes the event); `record` is for
 * work that has no transaction of its own to join (the accrual job, whose loans change in
 * transactions of their own).
 */
export type AuditLog = {
  /** Appends one event. */
  readonly record: (event: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /**
   * Events matching every given filter, newest first: `(occurredAt, id)` descending, strictly
   * after `page.after` in that order, at most `page.limit + 1`.
   */
  readonly list: (filter: AuditEventFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly AuditEvent[]>
}
