import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/** The days before today and after it that get a partition of their own here; the retention job makes later ones (`event-partitions.ts`). */
const DAYS_BACK = 31
const DAYS_AHEAD = 7

const DAY_MS = 86_400_000
const COLUMNS = ['seq', 'id', 'type', 'party_id', 'client_id', 'loan_id', 'loan_sequence', 'resource_id', 'data', 'previous', 'created_at'] as const

type TableOf = (name: string) => ReturnType<typeof sql.table>

/** The log's columns after `seq`, as 0019 made them. */
const columnsAfterSeq = (table: TableOf) => sql`
        id text not null,
        type text not null,
        party_id uuid not null references ${table('parties')} (id),
        client_id uuid,
        loan_id uuid references ${table('loans')} (id),
        loan_sequence integer,
        resource_id text not null,
        data text not null,
        previous text,
        created_at timestamptz not null`

/** `YYYY-MM-DD` of the UTC day that starts at `ms`. */
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/**
 * The event log partitioned by day (decision 158, issue 61 item 4): `events` becomes a table
 * partitioned by range of `created_at`, one partition per UTC day (`events_pYYYYMMDD`, the
 * 31 days before today to 7 after) and a default partition for any row outside them, so the
 * retention job drops a day of events at once instead of deleting it row by row, and a read
 * bounded in time (a page after a cursor, `created[gte]`) reads only the days it covers.
 *
 * A partitioned table's unique keys must hold the partition key, so the primary key becomes
 * `(seq, created_at)`, the id's key `(id, created_at)`, and a loan's event numbers
 * `(loan_id, loan_sequence)` an index, no longer unique: they are numbered from the loan's count
 * under its lock. `event_deliveries.event_id` no longer references `events.id` (a key that is no
 * longer unique alone): the retention job deletes a day's deliveries before dropping the day.
 * The rows are copied in this migration's transaction; the identity's sequence goes on from where
 * it was.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  for (const schema of WORLDS) {
    const table: TableOf = (name) => sql.table(schema === undefined ? name : `${schema}.${name}`)
    const events = table('events')
    const columns = sql.join(COLUMNS.map((c) => sql.id(c)))
    await sql`alter table ${table('event_deliveries')} drop constraint event_deliveries_event_id_fkey`.execute(db)
    await sql`alter table ${events} rename to events_unpartitioned`.execute(db)
    await sql`
      create table ${events} (
        seq bigint generated always as identity,
        ${columnsAfterSeq(table)},
        constraint events_sequenced_by_loan check ((loan_id is null) = (loan_sequence is null))
      ) partition by range (created_at)`.execute(db)
    await sql`create table ${table('events_default')} partition of ${events} default`.execute(db)
    for (let day = -DAYS_BACK; day <= DAYS_AHEAD; day++) {
      const from = today + day * DAY_MS
      await sql`create table ${table(`events_p${dayOf(from).replaceAll('-', '')}`)} partition of ${events}
        for values from (${sql.lit(`${dayOf(from)} 00:00:00+00`)}) to (${sql.lit(`${dayOf(from + DAY_MS)} 00:00:00+00`)})`.execute(db)
    }
    await sql`insert into ${events} (${columns}) overriding system value select ${columns} from ${table('events_unpartitioned')}`.execute(db)
    // The new identity's sequence goes on from the old one's, whatever was pruned.
    await sql`
      select setval(pg_get_serial_sequence(${schema === undefined ? 'events' : `${schema}.events`}, 'seq'), s.last_value, s.is_called)
      from ${sql.table(schema === undefined ? 'events_seq_seq' : `${schema}.events_seq_seq`)} s`.execute(db)
    await sql`drop table ${table('events_unpartitioned')}`.execute(db)
    await sql`alter sequence ${sql.table(schema === undefined ? 'events_seq_seq1' : `${schema}.events_seq_seq1`)} rename to events_seq_seq`.execute(db)
    await sql`alter table ${events} add constraint events_pkey primary key (seq, created_at)`.execute(db)
    await sql`alter table ${events} add constraint events_id_key unique (id, created_at)`.execute(db)
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.createIndex('events_loan_sequence_idx').on('events').columns(['loan_id', 'loan_sequence']).execute()
    await world.schema.createIndex('events_client_position_idx').on('events').columns(['client_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_party_position_idx').on('events').columns(['party_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_resource_idx').on('events').columns(['resource_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_created_idx').on('events').column('created_at').execute()
  }
}

/** Back to one table (0019's), its rows copied, and the deliveries' reference to it. */
export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const table: TableOf = (name) => sql.table(schema === undefined ? name : `${schema}.${name}`)
    const events = table('events')
    const columns = sql.join(COLUMNS.map((c) => sql.id(c)))
    await sql`alter table ${events} rename to events_partitioned`.execute(db)
    for (const name of ['events_pkey', 'events_id_key']) await sql`alter table ${table('events_partitioned')} drop constraint ${sql.id(name)}`.execute(db)
    for (const name of ['events_loan_sequence_idx', 'events_client_position_idx', 'events_party_position_idx', 'events_resource_idx', 'events_created_idx']) {
      await sql`drop index ${table(name)}`.execute(db)
    }
    await sql`alter sequence ${table('events_seq_seq')} rename to events_seq_seq_partitioned`.execute(db)
    await sql`
      create table ${events} (
        seq bigint generated always as identity primary key,
        ${columnsAfterSeq(table)},
        constraint events_id_key unique (id),
        constraint events_loan_sequence_key unique (loan_id, loan_sequence),
        constraint events_sequenced_by_loan check ((loan_id is null) = (loan_sequence is null))
      )`.execute(db)
    await sql`insert into ${events} (${columns}) overriding system value select ${columns} from ${table('events_partitioned')}`.execute(db)
    await sql`
      select setval(pg_get_serial_sequence(${schema === undefined ? 'events' : `${schema}.events`}, 'seq'), s.last_value, s.is_called)
      from ${table('events_seq_seq_partitioned')} s`.execute(db)
    await sql`drop table ${table('events_partitioned')}`.execute(db)
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.createIndex('events_client_position_idx').on('events').columns(['client_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_party_position_idx').on('events').columns(['party_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_resource_idx').on('events').columns(['resource_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_created_idx').on('events').column('created_at').execute()
    await sql`delete from ${table('event_deliveries')} d where not exists (select from ${events} e where e.id = d.event_id)`.execute(db)
    await sql`alter table ${table('event_deliveries')} add constraint event_deliveries_event_id_fkey foreign key (event_id) references ${events} (id) on delete cascade`.execute(db)
  }
}
