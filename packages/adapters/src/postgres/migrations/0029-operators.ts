import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * Named operators and their console sessions (decision 149), in the live schema only: both worlds
 * share them, as they share keys. An e-mail is unique in any case (`lower(email)`); a session is
 * found by its token's hash. In every world's audit log an operator actor may now name its
 * operator (`actor_id`), as a partner key actor names its key; the system never has an id.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('reviewer', 'credit', 'servicing', 'admin')`))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('disabled_at', 'timestamptz')
    .addCheckConstraint('operators_email_lower', sql`email = lower(email)`)
    .execute()
  await db.schema.createIndex('operators_email_key').on('operators').column('email').unique().execute()
  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('operator_id', 'uuid', (c) => c.notNull().references('operators.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  // Revoking an operator's sessions reads them by operator.
  await db.schema.createIndex('operator_sessions_operator_idx').on('operator_sessions').column('operator_id').execute()
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('audit_events').dropConstraint('audit_events_actor_id_check').execute()
    await world.schema
      .alterTable('audit_events')
      .addCheckConstraint('audit_events_actor_id_check', sql`(actor_type = 'api_key' and actor_id is not null) or actor_type = 'operator' or (actor_type = 'system' and actor_id is null)`)
      .execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('audit_events').dropConstraint('audit_events_actor_id_check').execute()
    await world.schema.alterTable('audit_events').addCheckConstraint('audit_events_actor_id_check', sql`(actor_type = 'api_key') = (actor_id is not null)`).execute()
  }
  await db.schema.dropTable('operator_sessions').execute()
  await db.schema.dropTable('operators').execute()
}
