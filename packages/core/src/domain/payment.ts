import type * as t from 'io-ts'
import { strictObject, Uuid } from './codecs.js'
import type { Allocation, Buckets, InstallmentPayments } from './loan-servicing.js'
import { CurrencyCode, PositiveMinorUnits } from './money.js'
import { instantText } from './instant.js'

/** Borrower payments (docs/servicing.md "Payments"). */

export const PaymentInput = strictObject('PaymentInput', { amount: PositiveMinorUnits, currency: CurrencyCode, payment_method_id: Uuid }, {})
export type PaymentInput = t.TypeOf<typeof PaymentInput>

export type PaymentStatus = 'SUCCEEDED' | 'FAILED' | 'REVERSED'

export type Payment = {
  readonly id: string
  readonly loanId: string
  /** The API client that sent it, and its Idempotency-Key: unique together. */
  readonly clientId: string
  readonly idempotencyKey: string
  readonly paymentMethodId: string
  readonly amount: number
  readonly currency: string
  readonly status: PaymentStatus
  readonly failureCode: string | null
  readonly allocation: Allocation | null
  /** What it paid on each installment, so a reversal can undo exactly that. */
  readonly perInstallment: InstallmentPayments
  /** Its `PAYMENT` ledger entry (successful payments only). */
  readonly transactionId: string | null
  readonly effectiveDate: string
  readonly createdAt: Date
}

const bucketsView = (b: Buckets) => ({ fees: b.fees, interest: b.interest, principal: b.principal })

export const paymentView = (p: Payment) => ({
  payment_id: p.id,
  loan_id: p.loanId,
  status: p.status,
  amount: p.amount,
  currency: p.currency,
  payment_method_id: p.paymentMethodId,
  allocation: p.allocation === null ? null : { past_due: bucketsView(p.allocation.pastDue), ...bucketsView(p.allocation.current) },
  failure_code: p.failureCode,
  effective_date: p.effectiveDate,
  created_at: instantText(p.createdAt),
})
