import { sql, type Kysely } from 'kysely'

/** The webhook outbox: one row per event, written in the transaction of the change it reports. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('onboarding_sessions.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_events_session_position_idx').on('webhook_events').columns(['session_id', 'created_at', 'id']).execute()
  await db.schema
    .createIndex('webhook_events_due_idx')
    .on('webhook_events')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('webhook_events').execute()
}
