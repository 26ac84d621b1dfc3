import { sql, type Kysely } from 'kysely'

/** Session contents (contacts, applicant profile, version for optimistic locking) and onboarding addresses. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('onboarding_sessions')
    .addColumn('phone', 'text')
    .addColumn('phone_verified_at', 'timestamptz')
    .addColumn('email', 'text')
    .addColumn('email_verified_at', 'timestamptz')
    .addColumn('profile', 'jsonb')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()

  await db.schema
    .createTable('onboarding_addresses')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('onboarding_sessions.id'))
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
  await db.schema
    .createIndex('onboarding_addresses_session_position_idx')
    .on('onboarding_addresses')
    .columns(['session_id', 'created_at', 'id'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('onboarding_addresses').execute()
  await db.schema
    .alterTable('onboarding_sessions')
    .dropColumn('phone')
    .dropColumn('phone_verified_at')
    .dropColumn('email')
    .dropColumn('email_verified_at')
    .dropColumn('profile')
    .dropColumn('version')
    .execute()
}
