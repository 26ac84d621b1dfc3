import type { DeliveryFilter, DeliveryRecord, EndpointDelivery, EndpointId, EventEndpoint, EventEndpointRepository, EventType, PageRequest } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import { inPage } from './paging.js'
import type { Database, EventDeliveriesTable, EventEndpointsTable } from './schema.js'
import { query } from './store-errors.js'

const toEndpoint = (row: Selectable<EventEndpointsTable>): EventEndpoint => ({
  id: row.id,
  clientId: row.client_id,
  partyId: row.party_id,
  url: row.url,
  description: row.description,
  enabledEvents: row.enabled_events,
  status: row.status,
  sealedSecret: row.sealed_secret,
  previousSealedSecret: row.previous_sealed_secret,
  previousSecretExpiresAt: row.previous_secret_expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const endpointColumns = (e: EventEndpoint) => ({
  id: e.id,
  client_id: e.clientId,
  party_id: e.partyId,
  url: e.url,
  description: e.description,
  enabled_events: [...e.enabledEvents],
  status: e.status,
  sealed_secret: e.sealedSecret,
  previous_sealed_secret: e.previousSealedSecret,
  previous_secret_expires_at: e.previousSecretExpiresAt,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
})

const toDelivery = (row: Selectable<EventDeliveriesTable> & { type: string }): EndpointDelivery => ({
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  eventType: row.type as EventType,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
  createdAt: row.created_at,
})

/** Deliveries with their event's type and their endpoint's URL, client and party, in `id` order (as queued) after the page's cursor. */
const deliveryRecords = (db: Kysely<Database>, filter: DeliveryFilter, page: PageRequest) => {
  let q = db
    .selectFrom('event_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('event_endpoints as p', 'p.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['e.type', 'p.url', 'p.client_id', 'p.party_id'])
  if (filter.status !== undefined) q = q.where('d.status', '=', filter.status)
  if (filter.endpointId !== undefined) q = q.where('d.endpoint_id', '=', filter.endpointId)
  if (filter.eventId !== undefined) q = q.where('d.event_id', '=', filter.eventId)
  if (O.isSome(page.after)) q = q.where(sql<SqlBool>`d.id > ${BigInt(page.after.value.id)}`)
  return q.orderBy('d.id').limit(page.limit + 1)
}

const toRecord = (row: Selectable<EventDeliveriesTable> & Pick<Selectable<EventEndpointsTable>, 'url' | 'client_id' | 'party_id'> & { type: string }): DeliveryRecord => ({
  ...toDelivery(row),
  rowId: String(row.id),
  url: row.url,
  clientId: row.client_id,
  partyId: row.party_id,
})

/** The events `endpoint`'s owner sees: of the parties its client onboarded, and of its own party. */
const seenBy =
  (endpoint: EventEndpoint) =>
  (eb: ExpressionBuilder<Database, 'events'>) =>
    eb.or([eb('events.client_id', '=', endpoint.clientId), eb('events.party_id', '=', endpoint.partyId)])

/** Partners' webhook endpoints of one world: `db` bound to it (`worldDb`). */
export const postgresEventEndpointRepository = (db: Kysely<Database>): EventEndpointRepository => ({
  insert: (endpoint) =>
    query(async () => {
      await db.insertInto('event_endpoints').values(endpointColumns(endpoint)).execute()
    }),

  findForClient: (clientId, id) =>
    query(async () =>
      O.map(toEndpoint)(O.fromNullable(await db.selectFrom('event_endpoints').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst())),
    ),

  listForClient: (clientId, page) =>
    query(async () => (await inPage(db.selectFrom('event_endpoints').selectAll().where('client_id', '=', clientId), page).execute()).map(toEndpoint)),

  update: (endpoint) =>
    query(async () => {
      const { url, description, enabled_events, status, updated_at } = endpointColumns(endpoint)
      const row = await db.updateTable('event_endpoints').set({ url, description, enabled_events, status, updated_at }).where('id', '=', endpoint.id).returningAll().executeTakeFirst()
      return O.map(toEndpoint)(O.fromNullable(row))
    }),

  // One statement: a concurrent settings change cannot write an older secret back.
  rotateSecret: (clientId, id, sealedSecret, previousExpiresAt, now) =>
    query(async () => {
      const row = await db
        .updateTable('event_endpoints')
        .set((eb) => ({
          sealed_secret: sealedSecret,
          previous_sealed_secret: previousExpiresAt === null ? null : eb.ref('sealed_secret'),
          previous_secret_expires_at: previousExpiresAt,
          updated_at: now,
        }))
        .where('id', '=', id)
        .where('client_id', '=', clientId)
        .returningAll()
        .executeTakeFirst()
      return O.map(toEndpoint)(O.fromNullable(row))
    }),

  remove: (clientId, id) =>
    query(async () => O.map(toEndpoint)(O.fromNullable(await db.deleteFrom('event_endpoints').where('id', '=', id).where('client_id', '=', clientId).returningAll().executeTakeFirst()))),

  // A delivery under way keeps its lease, and its outcome, when recorded, stands: never two sends at once.
  resend: (endpoint, eventId, now, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const event = await trx.selectFrom('events').select(['id', 'type']).where('id', '=', eventId).where(seenBy(endpoint)).executeTakeFirst()
        if (event === undefined) return O.none
        const row = await trx
          .insertInto('event_deliveries')
          .values({ endpoint_id: endpoint.id, event_id: eventId, status: 'pending', next_attempt_at: now, created_at: now })
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doUpdateSet({ status: 'pending', next_attempt_at: now }))
          .returningAll()
          .executeTakeFirstOrThrow()
        await insertAuditEvent(trx, audit)
        return O.some(toDelivery({ ...row, type: event.type }))
      }),
    ),

  find: (id) => query(async () => O.map(toEndpoint)(O.fromNullable(await db.selectFrom('event_endpoints').selectAll().where('id', '=', id).executeTakeFirst()))),

  listDeliveries: (filter, page) => query(async () => (await deliveryRecords(db, filter, page).execute()).map(toRecord)),

  findDelivery: (endpointId, eventId) =>
    query(async () => {
      const row = await deliveryRecords(db, { endpointId, eventId }, { limit: 1, after: O.none }).executeTakeFirst()
      if (row === undefined) return O.none
      const attempts = await db.selectFrom('event_delivery_attempts').selectAll().where('delivery_id', '=', row.id).orderBy('attempt_number').orderBy('id').execute()
      return O.some({
        ...toRecord(row),
        attemptLog: attempts.map((a) => ({ attemptNumber: a.attempt_number, url: a.url, startedAt: a.started_at, durationMs: a.duration_ms, statusCode: a.status_code, error: a.error })),
      })
    }),

  recover: (endpoint, since, until, now) =>
    query(async () => {
      const missed = db
        .selectFrom('events')
        .select([
          sql<EndpointId>`${endpoint.id}::uuid`.as('endpoint_id'),
          'events.id as event_id',
          sql<'pending'>`'pending'`.as('status'),
          sql<Date>`${now}::timestamptz`.as('next_attempt_at'),
          sql<Date>`${now}::timestamptz`.as('created_at'),
        ])
        .where(seenBy(endpoint))
        .where('events.created_at', '>=', since)
        .where('events.created_at', '<', until)
        .where((eb) => eb.or([eb(sql.val<string>('*'), '=', eb.fn.any(sql<string[]>`${[...endpoint.enabledEvents]}::text[]`)), eb('events.type', '=', eb.fn.any(sql<string[]>`${[...endpoint.enabledEvents]}::text[]`))]))
      const result = await db
        .insertInto('event_deliveries')
        .columns(['endpoint_id', 'event_id', 'status', 'next_attempt_at', 'created_at'])
        .expression(missed)
        .onConflict((oc) =>
          oc
            .columns(['endpoint_id', 'event_id'])
            .doUpdateSet({ status: 'pending', next_attempt_at: now })
            .where('event_deliveries.status', '<>', 'delivered'),
        )
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0n)
    }),
})
