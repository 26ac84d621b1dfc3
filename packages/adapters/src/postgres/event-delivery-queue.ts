import { eventView, signingSecrets, type DeliveryAttempt, type DueDelivery, type WebhookDeliveryQueue, type World } from '@lendgate/core'
import type { Kysely } from 'kysely'
import { toLoggedEvent } from './event-log.js'
import { outcomeColumns } from './webhook-delivery-queue.js'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

const attemptValues = (attempt: DeliveryAttempt) => ({
  delivery_id: Number(attempt.deliveryId),
  attempt_number: attempt.attemptNumber,
  url: attempt.url,
  started_at: attempt.startedAt,
  duration_ms: Math.round(attempt.durationMs),
  status_code: attempt.statusCode,
  error: attempt.error,
})

/**
 * Deliveries of events to partners' endpoints, for the delivery workers of `world` (`db` bound to
 * it): the session outbox's leasing (`postgresWebhookDeliveryQueue`) over `event_deliveries`.
 * A delivery of a disabled endpoint waits, unclaimed, until it is enabled again. The body is the
 * event as the event list shows it, built from the stored event, so every attempt signs the same
 * bytes; the endpoint's rotated-out secret signs too while its grace period lasts.
 */
export const postgresEventDeliveryQueue = (db: Kysely<Database>, world: World): WebhookDeliveryQueue => ({
  claimDue: (now, limit, leaseMs) =>
    query(async () => {
      const due = db
        .selectFrom('event_deliveries as d')
        .innerJoin('event_endpoints as ep', 'ep.id', 'd.endpoint_id')
        .select(['d.id', 'd.locked_until as previous_lease'])
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', now)
        .where('ep.status', '=', 'enabled')
        .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<', now)]))
        .orderBy('d.next_attempt_at')
        .orderBy('d.id')
        .limit(limit)
        .forUpdate('d')
        .skipLocked()
      const claimed = await db
        .updateTable('event_deliveries as d')
        .from(due.as('due'))
        .set({ locked_until: new Date(now.getTime() + leaseMs) })
        .whereRef('d.id', '=', 'due.id')
        .returning(['d.id', 'd.endpoint_id', 'd.event_id', 'd.attempts', 'due.previous_lease'])
        .execute()
      if (claimed.length === 0) return []
      const endpoints = await db.selectFrom('event_endpoints').selectAll().where('id', 'in', [...new Set(claimed.map((c) => c.endpoint_id))]).execute()
      const events = await db.selectFrom('events').selectAll().where('id', 'in', [...new Set(claimed.map((c) => c.event_id))]).execute()
      // A delivery whose event retention removed meanwhile (a resend racing the day's drop) has nothing left to send: it goes.
      const orphans = claimed.filter((c) => !events.some((e) => e.id === c.event_id)).map((c) => c.id)
      if (orphans.length > 0) await db.deleteFrom('event_deliveries').where('id', 'in', orphans).execute()
      return claimed.flatMap((c): DueDelivery[] => {
        const endpoint = endpoints.find((e) => e.id === c.endpoint_id)
        const event = events.find((e) => e.id === c.event_id)
        if (endpoint === undefined || event === undefined) return []
        const secrets = signingSecrets({ sealedSecret: endpoint.sealed_secret, previousSealedSecret: endpoint.previous_sealed_secret, previousSecretExpiresAt: endpoint.previous_secret_expires_at }, now)
        return [
          {
            deliveryId: String(c.id),
            eventId: c.event_id,
            body: JSON.stringify(eventView(toLoggedEvent(event), world)),
            attempts: c.attempts,
            url: endpoint.url,
            sealedSecrets: secrets,
            interruptedLeaseEnd: c.previous_lease,
          },
        ]
      })
    }),

  record: (attempt, outcome) =>
    query(async () => {
      await db
        .with('attempt', (db) => db.insertInto('event_delivery_attempts').values(attemptValues(attempt)))
        .updateTable('event_deliveries')
        .set(outcomeColumns(attempt, outcome))
        .where('id', '=', Number(attempt.deliveryId))
        .execute()
    }),

  recordInterrupted: (attempt) =>
    query(async () => {
      await db
        .with('attempt', (db) => db.insertInto('event_delivery_attempts').values(attemptValues(attempt)))
        .updateTable('event_deliveries')
        .set({ attempts: attempt.attemptNumber, last_error: attempt.error })
        .where('id', '=', Number(attempt.deliveryId))
        .execute()
    }),

  backlog: (now) =>
    query(async () => {
      const rows = await db
        .selectFrom('event_deliveries as d')
        .innerJoin('event_endpoints as ep', 'ep.id', 'd.endpoint_id')
        .select((eb) => [
          eb.fn.countAll<number>().filterWhere('ep.status', '=', 'enabled').filterWhere('d.next_attempt_at', '<=', now).as('due'),
          eb.fn.countAll<number>().filterWhere('ep.status', '=', 'enabled').filterWhere('d.next_attempt_at', '>', now).as('scheduled'),
          eb.fn.countAll<number>().filterWhere('ep.status', '=', 'disabled').as('awaiting_endpoint'),
          eb.fn.min('d.next_attempt_at').filterWhere('ep.status', '=', 'enabled').filterWhere('d.next_attempt_at', '<=', now).as('oldest_due'),
        ])
        .where('d.status', '=', 'pending')
        .execute()
      const row = rows[0]
      return { due: row?.due ?? 0, scheduled: row?.scheduled ?? 0, awaitingEndpoint: row?.awaiting_endpoint ?? 0, oldestDueAt: row?.oldest_due ?? null }
    }),
})
