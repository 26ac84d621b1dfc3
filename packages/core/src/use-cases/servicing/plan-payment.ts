import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import {
  idempotencyKeyReused,
  invalidRequest,
  invalidState,
  notFound,
  overpayment,
  type IdempotencyKeyReused,
  type InvalidRequest,
  type InvalidState,
  type NotFound,
  type Overpayment,
} from '../../domain/foundations/errors.js'
import { newId, type ClientId, type LoanId, type PaymentId } from '../../domain/foundations/ids.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import { allocated, derivedOn, total } from '../../lending/index.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LockedLoan } from '../../ports/loan-repository.js'
import { paymentEvent } from '../../views/events.js'
import { causedBy, nothing, post, postingDate, replayInputsOf, settled, type LoadedLoan } from './posting.js'

/** Why a payment is refused before any money moves (docs/servicing.md "Taking a payment"). */
export type PaymentRefusal = NotFound | InvalidRequest | IdempotencyKeyReused | InvalidState | Overpayment

/** What a payment asks for: its amount, currency and method, and the client's key it is taken under. */
export type PaymentOrder = {
  readonly clientId: ClientId
  readonly idempotencyKey: string
  readonly amount: number
  readonly currency: string
  readonly paymentMethodId: string
  /** Fresh ids for what a charge writes. */
  readonly ids: IdGenerator
}

/** The payment already taken under the order's key: answered as it is. */
export type Replay = { readonly _tag: 'Replay'; readonly change: Change<Payment> }

/** A charge to make: what to write if the processor settles it (`succeeded`), and the payment as taken. */
export type Charge = {
  readonly _tag: 'Charge'
  readonly token: string
  readonly methodType: PaymentMethod['type']
  readonly locked: LockedLoan
  readonly succeeded: Change<Payment>
}

/**
 * Whether `found`, taken under the order's key, is this order's payment: same loan, currency,
 * method and the amount it asked (its `requestedAmount`, or its `amount` when it asked that).
 * Compared with what was asked alone, so a retry is answered alike whatever was posted since.
 */
const sameOrder = (found: Payment, loanId: LoanId, order: PaymentOrder): boolean =>
  found.loanId === loanId && found.currency === order.currency && found.paymentMethodId === order.paymentMethodId && requested(found) === order.amount

/** What a payment's order asked: its `requestedAmount`, or its `amount` when it records none. */
const requested = (payment: Payment): number => payment.requestedAmount ?? payment.amount

/**
 * Decides a payment on the locked loan at `now`: none is NotFound `loan`; then the method and the
 * currency; a payment `found` under the key is replayed (or the key is refused as reused); a
 * charged-off loan takes none. The amount may be up to the payoff, or up to the bill (past due
 * and the next installment, its interest projected to its due date) when that is more; while the
 * loan has payments pending, the amount and their sum may be up to the payoff only. What is
 * charged and recorded is at most the payoff, so a final bill paid early settles the loan. The
 * posting is worked out before the money moves, so whatever it finds wrong, it finds before a charge.
 */
export const planPayment = (
  locked: O.Option<LoadedLoan>,
  found: O.Option<Payment>,
  order: PaymentOrder,
  method: O.Option<PaymentMethod>,
  now: Date,
): E.Either<PaymentRefusal, Replay | Charge> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  const loaded = locked.value
  const { loan } = loaded
  if (O.isNone(method)) return E.left(invalidRequest(`payment_method_id ${order.paymentMethodId} is not a payment method of this loan.`, 'payment_method_id'))
  if (order.currency !== loan.currency) return E.left(invalidRequest(`currency must be ${loan.currency}, the currency of the loan.`, 'currency'))
  if (O.isSome(found)) return sameOrder(found.value, loan.id, order) ? E.right({ _tag: 'Replay', change: { posting: nothing(loaded), result: found.value } }) : E.left(idempotencyKeyReused)
  if (loan.status === 'CHARGED_OFF') return E.left(invalidState('loan', 'CHARGED_OFF', 'pay'))
  if (method.value.status === 'blocked') return E.left(invalidState('payment_method', 'blocked', 'charge'))
  const date = postingDate(loan, now, loaded.latest)
  const id = newId<PaymentId>(order.ids)
  const base = { id, loanId: loan.id, clientId: order.clientId, idempotencyKey: order.idempotencyKey, paymentMethodId: method.value.id, amount: order.amount, currency: order.currency, effectiveDate: date, createdAt: now }
  // One replay decides: what the waterfall could not place is above the payoff (which is then what it placed).
  const { posting, change } = post(loaded, { type: 'PAYMENT', payment: settled(base) }, date, { ids: () => order.ids.next(), now })
  const { allocation, perInstallment, transactionId } = change.allocation!
  const placed = total(allocated(allocation))
  const payoff = placed + change.derived.payoff
  const { pendingAmount } = loaded
  if (order.amount + pendingAmount > payoff) {
    // With payments pending, no debit may take the loan's debits past the payoff; with none, a final bill is taken up to the bill.
    if (pendingAmount > 0) return E.left(overpayment(payoff, pendingAmount))
    const before = derivedOn(loan, replayInputsOf(loaded), date)
    if (order.amount > before.pastDueAmount + (before.nextDueAmount ?? 0)) return E.left(overpayment(payoff))
  }
  const asked = placed < order.amount ? { requestedAmount: order.amount } : {}
  const payment: Payment = { ...base, amount: placed, ...asked, status: 'SUCCEEDED', failureCode: null, allocation, perInstallment, transactionId }
  const succeeded = causedBy({ ...posting, payments: [payment, ...posting.payments], audit: NOT_AUDITED }, paymentEvent(order.ids.next(), 'payment.succeeded', payment, loan, now))
  return E.right({ _tag: 'Charge', token: method.value.token, methodType: method.value.type, locked: loaded, succeeded: { posting: succeeded, result: payment } })
}

/** What a charge the rail accepts to debit later writes: the payment `PENDING`, nothing posted and no event (the answer is the record). */
export const accepted = (plan: Charge): Change<Payment> => {
  const pending: Payment = { ...plan.succeeded.result, status: 'PENDING', allocation: null, perInstallment: [], transactionId: null }
  return { posting: nothing(plan.locked, pending), result: pending }
}

/** What a payment that fails writes: the payment as `FAILED` with `failureCode` and its `payment.failed` event (at `at`), and no balance change. */
export const failedPayment = (locked: LockedLoan, payment: Payment, failureCode: string, ids: IdGenerator, at: Date): Change<Payment> => {
  const failed: Payment = { ...payment, status: 'FAILED', failureCode, allocation: null, perInstallment: [], transactionId: null }
  return { posting: { ...nothing(locked, failed), events: [paymentEvent(ids.next(), 'payment.failed', failed, locked.loan, at)] }, result: failed }
}

/** What a declined charge writes (`failedPayment`, with the processor's code). */
export const declined = (plan: Charge, failureCode: string, ids: IdGenerator): Change<Payment> => failedPayment(plan.locked, plan.succeeded.result, failureCode, ids, plan.succeeded.result.createdAt)
