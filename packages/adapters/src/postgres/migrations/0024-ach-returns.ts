import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * Returns from the bank (docs/ach.md "Returns and notices of change"), in each world:
 * - `payments.return_code` and `returned_on`, set together on a `RETURNED` payment and only there;
 * - `ach_entries.status` gains `returned`;
 * - `payment_methods.status` is `active` or `blocked` (held by a check from now on);
 * - `ach_inbound_files`, one per SHA-256 of the file's text (unzipped): a file ingested again is known;
 * - `ach_returns` and `ach_notices`, one per original trace number: a return or a notice is
 *   recorded once, whatever file brings it again. A notice keeps no corrected data (an account
 *   number is a secret: the vault holds it once applied);
 * - what the return-rate counters count, a range of each: `ach_returns_received_idx` and
 *   `ach_entries_submitted_idx`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .alterTable('payments')
      .addColumn('return_code', 'text', (c) => c.check(sql`return_code ~ '^R[0-9A-Z]{2}$'`))
      .addColumn('returned_on', 'date')
      .execute()
    await world.schema
      .alterTable('payments')
      .addCheckConstraint('payments_returned_fields', sql`(status = 'RETURNED') = (return_code is not null) and (return_code is null) = (returned_on is null)`)
      .execute()
    await world.schema.alterTable('ach_entries').dropConstraint('ach_entries_status_check').execute()
    await world.schema.alterTable('ach_entries').addCheckConstraint('ach_entries_status_check', sql`status in ('claimed', 'sent', 'settled', 'returned', 'dropped')`).execute()
    await world.schema.alterTable('payment_methods').addCheckConstraint('payment_methods_status_check', sql`status in ('active', 'blocked')`).execute()
    await world.schema
      .createTable('ach_inbound_files')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('sha256', 'text', (c) => c.notNull().unique().check(sql`sha256 ~ '^[0-9a-f]{64}$'`))
      .addColumn('received_at', 'timestamptz', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('ingesting', 'ingested')`))
      .addColumn('report', 'jsonb')
      .addCheckConstraint('ach_inbound_files_report', sql`(status = 'ingested') = (report is not null)`)
      .execute()
    await world.schema
      .createTable('ach_returns')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('inbound_file_id', 'uuid', (c) => c.notNull().references('ach_inbound_files.id'))
      .addColumn('record', 'integer', (c) => c.notNull())
      .addColumn('original_trace', 'text', (c) => c.notNull().unique())
      .addColumn('return_code', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull().check(sql`category in ('unauthorized', 'administrative', 'other')`))
      .addColumn('amount', 'int8', (c) => c.notNull())
      .addColumn('payment_id', 'uuid', (c) => c.references('payments.id'))
      .addColumn('client_id', 'uuid')
      .addColumn('received_on', 'date', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('applied', 'loan_charged_off', 'already_reversed', 'not_sent', 'unmatched')`))
      .addColumn('late', 'boolean', (c) => c.notNull())
      .execute()
    await world.schema.createIndex('ach_returns_received_idx').on('ach_returns').columns(['received_on', 'client_id', 'category']).where(sql.ref('payment_id'), 'is not', null).execute()
    await world.schema
      .createIndex('ach_entries_submitted_idx')
      .on('ach_entries')
      .columns(['submitted_on', 'client_id', 'file_id'])
      .where(sql.ref('status'), 'in', sql`('sent', 'settled', 'returned')`)
      .execute()
    await world.schema.createIndex('ach_returns_inbound_file_idx').on('ach_returns').column('inbound_file_id').execute()
    await world.schema
      .createTable('ach_notices')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('inbound_file_id', 'uuid', (c) => c.notNull().references('ach_inbound_files.id'))
      .addColumn('record', 'integer', (c) => c.notNull())
      .addColumn('original_trace', 'text', (c) => c.notNull().unique())
      .addColumn('change_code', 'text', (c) => c.notNull())
      .addColumn('payment_method_id', 'uuid', (c) => c.references('payment_methods.id'))
      .addColumn('received_on', 'date', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('applied', 'unsupported', 'method_blocked', 'unmatched')`))
      .addColumn('detail', 'text')
      .execute()
    await world.schema.createIndex('ach_notices_inbound_file_idx').on('ach_notices').column('inbound_file_id').execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropIndex('ach_entries_submitted_idx').execute()
    await world.schema.dropTable('ach_notices').execute()
    await world.schema.dropTable('ach_returns').execute()
    await world.schema.dropTable('ach_inbound_files').execute()
    await world.schema.alterTable('payment_methods').dropConstraint('payment_methods_status_check').execute()
    await world.schema.alterTable('ach_entries').dropConstraint('ach_entries_status_check').execute()
    await world.schema.alterTable('ach_entries').addCheckConstraint('ach_entries_status_check', sql`status in ('claimed', 'sent', 'settled', 'dropped')`).execute()
    await world.schema.alterTable('payments').dropConstraint('payments_returned_fields').execute()
    await world.schema.alterTable('payments').dropColumn('returned_on').dropColumn('return_code').execute()
  }
}
