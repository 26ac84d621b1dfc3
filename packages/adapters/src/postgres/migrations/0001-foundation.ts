import { sql, type Kysely } from 'kysely'

/** API clients and keys, onboarding sessions, idempotency keys. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('api_clients')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('party_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('api_clients_party_name_key', ['party_id', 'name'])
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('client_id', 'uuid', (c) => c.notNull().references('api_clients.id'))
    .addColumn('party_id', 'uuid', (c) => c.notNull())
    .addColumn('id_segment', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('live', 'test')`))
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'revoked')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('api_keys_client_position_idx').on('api_keys').columns(['client_id', 'created_at', 'id']).execute()

  await db.schema
    .createTable('onboarding_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('client_id', 'uuid', (c) => c.notNull().references('api_clients.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('country_of_incorporation', 'text', (c) => c.notNull())
    .addColumn('entry_channel', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_step', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('onboarding_sessions_client_position_idx')
    .on('onboarding_sessions')
    .columns(['client_id', 'created_at', 'id'])
    .execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['scope', 'key'])
    .execute()
  await db.schema.createIndex('idempotency_keys_claimed_at_idx').on('idempotency_keys').column('claimed_at').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('idempotency_keys').execute()
  await db.schema.dropTable('onboarding_sessions').execute()
  await db.schema.dropTable('api_keys').execute()
  await db.schema.dropTable('api_clients').execute()
}
