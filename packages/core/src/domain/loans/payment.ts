import type * as t from 'io-ts'
import { strictObject, stringMatching } from '../foundations/codecs.js'
import type { Allocation, InstallmentPayments } from '../../lending/index.js'
import { CurrencyCode, PositiveMinorUnits } from '../foundations/money.js'
import { type ClientId, type LoanId, type PaymentId, PaymentMethodId } from '../foundations/ids.js'

/** Borrower payments (docs/servicing.md "Payments"). */

const PAYMENT_FIELDS = { amount: PositiveMinorUnits, currency: CurrencyCode, payment_method_id: PaymentMethodId }

/**
 * A payment's fields: `amount` (minor units, at most the payoff), `currency` (the loan's) and
 * `payment_method_id` (one of the loan's methods). A payment command adds the loan's `partyId` and
 * `loanId` and the `idempotency_key` it is taken under.
 */
export const PaymentInput = strictObject('PaymentInput', PAYMENT_FIELDS, {})
/** A decoded `PaymentInput`. */
export type PaymentInput = t.TypeOf<typeof PaymentInput>

/**
 * The key a client takes a payment under (over HTTP, the `Idempotency-Key` header): 1 to 255
 * printable ASCII characters.
 */
export const IdempotencyKey = stringMatching('IdempotencyKey', /^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters')

/** A payment's fields with the `idempotency_key` it is taken under: a payment command's fields. */
export const KeyedPaymentInput = strictObject('KeyedPaymentInput', { ...PAYMENT_FIELDS, idempotency_key: IdempotencyKey }, {})

/**
 * A payment's statuses (docs/servicing.md "Payment states"): `SUCCEEDED` (charged and posted at
 * once: card and sandbox rails), `PENDING` (a bank debit accepted, waiting for its file; nothing
 * posted), `SUBMITTED` (in a file, posted on its effective entry date), `SETTLED` (its return
 * window has passed), `RETURNED` (the borrower's bank sent it back; undone), `FAILED` (declined,
 * or failed before submission; nothing posted) and `REVERSED` (undone by an operator).
 */
export const PAYMENT_STATUSES = ['SUCCEEDED', 'PENDING', 'SUBMITTED', 'SETTLED', 'RETURNED', 'FAILED', 'REVERSED'] as const
/** One of `PAYMENT_STATUSES`. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number]

/** The statuses whose payment is in the ledger: what a loan's replay applies. */
export const POSTED_PAYMENT_STATUSES = ['SUCCEEDED', 'SUBMITTED', 'SETTLED'] as const satisfies readonly PaymentStatus[]

/** Whether `payment` is in the ledger (one of `POSTED_PAYMENT_STATUSES`). */
export const isPosted = (payment: Pick<Payment, 'status'>): boolean => (POSTED_PAYMENT_STATUSES as readonly PaymentStatus[]).includes(payment.status)

/**
 * The statuses an operator may reverse: posted and settled. A `SUBMITTED` debit's money is still
 * in flight (its bank may return it), so it waits for its return or its settlement.
 */
export const REVERSIBLE_PAYMENT_STATUSES = ['SUCCEEDED', 'SETTLED'] as const satisfies readonly PaymentStatus[]

/**
 * A borrower's payment (docs/servicing.md "Payments"), recorded whether the charge succeeded or
 * failed. Amounts are minor units of `currency`.
 */
export type Payment = {
  readonly id: PaymentId
  readonly loanId: LoanId
  /** The API client that sent it, and its Idempotency-Key: unique together. */
  readonly clientId: ClientId
  readonly idempotencyKey: string
  readonly paymentMethodId: PaymentMethodId
  /** What was charged (or declined, or is waiting to be debited) and posted: at most the payoff. */
  readonly amount: number
  /**
   * What the order asked, when more than `amount` (a final bill settled at the payoff); absent, it
   * asked `amount`. A retry under the key is compared with this, never with the loan's state.
   */
  readonly requestedAmount?: number
  readonly currency: string
  readonly status: PaymentStatus
  /** The processor's reason, for a `FAILED` payment. */
  readonly failureCode: string | null
  /** How a posted payment was applied by the waterfall; null for one never posted (`PENDING`, `FAILED`). */
  readonly allocation: Allocation | null
  /** What it paid on each installment, so a reversal can undo exactly that. */
  readonly perInstallment: InstallmentPayments
  /** Its `PAYMENT` ledger entry (posted payments, and those undone since, only). */
  readonly transactionId: string | null
  /** A `RETURNED` bank debit's return reason code (`R01`, …) and the day the return was applied (the loan's business date); absent otherwise. */
  readonly returnCode?: string
  readonly returnedOn?: string
  /** A `RETURNED` bank debit's returned-payment fee (the loan's, frozen at booking), charged on `returnedOn`; absent or 0 for none. */
  readonly returnFee?: number
  /** The date it is posted on, in the loan's business time zone (`YYYY-MM-DD`): the day it was taken, or a bank debit's effective entry date. */
  readonly effectiveDate: string
  readonly createdAt: Date
}

