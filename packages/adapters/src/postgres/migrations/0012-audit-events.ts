import { sql, type Kysely } from 'kysely'

/**
 * The audit log (issue 9): one row per key mint, key revocation and internal decision, written
 * in the transaction of the change it records. Append-only: a trigger refuses UPDATE, DELETE
 * and TRUNCATE, so not even a bug (or a careless operator with the application's role) can
 * rewrite history. Listed newest first, whole or by action, subject, API client or party.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull().check(sql`actor_type in ('operator', 'api_key', 'system')`))
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    .addColumn('api_client_id', 'uuid')
    .addColumn('party_id', 'uuid')
    .addColumn('request_id', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull())
    // A partner key actor names its key; the operator and the system have no id.
    .addCheckConstraint('audit_events_actor_id_check', sql`(actor_type = 'api_key') = (actor_id is not null)`)
    .execute()
  // The listing reads these backwards (newest first).
  await db.schema.createIndex('audit_events_position_idx').on('audit_events').columns(['occurred_at', 'id']).execute()
  await db.schema.createIndex('audit_events_action_idx').on('audit_events').columns(['action', 'occurred_at', 'id']).execute()
  await db.schema.createIndex('audit_events_subject_idx').on('audit_events').columns(['subject_id', 'occurred_at', 'id']).execute()
  await db.schema
    .createIndex('audit_events_client_idx')
    .on('audit_events')
    .columns(['api_client_id', 'occurred_at', 'id'])
    .where(sql.ref('api_client_id'), 'is not', null)
    .execute()
  await db.schema
    .createIndex('audit_events_party_idx')
    .on('audit_events')
    .columns(['party_id', 'occurred_at', 'id'])
    .where(sql.ref('party_id'), 'is not', null)
    .execute()

  await sql`
    create function audit_events_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_events is append-only: % is not allowed', tg_op;
    end
    $$`.execute(db)
  await sql`
    create trigger audit_events_no_change before update or delete on audit_events
    for each row execute function audit_events_append_only()`.execute(db)
  await sql`
    create trigger audit_events_no_truncate before truncate on audit_events
    for each statement execute function audit_events_append_only()`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('audit_events').execute()
  await sql`drop function audit_events_append_only()`.execute(db)
}
