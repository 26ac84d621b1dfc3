import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * Partners' webhook endpoints and the delivery of events to them (docs/events.md), world tables.
 * An endpoint belongs to an API client (`client_id`, with its key's `party_id`: what it may
 * receive); `enabled_events` holds types or `*`. A delivery is one event for one endpoint,
 * written with the event (or by a resend or recovery), leased by workers as the session outbox
 * is (0007, 0008); its attempts are kept. Deleting an endpoint or an event deletes its deliveries.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('event_endpoints')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('client_id', 'uuid', (c) => c.notNull())
      .addColumn('party_id', 'uuid', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('enabled_events', sql`text[]`, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('enabled', 'disabled')`))
      .addColumn('sealed_secret', 'text', (c) => c.notNull())
      .addColumn('previous_sealed_secret', 'text')
      .addColumn('previous_secret_expires_at', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute()
    await world.schema.createIndex('event_endpoints_client_position_idx').on('event_endpoints').columns(['client_id', 'created_at', 'id']).execute()
    await world.schema.createIndex('event_endpoints_party_idx').on('event_endpoints').column('party_id').execute()
    await world.schema
      .createTable('event_deliveries')
      .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
      .addColumn('endpoint_id', 'uuid', (c) => c.notNull().references('event_endpoints.id').onDelete('cascade'))
      .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
      .addColumn('locked_until', 'timestamptz')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addUniqueConstraint('event_deliveries_endpoint_event_key', ['endpoint_id', 'event_id'])
      .execute()
    await world.schema.createIndex('event_deliveries_due_idx').on('event_deliveries').column('next_attempt_at').where(sql.ref('status'), '=', 'pending').execute()
    await world.schema.createIndex('event_deliveries_event_idx').on('event_deliveries').column('event_id').execute()
    await world.schema
      .createTable('event_delivery_attempts')
      .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
      .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('event_deliveries.id').onDelete('cascade'))
      .addColumn('attempt_number', 'integer', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('started_at', 'timestamptz', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .execute()
    await world.schema.createIndex('event_delivery_attempts_delivery_idx').on('event_delivery_attempts').columns(['delivery_id', 'attempt_number']).execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    for (const table of ['event_delivery_attempts', 'event_deliveries', 'event_endpoints']) await world.schema.dropTable(table).execute()
  }
}
