import { sql, type Kysely } from 'kysely'

/** Submission and review on the session; parties and their addresses. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('parties')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().unique().references('onboarding_sessions.id'))
    .addColumn('client_id', 'uuid', (c) => c.notNull().references('api_clients.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('trading_name', 'text')
    .addColumn('legal_form', 'text')
    .addColumn('registration_number', 'text')
    .addColumn('incorporation_date', 'text')
    .addColumn('industry_code', 'text')
    .addColumn('website', 'text')
    .addColumn('tax_id', 'text')
    .addColumn('country_of_incorporation', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('party_addresses')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('party_id', 'uuid', (c) => c.notNull().references('parties.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('registered', 'operating', 'mailing')`))
    .addColumn('line1', 'text', (c) => c.notNull())
    .addColumn('line2', 'text')
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('region', 'text')
    .addColumn('postal_code', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('party_addresses_party_position_idx').on('party_addresses').columns(['party_id', 'created_at', 'id']).execute()

  await db.schema
    .alterTable('onboarding_sessions')
    .addColumn('submitted_at', 'timestamptz')
    .addColumn('party_id', 'uuid', (c) => c.references('parties.id'))
    .addColumn('review_decision', 'text', (c) => c.check(sql`review_decision in ('APPROVED', 'REJECTED')`))
    .addColumn('reviewed_by', 'text')
    .addColumn('review_reason', 'text')
    .addColumn('decided_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('onboarding_sessions_status_position_idx').on('onboarding_sessions').columns(['status', 'created_at', 'id']).execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('onboarding_sessions')
    .dropColumn('submitted_at')
    .dropColumn('party_id')
    .dropColumn('review_decision')
    .dropColumn('reviewed_by')
    .dropColumn('review_reason')
    .dropColumn('decided_at')
    .execute()
  await db.schema.dropTable('party_addresses').execute()
  await db.schema.dropTable('parties').execute()
}
