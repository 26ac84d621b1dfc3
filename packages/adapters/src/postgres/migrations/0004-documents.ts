import { sql, type Kysely } from 'kysely'

/** Document metadata, linked to an onboarding session (later also to parties and loans). */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.references('onboarding_sessions.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('storage_ref', 'text', (c) => c.notNull().check(sql`length(storage_ref) between 1 and 1024`))
    .addColumn('file_name', 'text')
    .addColumn('content_type', 'text')
    .addColumn('description', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('documents_session_position_idx').on('documents').columns(['session_id', 'created_at', 'id']).execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('documents').execute()
}
