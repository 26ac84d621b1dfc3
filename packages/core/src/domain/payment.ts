import type * as t from 'io-ts'
import { strictObject, stringMatching } from './codecs.js'
import type { Allocation, Buckets, InstallmentPayments } from './loan-servicing.js'
import { CurrencyCode, PositiveMinorUnits } from './money.js'
import { instantText } from './instant.js'
import { type ClientId, type LoanId, type PaymentId, PaymentMethodId } from './ids.js'

/** Borrower payments (docs/servicing.md "Payments"). */

const PAYMENT_FIELDS = { amount: PositiveMinorUnits, currency: CurrencyCode, payment_method_id: PaymentMethodId }

/** The body of a payment request. */
export const PaymentInput = strictObject('PaymentInput', PAYMENT_FIELDS, {})
export type PaymentInput = t.TypeOf<typeof PaymentInput>

/**
 * The key a client takes a payment under (over HTTP, the `Idempotency-Key` header): 1 to 255
 * printable ASCII characters.
 */
export const IdempotencyKey = stringMatching('IdempotencyKey', /^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters')

/** A payment's fields with the `idempotency_key` it is taken under: a payment command's fields. */
export const KeyedPaymentInput = strictObject('KeyedPaymentInput', { ...PAYMENT_FIELDS, idempotency_key: IdempotencyKey }, {})

export type PaymentStatus = 'SUCCEEDED' | 'FAILED' | 'REVERSED'

export type Payment = {
  readonly id: PaymentId
  readonly loanId: LoanId
  /** The API client that sent it, and its Idempotency-Key: unique together. */
  readonly clientId: ClientId
  readonly idempotencyKey: string
  readonly paymentMethodId: PaymentMethodId
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
