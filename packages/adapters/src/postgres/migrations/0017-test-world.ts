import { sql, type Kysely } from 'kysely'

/** The test world's schema (`TEST_WORLD_SCHEMA`), written out: a migration keeps meaning what it meant. */
const SCHEMA = 'lendgate_test'

/** The tables each world has its own copy of, as of this migration (`WORLD_TABLES` adds later ones). */
export const WORLD_TABLES_0017 = [
  'onboarding_sessions',
  'onboarding_addresses',
  'verification_challenges',
  'documents',
  'parties',
  'party_addresses',
  'webhook_endpoints',
  'webhook_events',
  'webhook_attempts',
  'idempotency_keys',
  'loan_applications',
  'loans',
  'loan_installments',
  'loan_transactions',
  'loan_balances',
  'payment_methods',
  'payments',
  'collateral_items',
  'loan_documents',
  'audit_events',
] as const

/**
 * The test world (decision 128): a schema holding a copy of each world table, with its columns,
 * defaults, checks, indexes and identity columns (`LIKE … INCLUDING ALL`), a sequence of its own
 * for `webhook_attempts.id`, and each foreign key of the live table, pointing at the test world's
 * tables, or at the shared ones (API clients, loan products) where the live key points at those.
 * Its audit trail has no append-only trigger: test data can be wiped.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`create schema ${sql.id(SCHEMA)}`.execute(db)
  for (const table of WORLD_TABLES_0017) await sql`create table ${sql.id(SCHEMA, table)} (like ${sql.id(table)} including all)`.execute(db)
  await sql`create sequence ${sql.id(SCHEMA, 'webhook_attempts_id_seq')} owned by ${sql.id(SCHEMA, 'webhook_attempts', 'id')}`.execute(db)
  await sql`alter table ${sql.id(SCHEMA, 'webhook_attempts')} alter column id set default nextval(${sql.lit(`${SCHEMA}.webhook_attempts_id_seq`)}::regclass)`.execute(db)
  const { rows } = await sql<{ table: string; name: string; definition: string }>`
    select t.relname::text as table, c.conname::text as name, pg_get_constraintdef(c.oid) as definition
    from pg_constraint c join pg_class t on t.oid = c.conrelid
    where c.contype = 'f' and t.relnamespace = current_schema()::regnamespace and t.relname::text = any(${[...WORLD_TABLES_0017]}::text[])
    order by t.relname, c.conname`.execute(db)
  for (const fk of rows) {
    // `FOREIGN KEY (a) REFERENCES t(b)`: t is unqualified, being in the current schema.
    const definition = fk.definition.replace(/REFERENCES (\w+)\(/, (whole, target: string) => ((WORLD_TABLES_0017 as readonly string[]).includes(target) ? `REFERENCES ${SCHEMA}.${target}(` : whole))
    await sql`alter table ${sql.id(SCHEMA, fk.table)} add constraint ${sql.id(fk.name)} ${sql.raw(definition)}`.execute(db)
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop schema ${sql.id(SCHEMA)} cascade`.execute(db)
}
