import type { WebhookEvent, WebhookEventRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import type { Database, WebhookEventsTable } from './schema.js'
import { inPage } from './paging.js'
import { query } from './store-errors.js'

export const toWebhookEvent = (row: Selectable<WebhookEventsTable>): WebhookEvent => ({
  id: row.id,
  sessionId: row.session_id,
  type: row.type as WebhookEvent['type'],
  body: row.body,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
})

/** Queues an event inside the caller's transaction (the outbox write). */
export const insertWebhookEvent = async (trx: Transaction<Database>, e: WebhookEvent): Promise<void> => {
  await trx
    .insertInto('webhook_events')
    .values({
      id: e.id,
      session_id: e.sessionId,
      type: e.type,
      body: e.body,
      status: e.status,
      attempts: e.attempts,
      next_attempt_at: e.nextAttemptAt,
      created_at: e.createdAt,
    })
    .execute()
}

export const postgresWebhookEventRepository = (db: Kysely<Database>): WebhookEventRepository => ({
  listForSession: (sessionId, page) =>
    query(async () => {
      const q = db.selectFrom('webhook_events').selectAll().where('session_id', '=', sessionId)
      return (await inPage(q, page).execute()).map(toWebhookEvent)
    }),
  listDeliveries: (sessionId, page) =>
    query(async () => {
      const q = db.selectFrom('webhook_events').selectAll().where('session_id', '=', sessionId)
      const events = (await inPage(q, page).execute()).map(toWebhookEvent)
      if (events.length === 0) return []
      const attempts = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where(
          'event_id',
          'in',
          events.map((e) => e.id),
        )
        .orderBy('attempt_number')
        .orderBy('id')
        .execute()
      return events.map((e) => ({
        ...e,
        attemptLog: attempts
          .filter((a) => a.event_id === e.id)
          .map((a) => ({
            attemptNumber: a.attempt_number,
            url: a.url,
            startedAt: a.started_at,
            durationMs: a.duration_ms,
            statusCode: a.status_code,
            error: a.error,
          })),
      }))
    }),

  retryNow: (sessionId, eventId, at) =>
    query(async () =>
      O.map(toWebhookEvent)(
        O.fromNullable(
          await db
            .updateTable('webhook_events')
            // A lease still held stays: a retry asked for during an attempt waits for it (never a
            // second send at once), and a lease a crash left is still seen as one.
            .set({ status: 'pending', next_attempt_at: at })
            .where('id', '=', eventId)
            .where('session_id', '=', sessionId)
            .returningAll()
            .executeTakeFirst(),
        ),
      ),
    ),

  hurryPending: (sessionId, at) =>
    query(async () => {
      await db
        .updateTable('webhook_events')
        .set({ next_attempt_at: at })
        .where('session_id', '=', sessionId)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '>', at)
        .execute()
    }),
})
