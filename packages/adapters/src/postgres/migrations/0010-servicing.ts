import { sql, type Kysely } from 'kysely'

/**
 * Servicing: installment status becomes computed (only whether interest is accrued is
 * stored), the ledger links payments and reversals, and payments, payment methods,
 * collateral and loan documents get their tables.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('loan_installments').dropColumn('status').execute()
  await db.schema.alterTable('loan_installments').addColumn('interest_accrued', 'boolean', (c) => c.notNull().defaultTo(false)).execute()

  await db.schema
    .createTable('payment_methods')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('bank_account', 'card')`))
    .addColumn('nickname', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('account_holder_name', 'text')
    .addColumn('account_type', 'text')
    .addColumn('brand', 'text')
    .addColumn('exp_month', 'integer')
    .addColumn('exp_year', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('payment_methods_loan_position_idx').on('payment_methods').columns(['loan_id', 'created_at', 'id']).execute()
  // Exactly one default per loan: at most one here, at least one by the use cases.
  await db.schema.createIndex('payment_methods_one_default_idx').on('payment_methods').column('loan_id').unique().where(sql.ref('is_default'), '=', true).execute()

  await db.schema
    .createTable('payments')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('client_id', 'uuid', (c) => c.notNull().references('api_clients.id'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('payment_method_id', 'uuid', (c) => c.notNull().references('payment_methods.id'))
    .addColumn('amount', 'int8', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('SUCCEEDED', 'FAILED', 'REVERSED')`))
    .addColumn('failure_code', 'text')
    .addColumn('allocation', 'jsonb')
    .addColumn('per_installment', 'jsonb', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid')
    .addColumn('effective_date', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('payments_client_idempotency_key', ['client_id', 'idempotency_key'])
    .execute()
  await db.schema.createIndex('payments_loan_position_idx').on('payments').columns(['loan_id', 'created_at', 'id']).execute()

  await db.schema
    .alterTable('loan_transactions')
    .addColumn('payment_id', 'uuid', (c) => c.references('payments.id'))
    .addColumn('reverses_id', 'uuid', (c) => c.references('loan_transactions.id'))
    .execute()
  await db.schema.createIndex('loan_transactions_loan_time_idx').on('loan_transactions').columns(['loan_id', 'created_at', 'seq']).execute()
  await db.schema.createIndex('loan_balances_loan_time_idx').on('loan_balances').columns(['loan_id', 'created_at', 'seq']).execute()

  await db.schema
    .createTable('collateral_items')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('valuation', 'int8', (c) => c.notNull().check(sql`valuation > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('lien_position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('collateral_items_loan_position_idx').on('collateral_items').columns(['loan_id', 'created_at', 'id']).execute()

  await db.schema
    .createTable('loan_documents')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('period_start', 'date')
    .addColumn('period_end', 'date')
    .addColumn('storage_ref', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text')
    .addColumn('content_type', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('loan_documents_loan_position_idx').on('loan_documents').columns(['loan_id', 'created_at', 'id']).execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('loan_documents').execute()
  await db.schema.dropTable('collateral_items').execute()
  await db.schema.dropIndex('loan_balances_loan_time_idx').execute()
  await db.schema.dropIndex('loan_transactions_loan_time_idx').execute()
  await db.schema.alterTable('loan_transactions').dropColumn('payment_id').dropColumn('reverses_id').execute()
  await db.schema.dropTable('payments').execute()
  await db.schema.dropTable('payment_methods').execute()
  await db.schema.alterTable('loan_installments').dropColumn('interest_accrued').execute()
  await db.schema.alterTable('loan_installments').addColumn('status', 'text', (c) => c.notNull().defaultTo('UPCOMING')).execute()
}
