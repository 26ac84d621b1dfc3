import type { EventDraft, EventId, EventLog, EventType, LoggedEvent } from '@lendgate/core'
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import { inSequencePage } from './paging.js'
import type { Database, EventsTable } from './schema.js'
import { query } from './store-errors.js'

export const toLoggedEvent = (row: Selectable<EventsTable>): LoggedEvent => ({
  id: row.id,
  type: row.type as EventType,
  partyId: row.party_id,
  loanId: row.loan_id,
  resourceId: row.resource_id,
  occurredAt: row.created_at,
  data: JSON.parse(row.data) as object,
  previous: row.previous === null ? null : (JSON.parse(row.previous) as Record<string, unknown>),
  sequence: row.loan_sequence,
  seq: row.seq,
})

/**
 * The insert of `events` (none when empty), to run in the transaction of the change that caused
 * them, alone or as a part of a larger statement. A loan's events are numbered after the loan's
 * last (the caller holds the loan's lock, or the loan is new), in the order given; each event
 * carries the API client that onboarded its party (the party's `client_id`).
 */
export const eventInsert = (trx: Transaction<Database>, events: readonly EventDraft[]) => {
  const perLoan = new Map<string, number>()
  return trx.insertInto('events').values(
    events.map((e) => {
      const nth = e.loanId === null ? 0 : (perLoan.get(e.loanId) ?? 0) + 1
      if (e.loanId !== null) perLoan.set(e.loanId, nth)
      return {
        id: e.id,
        type: e.type,
        party_id: e.partyId,
        client_id: (eb) => eb.selectFrom('parties').select('client_id').where('id', '=', e.partyId),
        loan_id: e.loanId,
        loan_sequence: (eb) =>
          e.loanId === null
            ? eb.val(null)
            : sql<number>`coalesce((${eb.selectFrom('events').select((s) => s.fn.max('loan_sequence').as('last')).where('loan_id', '=', e.loanId)}), 0) + ${nth}`,
        resource_id: e.resourceId,
        data: JSON.stringify(e.data),
        previous: e.previous === null ? null : JSON.stringify(e.previous),
        created_at: e.occurredAt,
      }
    }),
  )
}

/**
 * The deliveries of `events` (at least one): one for each enabled endpoint that takes the event's
 * type and whose owner sees it (the API client that onboarded the event's party, or a client of
 * that party), due at once. Built on the event's columns as given, so it may run in the statement
 * that writes the events.
 */
export const deliveriesInsert = (trx: Transaction<Database>, events: readonly EventDraft[]) => {
  const [first, ...rest] = events.map((e) =>
    trx
      .selectFrom('event_endpoints as ep')
      .select([
        'ep.id as endpoint_id',
        sql<EventId>`${e.id}::text`.as('event_id'),
        sql<'pending'>`'pending'`.as('status'),
        // Due at once by the database's clock, which the workers' claims compare with: an event of a
        // party on a test clock occurs at the clock's time, which may be days ahead.
        sql<Date>`now()`.as('next_attempt_at'),
        sql<Date>`now()`.as('created_at'),
      ])
      .where('ep.status', '=', 'enabled')
      .where((eb) => eb.or([eb('ep.party_id', '=', e.partyId), eb('ep.client_id', '=', eb.selectFrom('parties').select('client_id').where('id', '=', e.partyId))]))
      .where((eb) => eb.or([eb(sql.val<string>(e.type), '=', eb.fn.any('ep.enabled_events')), eb(sql.val<string>('*'), '=', eb.fn.any('ep.enabled_events'))])),
  )
  const selected = rest.reduce((all, one) => all.unionAll(one), first!)
  return trx.insertInto('event_deliveries').columns(['endpoint_id', 'event_id', 'status', 'next_attempt_at', 'created_at']).expression(selected)
}

/** Writes `events` in `trx` with their deliveries (nothing when there are none). */
export const insertEvents = async (trx: Transaction<Database>, events: readonly EventDraft[]): Promise<void> => {
  if (events.length === 0) return
  await eventInsert(trx, events).execute()
  await deliveriesInsert(trx, events).execute()
}

/** The event log of one world: `db` bound to it (`worldDb`). */
export const postgresEventLog = (db: Kysely<Database>): EventLog => ({
  list: (audience, filter, page) =>
    query(async () => {
      let q = db
        .selectFrom('events')
        .selectAll()
        .where((eb) => eb.or([eb('client_id', '=', audience.clientId), eb('party_id', '=', audience.partyId)]))
      if (filter.type !== undefined) q = q.where('type', '=', filter.type)
      if (filter.resourceId !== undefined) q = q.where('resource_id', '=', filter.resourceId)
      if (filter.from !== undefined) q = q.where('created_at', '>=', filter.from)
      if (filter.to !== undefined) q = q.where('created_at', '<', filter.to)
      return (await inSequencePage(q, page).execute()).map(toLoggedEvent)
    }),

  prune: (before, limit) =>
    query(async () => {
      const doomed = db.selectFrom('events').select('seq').where('created_at', '<', before).orderBy('created_at').limit(limit)
      const deleted = await db.deleteFrom('events').where('seq', 'in', doomed).executeTakeFirst()
      return Number(deleted.numDeletedRows)
    }),
})
