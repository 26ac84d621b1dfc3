import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId, PartyId } from '../domain/foundations/ids.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { EventType, LoggedEvent } from '../domain/events/event.js'

/** Who reads: an event is seen by the API client that onboarded its party and by the keys of that party (docs/events.md). */
export type EventAudience = { readonly clientId: ClientId; readonly partyId: PartyId }

/** Which events `list` returns: optionally of one `type`, about one resource, written in `[from, to)`. */
export type EventFilter = { readonly type?: EventType; readonly resourceId?: string; readonly from?: Date; readonly to?: Date }

/**
 * The event log. Events are written by the repositories whose changes cause them, in the same
 * transaction (`Posting.events`, the application and onboarding saves); this port reads and prunes.
 */
export type EventLog = {
  /** In `(occurredAt, seq)` order, at most `page.limit + 1`; the cursor's id is the zero-padded `seq`. */
  readonly list: (audience: EventAudience, filter: EventFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoggedEvent[]>
  /**
   * One step of removing the events written before `before`, with their deliveries. A store that
   * keeps events in stretches of time (the PostgreSQL log's day partitions) removes a stretch at
   * once, when all of it is before `before`, and never thins one; other events go up to `limit` a
   * step. Answers how many went, whether a step may find more, and whether a stretch due was left
   * for a later run because the store was busy with it (a long reader holding its lock).
   */
  readonly prune: (before: Date, limit: number) => TE.TaskEither<StoreUnavailable, PruneStep>
  /** Readies the log for the events of the days from `from` to `through` (the PostgreSQL log makes their day partitions); answers how many days it readied. */
  readonly prepare: (from: Date, through: Date) => TE.TaskEither<StoreUnavailable, number>
}

/** What a step of `EventLog.prune` did: the events it removed, whether more are left before its cut, and whether it left a stretch due for a later run. */
export type PruneStep = { readonly deleted: number; readonly more: boolean; readonly deferred: boolean }
