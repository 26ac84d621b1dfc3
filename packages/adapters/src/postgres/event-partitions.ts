import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './schema.js'
import { isLockNotAvailable } from './store-errors.js'

/**
 * The day partitions of a world's event log (migration 0034, decision 158): `events_pYYYYMMDD`
 * holds the events whose `created_at` falls in that UTC day; `events_default` holds any other
 * (a day no partition was made for yet, a test clock's far future). The retention job makes the
 * coming days' partitions and drops the days past retention whole, with their deliveries.
 *
 * Partition DDL takes a lock on the whole log, which every read and write of an event queues
 * behind while it waits: each such transaction gives up after `LOCK_TIMEOUT` rather than stall
 * the API behind a long reader (a backup), and leaves that day to the job's next daily run.
 */

const DAY_MS = 86_400_000
const LOCK_TIMEOUT = '1s'
const COLUMNS = ['seq', 'id', 'type', 'party_id', 'client_id', 'loan_id', 'loan_sequence', 'resource_id', 'data', 'previous', 'created_at'] as const
const DAY_PARTITION = /^events_p(\d{4})(\d{2})(\d{2})$/

/** A world's log: the schema of its tables (none for the live world's, the migrations' own). */
export type EventTables = { readonly schema: string | undefined }

const table = (tables: EventTables, name: string) => sql.table(tables.schema === undefined ? name : `${tables.schema}.${name}`)

/** The partition of the UTC day that starts at `dayStart`. */
const partitionName = (dayStart: number): string => `events_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`

const timestampOf = (ms: number): RawBuilder<unknown> => sql.lit(new Date(ms).toISOString())

/** The start of the UTC day of `at`. */
const dayStartOf = (at: Date): number => Math.floor(at.getTime() / DAY_MS) * DAY_MS

/** The partitions of table `parent` (a name `to_regclass` resolves: `events`, `lendgate_test.events`), by name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog is read on any schema
export const partitionsOf = async (db: Kysely<any>, parent: string): Promise<string[]> =>
  (await sql<{ name: string }>`select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = to_regclass(${parent}) order by 1`.execute(db)).rows.map((r) => r.name)

/** The log's day partitions, by the start of their day, oldest first. */
const dayPartitions = async (db: Kysely<Database>, tables: EventTables): Promise<readonly number[]> =>
  (await partitionsOf(db, tables.schema === undefined ? 'events' : `${tables.schema}.events`))
    .flatMap((name) => {
      const day = DAY_PARTITION.exec(name)
      return day === null ? [] : [Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))]
    })
    .sort((a, b) => a - b)

/** Runs `ddl`, a transaction of partition DDL, with `LOCK_TIMEOUT`; 'busy' when a lock was not had in time (nothing done). */
const withLockTimeout = async <A>(db: Kysely<Database>, ddl: (trx: Kysely<Database>) => Promise<A>): Promise<A | 'busy'> => {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx)
      return ddl(trx)
    })
  } catch (error) {
    if (isLockNotAvailable(error)) return 'busy'
    throw error
  }
}

/**
 * Makes a partition for each UTC day from `from`'s to `through`'s that has none, moving into it
 * any row the default partition holds for that day (PostgreSQL refuses a partition whose rows
 * sit in the default one). Each day in its own transaction; stops at a day whose lock it could
 * not have in time. Answers how many days it made.
 */
export const makeDayPartitions = async (db: Kysely<Database>, tables: EventTables, from: Date, through: Date): Promise<number> => {
  const existing = new Set(await dayPartitions(db, tables))
  const columns = sql.join(COLUMNS.map((c) => sql.id(c)))
  let made = 0
  for (let day = dayStartOf(from); day <= dayStartOf(through); day += DAY_MS) {
    if (existing.has(day)) continue
    const outcome = await withLockTimeout(db, async (trx) => {
      await sql`
        create temporary table moving_events on commit drop as
        with moved as (delete from ${table(tables, 'events_default')} where created_at >= ${timestampOf(day)} and created_at < ${timestampOf(day + DAY_MS)} returning *)
        select * from moved`.execute(trx)
      await sql`create table ${table(tables, partitionName(day))} partition of ${table(tables, 'events')}
        for values from (${timestampOf(day)}) to (${timestampOf(day + DAY_MS)})`.execute(trx)
      await sql`insert into ${table(tables, 'events')} (${columns}) overriding system value select ${columns} from moving_events`.execute(trx)
    })
    if (outcome === 'busy') break
    made++
  }
  return made
}

/** What `dropOldestDay` did: dropped a day holding `events` events, found no day ending by the cut, or could not lock the day in time. */
export type DayDrop = { readonly dropped: number } | 'none' | 'busy'

/**
 * Drops the oldest day partition that ends by `before`. Its events' deliveries are deleted first,
 * in a transaction of their own (their attempts go with them), so a drop that cannot have its
 * lock in time costs no rewrite of them; a delivery written meanwhile for one of its events
 * (a resend) is left without its event, which the delivery queue deletes when it claims it.
 */
export const dropOldestDay = async (db: Kysely<Database>, tables: EventTables, before: Date): Promise<DayDrop> => {
  const oldest = (await dayPartitions(db, tables))[0]
  if (oldest === undefined || oldest + DAY_MS > before.getTime()) return 'none'
  const partition = table(tables, partitionName(oldest))
  await sql`delete from ${table(tables, 'event_deliveries')} where event_id in (select id from ${partition})`.execute(db)
  const outcome = await withLockTimeout(db, async (trx) => {
    await sql`lock table ${partition} in access exclusive mode`.execute(trx)
    const { rows } = await sql<{ n: string }>`select count(*)::text as n from ${partition}`.execute(trx)
    await sql`drop table ${partition}`.execute(trx)
    return Number(rows[0]?.n ?? 0)
  })
  return outcome === 'busy' ? 'busy' : { dropped: outcome }
}

/**
 * Deletes up to `limit` events of the default partition written before `before`, with their
 * deliveries, in one statement; answers how many.
 */
export const pruneDefaultPartition = async (db: Kysely<Database>, tables: EventTables, before: Date, limit: number): Promise<number> => {
  const fallback = table(tables, 'events_default')
  const result = await sql`
    with doomed as (select seq, id from ${fallback} where created_at < ${before} order by created_at limit ${limit}),
      deliveries as (delete from ${table(tables, 'event_deliveries')} where event_id in (select id from doomed))
    delete from ${fallback} where seq in (select seq from doomed)`.execute(db)
  return Number(result.numAffectedRows ?? 0n)
}
