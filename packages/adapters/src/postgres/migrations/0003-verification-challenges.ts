import { sql, type Kysely } from 'kysely'

/** One-time code challenges for contact verification (the code itself is never stored). */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('verification_challenges')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('onboarding_sessions.id'))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('phone', 'email')`))
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('closed_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('verification_challenges_session_channel_idx')
    .on('verification_challenges')
    .columns(['session_id', 'channel', 'created_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('verification_challenges').execute()
}
