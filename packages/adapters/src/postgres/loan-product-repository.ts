import type { LoanProduct, LoanProductRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import { inPage } from './paging.js'
import type { Database } from './schema.js'
import type { LoanProductsTable } from './lending-tables.js'
import { attempt, asWriteError, query } from './store-errors.js'

const toProduct = (row: Selectable<LoanProductsTable>): LoanProduct => ({
  id: row.id,
  name: row.name,
  description: row.description,
  currency: row.currency,
  minAmount: row.min_amount,
  maxAmount: row.max_amount,
  minTermMonths: row.min_term_months,
  maxTermMonths: row.max_term_months,
  interestRateBps: row.interest_rate_bps,
  originationFeeBps: row.origination_fee_bps,
  repaymentFrequency: row.repayment_frequency,
  servicing: {
    dayCount: row.day_count,
    prepayment: row.prepayment,
    lateFee: { flat: row.late_fee_flat, bps: row.late_fee_bps, graceDays: row.late_fee_grace_days },
    ...(row.returned_payment_fee === 0 ? {} : { returnedPaymentFee: row.returned_payment_fee }),
    timeZone: row.time_zone,
  },
  active: row.active,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const columns = (p: LoanProduct) => ({
  name: p.name,
  description: p.description,
  currency: p.currency,
  min_amount: p.minAmount,
  max_amount: p.maxAmount,
  min_term_months: p.minTermMonths,
  max_term_months: p.maxTermMonths,
  interest_rate_bps: p.interestRateBps,
  origination_fee_bps: p.originationFeeBps,
  repayment_frequency: p.repaymentFrequency,
  day_count: p.servicing.dayCount,
  prepayment: p.servicing.prepayment,
  late_fee_flat: p.servicing.lateFee.flat,
  late_fee_bps: p.servicing.lateFee.bps,
  late_fee_grace_days: p.servicing.lateFee.graceDays,
  returned_payment_fee: p.servicing.returnedPaymentFee ?? 0,
  time_zone: p.servicing.timeZone,
  active: p.active,
  updated_at: p.updatedAt,
})

export const postgresLoanProductRepository = (db: Kysely<Database>): LoanProductRepository => ({
  insert: (product, audit) =>
    attempt(
      () =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('loan_products').values({ id: product.id, created_at: product.createdAt, ...columns(product) }).execute()
          await insertAuditEvent(trx, audit)
        }),
      asWriteError('loan_product'),
    ),

  update: (product, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const updated = await trx.updateTable('loan_products').set(columns(product)).where('id', '=', product.id).executeTakeFirst()
        if (updated.numUpdatedRows > 0n) await insertAuditEvent(trx, audit)
      }),
    ),

  findById: (id) =>
    query(async () => {
      const row = await db.selectFrom('loan_products').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? O.none : O.some(toProduct(row))
    }),

  list: (active, page) =>
    query(async () => {
      const q = db.selectFrom('loan_products').selectAll()
      return (await inPage(active === undefined ? q : q.where('active', '=', active), page).execute()).map(toProduct)
    }),
})
