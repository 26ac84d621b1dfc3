import { sql, type Kysely } from 'kysely'

/**
 * Loan products (with the catalogue a fresh deployment starts with), applications, and what
 * approval books: loans, their schedule, the ledger and balance snapshots. Money is `int8`
 * minor units; calendar dates are `date`. Also: one registered address per party.
 */

/** The products every fresh database starts with (docs/applications.md). Fixed ids and times. */
const SEED_PRODUCTS = [
  {
    id: '5b0c1d2e-0001-4a00-8000-000000000001',
    name: 'Working Capital Term Loan',
    description: 'Fixed-rate term loan for inventory, payroll and day-to-day operations.',
    currency: 'USD',
    min_amount: 500_000,
    max_amount: 25_000_000,
    min_term_months: 6,
    max_term_months: 36,
    interest_rate_bps: 1199,
    origination_fee_bps: 200,
  },
  {
    id: '5b0c1d2e-0002-4a00-8000-000000000002',
    name: 'Equipment Financing',
    description: 'Fixed-rate loan for machinery, vehicles and other equipment.',
    currency: 'USD',
    min_amount: 1_000_000,
    max_amount: 50_000_000,
    min_term_months: 12,
    max_term_months: 60,
    interest_rate_bps: 899,
    origination_fee_bps: 100,
  },
  {
    id: '5b0c1d2e-0003-4a00-8000-000000000003',
    name: 'Interest-Free Starter Loan',
    description: 'Small interest-free loan for new borrowers; a one-time origination fee applies.',
    currency: 'USD',
    min_amount: 100_000,
    max_amount: 1_000_000,
    min_term_months: 3,
    max_term_months: 12,
    interest_rate_bps: 0,
    origination_fee_bps: 300,
  },
]
const SEEDED_AT = new Date('2026-11-22T00:00:00.000Z')


export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createIndex('party_addresses_one_registered_idx')
    .on('party_addresses')
    .column('party_id')
    .unique()
    .where(sql.ref('type'), '=', 'registered')
    .execute()

  await db.schema
    .createTable('loan_products')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('min_amount', 'int8', (c) => c.notNull().check(sql`min_amount > 0`))
    .addColumn('max_amount', 'int8', (c) => c.notNull())
    .addColumn('min_term_months', 'integer', (c) => c.notNull().check(sql`min_term_months > 0`))
    .addColumn('max_term_months', 'integer', (c) => c.notNull())
    .addColumn('interest_rate_bps', 'integer', (c) => c.notNull().check(sql`interest_rate_bps between 0 and 10000`))
    .addColumn('origination_fee_bps', 'integer', (c) => c.notNull().check(sql`origination_fee_bps between 0 and 10000`))
    .addColumn('repayment_frequency', 'text', (c) => c.notNull().check(sql`repayment_frequency in ('MONTHLY')`))
    .addColumn('active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addCheckConstraint('loan_products_amount_range', sql`min_amount <= max_amount`)
    .addCheckConstraint('loan_products_term_range', sql`min_term_months <= max_term_months`)
    .execute()
  await db.schema.createIndex('loan_products_position_idx').on('loan_products').columns(['created_at', 'id']).execute()
  await db
    .withTables<{ loan_products: Record<string, unknown> }>()
    .insertInto('loan_products')
    .values(SEED_PRODUCTS.map((p) => ({ ...p, repayment_frequency: 'MONTHLY', active: true, created_at: SEEDED_AT, updated_at: SEEDED_AT })))
    .execute()

  await db.schema
    .createTable('loan_applications')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('party_id', 'uuid', (c) => c.notNull().references('parties.id'))
    .addColumn('client_id', 'uuid', (c) => c.notNull().references('api_clients.id'))
    .addColumn('product_id', 'uuid', (c) => c.notNull().references('loan_products.id'))
    .addColumn('amount', 'int8', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('term_months', 'integer', (c) => c.notNull().check(sql`term_months > 0`))
    .addColumn('purpose', 'text')
    .addColumn('interest_rate_bps', 'integer', (c) => c.notNull())
    .addColumn('origination_fee_bps', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('DRAFT', 'SUBMITTED', 'APPROVED', 'DECLINED', 'WITHDRAWN')`))
    .addColumn('submitted_at', 'timestamptz')
    .addColumn('decision', 'text', (c) => c.check(sql`decision in ('APPROVED', 'DECLINED')`))
    .addColumn('decision_reason', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('loan_id', 'uuid')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('loan_applications_party_position_idx').on('loan_applications').columns(['party_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('loan_applications_status_position_idx').on('loan_applications').columns(['status', 'created_at', 'id']).execute()

  await db.schema
    .createTable('loans')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('party_id', 'uuid', (c) => c.notNull().references('parties.id'))
    // One application books at most one loan.
    .addColumn('application_id', 'uuid', (c) => c.notNull().unique().references('loan_applications.id'))
    .addColumn('product_id', 'uuid', (c) => c.notNull().references('loan_products.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('ACTIVE', 'PAID_OFF', 'CHARGED_OFF')`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('principal', 'int8', (c) => c.notNull().check(sql`principal > 0`))
    .addColumn('interest_rate_bps', 'integer', (c) => c.notNull())
    .addColumn('term_months', 'integer', (c) => c.notNull())
    .addColumn('payment_amount', 'int8', (c) => c.notNull())
    .addColumn('origination_fee', 'int8', (c) => c.notNull())
    .addColumn('disbursed_amount', 'int8', (c) => c.notNull())
    .addColumn('start_date', 'date', (c) => c.notNull())
    .addColumn('first_due_date', 'date', (c) => c.notNull())
    .addColumn('maturity_date', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('loans_party_position_idx').on('loans').columns(['party_id', 'created_at', 'id']).execute()
  // Checked at commit: approval sets loan_id before it inserts the loan, in the same transaction.
  await db.schema
    .alterTable('loan_applications')
    .addForeignKeyConstraint('loan_applications_loan_fk', ['loan_id'], 'loans', ['id'], (c) => c.deferrable().initiallyDeferred())
    .execute()

  await db.schema
    .createTable('loan_installments')
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('due_date', 'date', (c) => c.notNull())
    .addColumn('principal_due', 'int8', (c) => c.notNull())
    .addColumn('interest_due', 'int8', (c) => c.notNull())
    .addColumn('fees_due', 'int8', (c) => c.notNull())
    .addColumn('principal_paid', 'int8', (c) => c.notNull())
    .addColumn('interest_paid', 'int8', (c) => c.notNull())
    .addColumn('fees_paid', 'int8', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('UPCOMING', 'DUE', 'PAID', 'PARTIALLY_PAID', 'LATE')`))
    .addPrimaryKeyConstraint('loan_installments_pk', ['loan_id', 'number'])
    .execute()

  await db.schema
    .createTable('loan_transactions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('effective_date', 'date', (c) => c.notNull())
    .addColumn('amount', 'int8', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('principal', 'int8', (c) => c.notNull())
    .addColumn('interest', 'int8', (c) => c.notNull())
    .addColumn('fees', 'int8', (c) => c.notNull())
    // The ledger's order: entries written together share created_at.
    .addColumn('seq', 'int8', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('loan_transactions_loan_position_idx').on('loan_transactions').columns(['loan_id', 'seq']).execute()

  await db.schema
    .createTable('loan_balances')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('loan_transactions.id'))
    .addColumn('as_of', 'date', (c) => c.notNull())
    .addColumn('principal_outstanding', 'int8', (c) => c.notNull())
    .addColumn('interest_outstanding', 'int8', (c) => c.notNull())
    .addColumn('fees_outstanding', 'int8', (c) => c.notNull())
    .addColumn('payoff_amount', 'int8', (c) => c.notNull())
    .addColumn('past_due_amount', 'int8', (c) => c.notNull())
    .addColumn('next_due_date', 'date')
    .addColumn('next_due_amount', 'int8')
    // The latest snapshot of a loan is the one with the highest seq.
    .addColumn('seq', 'int8', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('loan_balances_loan_position_idx').on('loan_balances').columns(['loan_id', 'seq']).execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('loan_applications').dropConstraint('loan_applications_loan_fk').execute()
  for (const table of ['loan_balances', 'loan_transactions', 'loan_installments', 'loans', 'loan_applications', 'loan_products']) {
    await db.schema.dropTable(table).execute()
  }
  await db.schema.dropIndex('party_addresses_one_registered_idx').execute()
}
