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
    // Null: an operator that signs in some other way (single sign-on, later), which no password matches.
    .addColumn('password_hash', 'text')
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
    // Added unchecked, then checked without blocking writes: the log can be long, and every row
    // the old rule allowed the new one allows.
    await sql`alter table ${sql.table(auditEvents(schema))} add constraint audit_events_actor_id_check check (${ACTOR_RULE}) not valid`.execute(db)
    await sql`alter table ${sql.table(auditEvents(schema))} validate constraint audit_events_actor_id_check`.execute(db)
  }
}

/** An operator may name itself; a partner key always does; the system never. */
const ACTOR_RULE = sql`(actor_type = 'api_key' and actor_id is not null) or actor_type = 'operator' or (actor_type = 'system' and actor_id is null)`

/** `audit_events` of a world's schema. */
const auditEvents = (schema: string | undefined): string => (schema === undefined ? 'audit_events' : `${schema}.audit_events`)

/**
 * Back to 0028's rule for rows to come: the append-only log keeps the named operators' rows it
 * holds, which the old rule would refuse, so it is not checked against them (`not valid`).
 */
export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('audit_events').dropConstraint('audit_events_actor_id_check').execute()
    await sql`alter table ${sql.table(auditEvents(schema))} add constraint audit_events_actor_id_check check ((actor_type = 'api_key') = (actor_id is not null)) not valid`.execute(db)
  }
  await db.schema.dropTable('operator_sessions').execute()
  await db.schema.dropTable('operators').execute()
}
