import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './schema.js'

/**
 * The day partitions of a world's event log (migration 0034, decision 158): `events_pYYYYMMDD`
 * holds the events whose `created_at` falls in that UTC day; `events_default` holds any other
 * (a day no partition was made for yet, a test clock's far future). The retention job makes the
 * coming days' partitions and drops the days past retention whole, with their deliveries.
 *
 * Partition DDL takes a lock on the whole log, which every write of an event waits for: each
 * statement here gives up after `LOCK_TIMEOUT` rather than stall the API behind a long reader
 * (a backup), and the job tries again on its next run.
 */

const DAY_MS = 86_400_000
const LOCK_TIMEOUT = '2s'
const COLUMNS = ['seq', 'id', 'type', 'party_id', 'client_id', 'loan_id', 'loan_sequence', 'resource_id', 'data', 'previous', 'created_at'] as const
const DAY_PARTITION = /^events_p(\d{4})(\d{2})(\d{2})$/

/** A world's log: the schema of its tables (none for the live world's, the migrations' own). */
export type EventTables = { readonly schema: string | undefined }

const table = (tables: EventTables, name: string) => sql.table(tables.schema === undefined ? name : `${tables.schema}.${name}`)

/** The default partition's name as `to_regclass` takes it. */
export const defaultPartitionOf = (tables: EventTables): string => (tables.schema === undefined ? 'events_default' : `${tables.schema}.events_default`)

/** The partition of the UTC day that starts at `dayStart`. */
const partitionName = (dayStart: number): string => `events_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`

const timestampOf = (ms: number): RawBuilder<unknown> => sql.lit(new Date(ms).toISOString())

/** The start of the UTC day of `at`. */
const dayStartOf = (at: Date): number => Math.floor(at.getTime() / DAY_MS) * DAY_MS

/** The log's day partitions, by the start of their day, oldest first. */
const dayPartitions = async (db: Kysely<Database>, tables: EventTables): Promise<readonly number[]> => {
  const parent = tables.schema === undefined ? 'events' : `${tables.schema}.events`
  const { rows } = await sql<{ name: string }>`
    select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = to_regclass(${parent})`.execute(db)
  return rows
    .flatMap((r) => {
      const day = DAY_PARTITION.exec(r.name)
      return day === null ? [] : [Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))]
    })
    .sort((a, b) => a - b)
}

/**
 * Makes a partition for each UTC day from `from`'s to `through`'s that has none, moving into it
 * any row the default partition holds for that day (PostgreSQL refuses a partition whose rows
 * sit in the default one). Each day in its own transaction. Answers how many were made.
 */
export const makeDayPartitions = async (db: Kysely<Database>, tables: EventTables, from: Date, through: Date): Promise<number> => {
  const existing = new Set(await dayPartitions(db, tables))
  const columns = sql.join(COLUMNS.map((c) => sql.id(c)))
  let made = 0
  for (let day = dayStartOf(from); day <= dayStartOf(through); day += DAY_MS) {
    if (existing.has(day)) continue
    await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx)
      await sql`
        create temporary table moving_events on commit drop as
        with moved as (delete from ${table(tables, 'events_default')} where created_at >= ${timestampOf(day)} and created_at < ${timestampOf(day + DAY_MS)} returning *)
        select * from moved`.execute(trx)
      await sql`create table ${table(tables, partitionName(day))} partition of ${table(tables, 'events')}
        for values from (${timestampOf(day)}) to (${timestampOf(day + DAY_MS)})`.execute(trx)
      await sql`insert into ${table(tables, 'events')} (${columns}) overriding system value select ${columns} from moving_events`.execute(trx)
    })
    made++
  }
  return made
}

/**
 * Drops the oldest day partition that ends by `before`, with the deliveries of its events (their
 * attempts go with them), in one transaction; answers how many events it held, or undefined when
 * no day ends by `before`.
 */
export const dropOldestDay = async (db: Kysely<Database>, tables: EventTables, before: Date): Promise<number | undefined> => {
  const oldest = (await dayPartitions(db, tables))[0]
  if (oldest === undefined || oldest + DAY_MS > before.getTime()) return undefined
  const partition = table(tables, partitionName(oldest))
  return db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx)
    const { rows } = await sql<{ n: string }>`select count(*)::text as n from ${partition}`.execute(trx)
    await sql`delete from ${table(tables, 'event_deliveries')} where event_id in (select id from ${partition})`.execute(trx)
    await sql`drop table ${partition}`.execute(trx)
    return Number(rows[0]?.n ?? 0)
  })
}
