import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The origination records of each world (`AchOriginations`, docs/ach.md "Origination job"):
 * - `ach_files`, one per cut-off (`run_key`), with the figures of what was built; `A`–`Z`, `0`–`9`
 *   name the files of one creation date, so a day has 36 at most;
 * - `ach_entries`, a payment's place in a file: its primary key is the payment's id, so no payment
 *   is ever in two files, whatever claims run at once; an entry `sent` (or `settled`) has the
 *   amount it debits and its effective entry date;
 * - `ach_trace_counter`, the world's one row holding the next 7-digit trace number: a table, not a
 *   sequence, so that a claim takes it through the world's own tables, and its check makes a
 *   counter past 9999999 fail instead of wrapping;
 * - `payments_pending_created_idx`, the `PENDING` payments by (created_at, id): what a claim reads.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('ach_files')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('run_key', 'text', (c) => c.notNull().unique())
      .addColumn('cutoff_at', 'timestamptz', (c) => c.notNull())
      .addColumn('effective_entry_date', 'date', (c) => c.notNull())
      .addColumn('creation_date', 'date', (c) => c.notNull())
      .addColumn('creation_time', 'text', (c) => c.notNull().check(sql`creation_time ~ '^[0-9]{4}$'`))
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('claiming', 'posting', 'built', 'written', 'empty')`))
      .addColumn('file_id_modifier', 'text', (c) => c.check(sql`file_id_modifier ~ '^[A-Z0-9]$'`))
      .addColumn('name', 'text')
      .addColumn('sha256', 'text')
      .addColumn('entry_count', 'integer')
      .addColumn('debit_total', 'int8')
      .addColumn('entry_hash', 'int8')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('written_at', 'timestamptz')
      .addUniqueConstraint('ach_files_creation_date_modifier', ['creation_date', 'file_id_modifier'])
      .execute()
    await world.schema
      .createTable('ach_entries')
      .addColumn('payment_id', 'uuid', (c) => c.primaryKey().references('payments.id'))
      .addColumn('file_id', 'uuid', (c) => c.notNull().references('ach_files.id'))
      .addColumn('payment_method_id', 'uuid', (c) => c.notNull())
      .addColumn('client_id', 'uuid', (c) => c.notNull())
      .addColumn('trace_number', 'text', (c) => c.notNull().unique().check(sql`trace_number ~ '^[0-9]{15}$'`))
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('claimed', 'sent', 'settled', 'dropped')`))
      .addColumn('amount', 'int8', (c) => c.check(sql`amount > 0`))
      .addColumn('submitted_on', 'date')
      .addCheckConstraint('ach_entries_sent_figures', sql`status in ('claimed', 'dropped') or (amount is not null and submitted_on is not null)`)
      .execute()
    await world.schema.createIndex('ach_entries_file_status_trace_idx').on('ach_entries').columns(['file_id', 'status', 'trace_number']).execute()
    await world.schema.createIndex('ach_entries_sent_idx').on('ach_entries').columns(['submitted_on', 'payment_id']).where(sql.ref('status'), '=', 'sent').execute()
    await world.schema
      .createTable('ach_trace_counter')
      .addColumn('id', 'boolean', (c) => c.primaryKey().defaultTo(true).check(sql`id`))
      .addColumn('next_trace', 'integer', (c) => c.notNull().check(sql`next_trace between 1 and 10000000`))
      .execute()
    await world.withTables<{ ach_trace_counter: { id: boolean; next_trace: number } }>().insertInto('ach_trace_counter').values({ id: true, next_trace: 1 }).execute()
    await world.schema.createIndex('payments_pending_created_idx').on('payments').columns(['created_at', 'id']).where(sql.ref('status'), '=', 'PENDING').execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropIndex('payments_pending_created_idx').execute()
    await world.schema.dropTable('ach_trace_counter').execute()
    await world.schema.dropTable('ach_entries').execute()
    await world.schema.dropTable('ach_files').execute()
  }
}
