import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The event log (docs/events.md), a world table, so in both worlds. `seq` orders the log; a loan's
 * events are numbered per loan (`loan_sequence`, unique), from the loan's own count of them
 * (`loans.event_sequence`), which pruning the log does not lower. `client_id` is the API client that
 * onboarded the event's party, copied when the event is written: with `party_id` it says who
 * sees the event. `data` and `previous` are JSON text, kept as written so a redelivery signs the
 * same bytes. Listing reads by audience in `(created_at, seq)` order; pruning by `created_at`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('events')
      .addColumn('seq', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('party_id', 'uuid', (c) => c.notNull().references('parties.id'))
      .addColumn('client_id', 'uuid')
      .addColumn('loan_id', 'uuid', (c) => c.references('loans.id'))
      .addColumn('loan_sequence', 'integer')
      .addColumn('resource_id', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('previous', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addUniqueConstraint('events_loan_sequence_key', ['loan_id', 'loan_sequence'])
      .addCheckConstraint('events_sequenced_by_loan', sql`(loan_id is null) = (loan_sequence is null)`)
      .execute()
    await world.schema.createIndex('events_client_position_idx').on('events').columns(['client_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_party_position_idx').on('events').columns(['party_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_resource_idx').on('events').columns(['resource_id', 'created_at', 'seq']).execute()
    await world.schema.createIndex('events_created_idx').on('events').column('created_at').execute()
    await world.schema.alterTable('loans').addColumn('event_sequence', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropTable('events').execute()
    await world.schema.alterTable('loans').dropColumn('event_sequence').execute()
  }
}
