import type { Kysely } from 'kysely'

/** Worker leases on events, and the record of every delivery attempt. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('webhook_events').addColumn('locked_until', 'timestamptz').addColumn('last_error', 'text').execute()
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute()
  await db.schema.createIndex('webhook_attempts_event_idx').on('webhook_attempts').columns(['event_id', 'attempt_number']).execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('webhook_attempts').execute()
  await db.schema.alterTable('webhook_events').dropColumn('locked_until').dropColumn('last_error').execute()
}
