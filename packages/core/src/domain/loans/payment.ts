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
 * `SUCCEEDED` (posted), `FAILED` (the processor declined; no balance changed) or `REVERSED` (undone by an operator).
 */
export type PaymentStatus = 'SUCCEEDED' | 'FAILED' | 'REVERSED'

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
  /** What was charged (or declined) and posted: at most the payoff. */
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
  /** How a successful payment was applied by the waterfall; null for a failed one. */
  readonly allocation: Allocation | null
  /** What it paid on each installment, so a reversal can undo exactly that. */
  readonly perInstallment: InstallmentPayments
  /** Its `PAYMENT` ledger entry (successful payments only). */
  readonly transactionId: string | null
  /** The UTC date it was taken, `YYYY-MM-DD`. */
  readonly effectiveDate: string
  readonly createdAt: Date
}

