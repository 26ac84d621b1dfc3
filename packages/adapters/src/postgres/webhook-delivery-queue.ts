import type { AttemptOutcome, DeliveryAttempt, DueDelivery, EventId, WebhookDeliveryQueue } from '@lendgate/core'
import type { Kysely } from 'kysely'
import type { Selectable } from 'kysely'
import type { Database, WebhookEventsTable } from './schema.js'
import { query } from './store-errors.js'

type ClaimedRow = Selectable<WebhookEventsTable> & { url: string; sealed_secret: string; previous_lease: Date | null }

const attemptValues = (attempt: DeliveryAttempt) => ({
  event_id: attempt.deliveryId as EventId,
  attempt_number: attempt.attemptNumber,
  url: attempt.url,
  started_at: attempt.startedAt,
  duration_ms: Math.round(attempt.durationMs),
  status_code: attempt.statusCode,
  error: attempt.error,
})

/**
 * What an attempt's outcome writes on its delivery, in either queue (the session outbox's events,
 * the endpoints' deliveries: the same columns): the count, the status, the next attempt's time
 * for a retry, the lease released, and the last error (none once delivered).
 */
export const outcomeColumns = (attempt: DeliveryAttempt, outcome: AttemptOutcome) => ({
  attempts: attempt.attemptNumber,
  status: outcome._tag === 'Delivered' ? ('delivered' as const) : outcome._tag === 'Failed' ? ('failed' as const) : ('pending' as const),
  ...(outcome._tag === 'RetryAt' ? { next_attempt_at: outcome.at } : {}),
  locked_until: null,
  last_error: outcome._tag === 'Delivered' ? null : (attempt.error ?? (attempt.statusCode === null ? null : `HTTP ${attempt.statusCode}`)),
})

/**
 * The sessions' outbox (`party.ready`) for delivery workers; a delivery's id is its event's. A claim is one statement: due rows are picked with
 * `FOR UPDATE SKIP LOCKED` (so concurrent workers on any instance skip each other's rows) and
 * leased by setting `locked_until`; an expired lease makes the row claimable again, and is
 * handed to the new claimant (`interruptedLeaseEnd`: recording an attempt clears the lease, so
 * one still set was never recorded).
 */
export const postgresWebhookDeliveryQueue = (db: Kysely<Database>): WebhookDeliveryQueue => ({
  claimDue: (now, limit, leaseMs) =>
    query(async () => {
      const lockedUntil = new Date(now.getTime() + leaseMs)
      const due = db
        .selectFrom('webhook_events as ev')
        .innerJoin('webhook_endpoints as w', 'w.session_id', 'ev.session_id')
        .select(['ev.id', 'w.url', 'w.sealed_secret', 'ev.locked_until as previous_lease'])
        .where('ev.status', '=', 'pending')
        .where('ev.next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('ev.locked_until', 'is', null), eb('ev.locked_until', '<', now)]))
        .orderBy('ev.next_attempt_at')
        .orderBy('ev.id')
        .limit(limit)
        .forUpdate('ev')
        .skipLocked()
      const rows: ClaimedRow[] = await db
        .updateTable('webhook_events as e')
        .from(due.as('due'))
        .set({ locked_until: lockedUntil })
        .whereRef('e.id', '=', 'due.id')
        .returningAll('e')
        .returning(['due.url', 'due.sealed_secret', 'due.previous_lease'])
        .execute()
      return rows.map(
        (row): DueDelivery => ({
          deliveryId: row.id,
          eventId: row.id,
          body: row.body,
          attempts: row.attempts,
          url: row.url,
          sealedSecrets: [row.sealed_secret],
          interruptedLeaseEnd: row.previous_lease,
        }),
      )
    }),

  // One statement each, the attempt's insert a data-modifying CTE of the event's update: atomic,
  // in one round trip (decision 103).
  record: (attempt, outcome) =>
    query(async () => {
      await db
        .with('attempt', (db) => db.insertInto('webhook_attempts').values(attemptValues(attempt)))
        .updateTable('webhook_events')
        .set(outcomeColumns(attempt, outcome))
        .where('id', '=', attempt.deliveryId as EventId)
        .execute()
    }),

  recordInterrupted: (attempt) =>
    query(async () => {
      await db
        .with('attempt', (db) => db.insertInto('webhook_attempts').values(attemptValues(attempt)))
        .updateTable('webhook_events')
        .set({ attempts: attempt.attemptNumber, last_error: attempt.error })
        .where('id', '=', attempt.deliveryId as EventId)
        .execute()
    }),

  // Over the partial index of pending events (`webhook_events_due_idx`), joined to endpoints as `claimDue` is.
  backlog: (now) =>
    query(async () => {
      const rows = await db
        .selectFrom('webhook_events as e')
        .leftJoin('webhook_endpoints as w', 'w.session_id', 'e.session_id')
        .select((eb) => [
          eb.fn.countAll<number>().filterWhere('w.session_id', 'is not', null).filterWhere('e.next_attempt_at', '<=', now).as('due'),
          eb.fn.countAll<number>().filterWhere('w.session_id', 'is not', null).filterWhere('e.next_attempt_at', '>', now).as('scheduled'),
          eb.fn.countAll<number>().filterWhere('w.session_id', 'is', null).as('awaiting_endpoint'),
          eb.fn.min('e.next_attempt_at').filterWhere('w.session_id', 'is not', null).filterWhere('e.next_attempt_at', '<=', now).as('oldest_due'),
        ])
        .where('e.status', '=', 'pending')
        .execute()
      const row = rows[0]
      return { due: row?.due ?? 0, scheduled: row?.scheduled ?? 0, awaitingEndpoint: row?.awaiting_endpoint ?? 0, oldestDueAt: row?.oldest_due ?? null }
    }),
})
