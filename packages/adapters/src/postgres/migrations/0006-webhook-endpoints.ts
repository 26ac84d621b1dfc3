import type { Kysely } from 'kysely'

/** One webhook endpoint per onboarding session; the signing secret only sealed. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('session_id', 'uuid', (c) => c.primaryKey().references('onboarding_sessions.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('webhook_endpoints').execute()
}
