import type { EventDraft, EventId, EventLog, EventType, LoanId, LoggedEvent, World } from '@lendgate/core'
import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool, type Transaction } from 'kysely'
import { dropOldestDay, makeDayPartitions, pruneDefaultPartition } from './event-partitions.js'
import { inSequencePage } from './paging.js'
import type { Database, EventsTable } from './schema.js'
import { query } from './store-errors.js'
import { write, writeTogether, type Write } from './together.js'
import { worldSchema } from './worlds.js'

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

/** How many of `events` each loan has. */
const countedByLoan = (events: readonly EventDraft[]): ReadonlyMap<LoanId, number> => {
  const counts = new Map<LoanId, number>()
  for (const e of events) if (e.loanId !== null) counts.set(e.loanId, (counts.get(e.loanId) ?? 0) + 1)
  return counts
}

/** A loan's count of events raised by the `n` being written: its column's new value, for the loan's update. */
export const eventSequenceRaisedBy = (n: number) => sql<number>`event_sequence + ${n}`

/** How many of `events` are of loan `loanId`. */
export const eventsOfLoan = (events: readonly EventDraft[], loanId: LoanId): number => countedByLoan(events).get(loanId) ?? 0

/**
 * The insert of `events` (at least one), to run in the transaction of the change that caused
 * them, as a part of the statement that also raises each loan's count (`eventSequenceRaisedBy`).
 * A loan's events are numbered after its count (the caller holds the loan's lock, or the loan is
 * new), in the order given; each event carries the API client that onboarded its party (the
 * party's `client_id`).
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
            : sql<number>`(${eb.selectFrom('loans').select('event_sequence').where('id', '=', e.loanId)}) + ${nth}`,
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

/**
 * The writes of `events` (none when there are none), to run in one statement: the events, their
 * deliveries, and each loan's count raised, unless `counted` says the statement's own update of
 * that loan raises it (a posting updates its loan once).
 */
export const eventWrites = (trx: Transaction<Database>, events: readonly EventDraft[], counted: ReadonlySet<LoanId> = new Set()): Write[] =>
  events.length === 0
    ? []
    : [
        write('logged_events', eventInsert(trx, events).returning('seq')),
        write('event_fanout', deliveriesInsert(trx, events).returning('id')),
        ...[...countedByLoan(events)]
          .filter(([loanId]) => !counted.has(loanId))
          .map(([loanId, n], k) => write(`event_count_${k}`, trx.updateTable('loans').set({ event_sequence: eventSequenceRaisedBy(n) }).where('id', '=', loanId).returning('id'))),
      ]

/** Writes `events` in `trx` with their deliveries and loan counts, in one statement (nothing when there are none). */
export const insertEvents = (trx: Transaction<Database>, events: readonly EventDraft[]): Promise<void> => writeTogether(trx, eventWrites(trx, events))

/** The event log of `world`: `db` bound to it (`worldDb`). */
export const postgresEventLog = (db: Kysely<Database>, world: World): EventLog => {
  const tables = { schema: worldSchema(world) }
  return {
    // The audience is two index ranges (`client_id`, and the party's events its client did not
    // onboard), each read in list order up to the page's end and merged: no sort of a client's
    // whole log, however long.
    list: (audience, filter, page) =>
      query(async () => {
        const branch = (seen: (eb: ExpressionBuilder<Database, 'events'>) => Expression<SqlBool>) => {
          let q = db.selectFrom('events').selectAll().where(seen)
          if (filter.type !== undefined) q = q.where('type', '=', filter.type)
          if (filter.resourceId !== undefined) q = q.where('resource_id', '=', filter.resourceId)
          if (filter.from !== undefined) q = q.where('created_at', '>=', filter.from)
          if (filter.to !== undefined) q = q.where('created_at', '<', filter.to)
          return db.selectFrom(inSequencePage(q, page).as('branch')).selectAll()
        }
        const onboarded = branch((eb) => eb('client_id', '=', audience.clientId))
        const own = branch((eb) => eb.and([eb('party_id', '=', audience.partyId), eb.or([eb('client_id', 'is', null), eb('client_id', '<>', audience.clientId)])]))
        const rows = await db.selectFrom(onboarded.unionAll(own).as('seen')).selectAll().orderBy('created_at').orderBy('seq').limit(page.limit + 1).execute()
        return rows.map(toLoggedEvent)
      }),

    // A day past retention goes whole (its partition dropped); the events the default partition
    // holds from before the cut (days no partition was made for) go a batch at a time, each with its
    // deliveries. A day's partition is never thinned row by row: its events go with it, on the first
    // run after the whole day is past retention. A day that cannot be locked in time waits for the
    // next run.
    prune: (before, limit) =>
      query(async () => {
        const day = await dropOldestDay(db, tables, before)
        if (typeof day === 'object') return { deleted: day.dropped, more: true, deferred: false }
        const deleted = await pruneDefaultPartition(db, tables, before, limit)
        return { deleted, more: deleted === limit, deferred: day === 'busy' }
      }),

    prepare: (from, through) => query(() => makeDayPartitions(db, tables, from, through)),
  }
}
