import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { invalidState, notFound, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { PaymentId } from '../../domain/foundations/ids.js'
import type { Payment } from '../../domain/loans/payment.js'
import { addDays, allocated, derivedOn, total } from '../../lending/index.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LoanRepository, LockedLoan } from '../../ports/loan-repository.js'
import { paymentEvent } from '../../views/events.js'
import { failedPayment } from '../servicing/plan-payment.js'
import { causedBy, changeOfPayment, loadFor, loanToday, nothing, post, postingDate, replayInputsOf, settled, type LoadedLoan } from '../servicing/posting.js'

/** A bank debit's life after acceptance (docs/ach.md "States"): submitted in a file, settled, or failed before it went. */

/** How far after the loan's today a file's effective entry date may be: at most a long weekend away. */
export const SUBMISSION_DAYS_AHEAD = 7

/**
 * Why a `PENDING` payment fails at submission, as its `failure_code`; `payment_method_unusable`:
 * its account's numbers cannot be read (added before they were kept sealed, or sealed under
 * another key), so no file can debit it.
 */
export type SubmissionFailure = 'loan_not_payable' | 'overpayment' | 'invalid_effective_date' | 'payment_method_unusable'

/** What a submission, a settlement or a failure acts with. */
type Order = { readonly ids: IdGenerator; readonly now: Date }

/** The payment `current` if it is `status`: NotFound without it, InvalidState in another status. */
const inStatus = (current: O.Option<Payment>, status: Payment['status'], action: string): E.Either<NotFound | InvalidState, Payment> =>
  O.isNone(current) ? E.left(notFound('payment')) : current.value.status === status ? E.right(current.value) : E.left(invalidState('payment', current.value.status, action))

/** The `PENDING` payment `pending` as `FAILED` with `failureCode`, its `payment.failed` shaped as a declined charge's: nothing posted. */
const failed = (locked: LockedLoan, pending: Payment, failureCode: SubmissionFailure, order: Order): Change<Payment> => failedPayment(locked, pending, failureCode, order.ids, order.now)

/**
 * Submits the `PENDING` payment `current` in a bank file whose effective entry date is `effectiveDate`
 * (E): the payment is posted as a payment taken today (the day its file is cut) would be, never
 * dated ahead of today (decision 139), and becomes `SUBMITTED` with its allocation and its
 * `payment.submitted`. What it asked is capped at the payoff, as a payment's is. It becomes
 * `FAILED` instead (`payment.failed`, nothing posted) when the loan is charged off
 * (`loan_not_payable`), when E is before the loan's today or more than `SUBMISSION_DAYS_AHEAD`
 * days after it (`invalid_effective_date`), or when it is above both the payoff and the bill
 * (`overpayment`: a loan paid off since has nothing to take).
 */
export const planSubmission = (locked: O.Option<LoadedLoan>, current: O.Option<Payment>, effectiveDate: string, order: Order): E.Either<NotFound | InvalidState, Change<Payment>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  const loaded = locked.value
  const { loan } = loaded
  return pipe(
    inStatus(current, 'PENDING', 'submit'),
    E.map((pending) => {
      if (loan.status === 'CHARGED_OFF') return failed(loaded, pending, 'loan_not_payable', order)
      const today = loanToday(loan, order.now)
      if (effectiveDate < today || effectiveDate > addDays(today, SUBMISSION_DAYS_AHEAD)) return failed(loaded, pending, 'invalid_effective_date', order)
      const date = postingDate(loan, order.now, loaded.latest)
      const asked = pending.requestedAmount ?? pending.amount
      const base = { ...pending, amount: asked, effectiveDate: date }
      const { posting, change } = post(loaded, { type: 'PAYMENT', payment: settled(base) }, date, { ids: () => order.ids.next(), now: order.now })
      const { allocation, perInstallment, transactionId } = change.allocation!
      const placed = total(allocated(allocation))
      if (placed < asked) {
        const before = derivedOn(loan, replayInputsOf(loaded), date)
        if (placed === 0 || asked > before.pastDueAmount + (before.nextDueAmount ?? 0)) return failed(loaded, pending, 'overpayment', order)
      }
      const { requestedAmount: _asked, ...rest } = base
      const submitted: Payment = { ...rest, amount: placed, ...(placed < asked ? { requestedAmount: asked } : {}), status: 'SUBMITTED', allocation, perInstallment, transactionId }
      const event = paymentEvent(order.ids.next(), 'payment.submitted', submitted, loan, order.now, { status: 'PENDING' })
      return { posting: causedBy({ ...posting, payments: [submitted, ...posting.payments], audit: NOT_AUDITED }, event), result: submitted }
    }),
  )
}

/** The `SUBMITTED` payment `current` as `SETTLED`, with its `payment.settled`: nothing posted (the caller judges the return window). */
export const planSettlement = (locked: O.Option<LockedLoan>, current: O.Option<Payment>, order: Order): E.Either<NotFound | InvalidState, Change<Payment>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  return pipe(
    inStatus(current, 'SUBMITTED', 'settle'),
    E.map((submitted) => {
      const payment: Payment = { ...submitted, status: 'SETTLED' }
      return { posting: { ...nothing(locked.value, payment), events: [paymentEvent(order.ids.next(), 'payment.settled', payment, locked.value.loan, order.now, { status: 'SUBMITTED' })] }, result: payment }
    }),
  )
}

/** The `PENDING` payment `current` as `FAILED` with `failureCode` (`payment.failed`, nothing posted). */
const planFailure = (locked: O.Option<LockedLoan>, current: O.Option<Payment>, failureCode: SubmissionFailure, order: Order): E.Either<NotFound | InvalidState, Change<Payment>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  return pipe(
    inStatus(current, 'PENDING', 'fail'),
    E.map((pending) => failed(locked.value, pending, failureCode, order)),
  )
}

/** What submitting and settling need. */
export type SubmissionDeps = { readonly loans: Pick<LoanRepository, 'change' | 'payments'>; readonly ids: IdGenerator; readonly clock: Clock }

/**
 * Submits `PENDING` payment `paymentId` in a file effective on `effectiveDate` (`planSubmission`), in
 * one transaction under its loan's lock. A payment no longer `PENDING` is InvalidState: the
 * origination job skips it (it was submitted, or failed, by an earlier run).
 */
export const submitPendingPayment =
  (deps: SubmissionDeps) =>
  (paymentId: PaymentId, effectiveDate: string): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, Payment> =>
    changeOfPayment(deps.loans, paymentId, (found, current, reads) => {
      const order = { ids: deps.ids, now: deps.clock.now() }
      return pipe(
        found,
        // Loaded as for a posting today: resumed from its checkpoint, or with its posted payments when it has none.
        O.traverse(TE.ApplicativeSeq)((locked) => loadFor(locked, reads, { type: 'TIME' }, postingDate(locked.loan, order.now, locked.latest))),
        TE.chainEitherKW((loaded) => planSubmission(loaded, current, effectiveDate, order)),
      )
    })

/**
 * Fails `PENDING` payment `paymentId` with `failureCode` before any file holds it (`payment.failed`,
 * nothing posted), in one transaction under its loan's lock; InvalidState when it is no longer `PENDING`.
 */
export const failPendingPayment =
  (deps: SubmissionDeps) =>
  (paymentId: PaymentId, failureCode: SubmissionFailure): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, Payment> =>
    changeOfPayment(deps.loans, paymentId, (found, current) => TE.fromEither(planFailure(found, current, failureCode, { ids: deps.ids, now: deps.clock.now() })))

/**
 * Settles `SUBMITTED` payment `paymentId` (`planSettlement`), in one transaction under its loan's
 * lock. The caller (the settlement job of docs/ach.md) decides that its return window has passed:
 * the payment does not hold its file's effective entry date.
 */
export const settleSubmittedPayment =
  (deps: SubmissionDeps) =>
  (paymentId: PaymentId): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, Payment> =>
    changeOfPayment(deps.loans, paymentId, (found, current) => TE.fromEither(planSettlement(found, current, { ids: deps.ids, now: deps.clock.now() })))
