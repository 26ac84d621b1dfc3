import { sql, type Kysely } from 'kysely'

/**
 * Servicing rules (issue 37; docs/servicing.md): the day-count convention, what a prepayment does
 * and the late fee, named by each product and frozen on each loan at booking. Existing products
 * and loans keep what they were serviced by: 30/360, a prepayment shortens the term, no late fee.
 * Loans also keep their disclosure figures (total of payments, finance charge, APR).
 */
const RULES = [
  ['day_count', 'text', `'THIRTY_360'`, sql`day_count in ('THIRTY_360', 'ACTUAL_365')`],
  ['prepayment', 'text', `'REDUCE_TERM'`, sql`prepayment in ('REDUCE_TERM', 'REDUCE_INSTALLMENT')`],
  ['late_fee_flat', 'int8', '0', sql`late_fee_flat >= 0`],
  ['late_fee_bps', 'integer', '0', sql`late_fee_bps between 0 and 10000`],
  ['late_fee_grace_days', 'integer', '0', sql`late_fee_grace_days between 0 and 365`],
  ['time_zone', 'text', `'UTC'`, sql`time_zone <> ''`],
] as const

export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const table of ['loan_products', 'loans']) {
    for (const [column, type, fallback, check] of RULES) {
      await db.schema
        .alterTable(table)
        .addColumn(column, type, (c) => c.notNull().defaultTo(sql.raw(fallback)).check(check))
        .execute()
    }
  }
  // A loan's Truth in Lending figures, computed at booking (null for loans booked before); its
  // delinquency (the oldest unpaid due date as of its latest posting) and its charge-off date.
  await db.schema
    .alterTable('loans')
    .addColumn('total_of_payments', 'int8')
    .addColumn('finance_charge', 'int8')
    .addColumn('apr_thousandths', 'int8')
    .addColumn('oldest_unpaid_due_date', 'date')
    .addColumn('charged_off_on', 'date')
    // Where the servicing replay stood at the latest posting (null for loans booked before: they are replayed from booking).
    .addColumn('checkpoint', 'jsonb')
    .execute()
  // An active loan's oldest installment still owing principal, accrued interest or fees; the
  // next posting recomputes it by the rules.
  await sql`
    update loans set oldest_unpaid_due_date = (
      select min(i.due_date) from loan_installments i
      where i.loan_id = loans.id
        and (i.principal_due > i.principal_paid or (i.interest_accrued and i.interest_due > i.interest_paid) or i.fees_due > i.fees_paid)
    )
    where status = 'ACTIVE'`.execute(db)
  // The delinquency filter of a party's loan list.
  await db.schema.createIndex('loans_party_delinquency_idx').on('loans').columns(['party_id', 'oldest_unpaid_due_date']).execute()
  // The replay reads a loan's successful payments on every change and read.
  await db.schema.createIndex('payments_loan_succeeded_idx').on('payments').columns(['loan_id', 'effective_date', 'created_at']).where(sql.ref('status'), '=', 'SUCCEEDED').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropIndex('payments_loan_succeeded_idx').execute()
  await db.schema.dropIndex('loans_party_delinquency_idx').execute()
  await db.schema
    .alterTable('loans')
    .dropColumn('total_of_payments')
    .dropColumn('finance_charge')
    .dropColumn('apr_thousandths')
    .dropColumn('oldest_unpaid_due_date')
    .dropColumn('charged_off_on')
    .dropColumn('checkpoint')
    .execute()
  for (const table of ['loan_products', 'loans']) {
    for (const [column] of RULES) await db.schema.alterTable(table).dropColumn(column).execute()
  }
}
