import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { OPERATOR_CONTEXT, paymentReturnedEvent, paymentReversedEvent, type AuditContext, type CheckedRequest } from '../../domain/audit/audit-event.js'
import { actsAlone, checkerRequired, type CheckerRequired } from '../../domain/operators/operator-request.js'
import { boundedString, decode, strictObject } from '../../domain/foundations/codecs.js'
import { invalidState, notFound, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { REVERSIBLE_PAYMENT_STATUSES, type Payment, type PaymentStatus } from '../../domain/loans/payment.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LoanRepository, LockedLoan, PaymentReads } from '../../ports/loan-repository.js'
import { paymentEvent } from '../../views/events.js'
import { allocated, writtenOffReversal, type LoanEvent } from '../../lending/index.js'
import { causedBy, changeOfPayment, loadFromBooking, nothing, post, postingDate, type LoadedLoan } from './posting.js'

/** The fields of a reversal: optionally a `reason` (1 to 500 characters), kept in the audit event. */
export const ReversePaymentInput = strictObject('ReversePaymentInput', {}, { reason: boundedString('Reason', 1, 500) })
const ReverseCommand = commandOf(['paymentId'], ReversePaymentInput)

/** What a reversal needs. */
export type ReversalDeps = { readonly loans: Pick<LoanRepository, 'change' | 'payments'>; readonly ids: IdGenerator; readonly clock: Clock }

/** Why a reversal is refused. */
export type ReversalError = InvalidRequest | NotFound | InvalidState | CheckerRequired | StoreUnavailable

/** What a reversal decides on: the loan (none if gone), the payment as it stands under the lock, who and why. */
export type ReversalOrder = {
  readonly context: AuditContext
  readonly reason: string | null
  readonly ids: IdGenerator
  readonly now: Date
  /** The maker-checker request a checker approved, when it is one (decision 152). */
  readonly checked?: CheckedRequest
}

/**
 * The posting that undoes posted payment `paid` as `undone` (its new status): a `REVERSAL` entry
 * undoing its allocation, the replay's re-allocations and `undone`, dated the loan's today, and
 * for a return with a fee its `RETURN_FEE`; with the `REVERSAL` entry's id. The caller adds the
 * audit event, then (`causedBy`) the payment's event.
 */
const undo = (loaded: LoadedLoan, paid: Payment, undone: Payment, order: Pick<ReversalOrder, 'ids' | 'now'>, event: LoanEvent) => {
  const { now, ids } = order
  const { posting, change } = post(loaded, event, postingDate(loaded.loan, now, loaded.latest), { ids: () => ids.next(), now })
  return { reversalId: change.transactions.find((t) => t.type === 'REVERSAL')!.id, posting: { ...posting, payments: [undone, ...posting.payments] } }
}

/**
 * The posting that undoes posted payment `paid` of a charged-off loan as `undone`: its `REVERSAL`,
 * then a `CHARGE_OFF` of what it paid (`writtenOffReversal`), dated `date`; the schedule stays as
 * it was written off.
 */
const undoWrittenOff = (loaded: LoadedLoan, paid: Payment, undone: Payment, date: string, order: Pick<ReversalOrder, 'ids' | 'now'>) => {
  const { transactions, balance } = writtenOffReversal(loaded.loan.id, paid, allocated(paid.allocation!), date, () => order.ids.next(), order.now)
  return { reversalId: transactions[0]!.id, posting: { ...nothing(loaded, undone), transactions, balance } }
}

/**
 * A `REVERSAL` entry undoing the allocation, the replay's re-allocations, the payment `REVERSED`;
 * a `SUCCEEDED` or `SETTLED` payment (`REVERSIBLE_PAYMENT_STATUSES`) of a loan not charged off only.
 */
export const planReversal = (locked: O.Option<LoadedLoan>, current: O.Option<Payment>, order: ReversalOrder): E.Either<NotFound | InvalidState, Change<Payment>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  const loaded = locked.value
  if (loaded.loan.status === 'CHARGED_OFF') return E.left(invalidState('loan', 'CHARGED_OFF', 'reverse a payment of'))
  if (O.isNone(current)) return E.left(notFound('payment'))
  const paid = current.value
  if (!(REVERSIBLE_PAYMENT_STATUSES as readonly PaymentStatus[]).includes(paid.status) || paid.transactionId === null) return E.left(invalidState('payment', paid.status, 'reverse'))
  const { now, ids } = order
  const payment: Payment = { ...paid, status: 'REVERSED' }
  const { posting, reversalId } = undo(loaded, paid, payment, order, { type: 'REVERSAL', payment: paid })
  const audit = paymentReversedEvent(ids.next(), order.context, payment, loaded.loan, reversalId, order.reason, now, order.checked ?? null)
  return E.right({ posting: causedBy({ ...posting, audit }, paymentEvent(ids.next(), 'payment.reversed', payment, loaded.loan, now, { status: paid.status })), result: payment })
}

/** What a return decides on: who ingested it, from which file, with which code. */
/** A return's code, and the bank file it came in (null: a test helper's return, which came in none). */
export type ReturnOrder = Omit<ReversalOrder, 'reason'> & { readonly returnCode: string; readonly inboundFileId: string | null }

/** A return as applied: the payment as it stands after it, and what became of it (`ReturnOutcome`, less what matching decides). */
export type AppliedReturn = { readonly payment: Payment; readonly outcome: 'applied' | 'loan_charged_off' | 'already_returned' | 'already_reversed' | 'not_sent' }

/**
 * A return of payment `current` by its bank (docs/ach.md "States"). A `SUBMITTED` or `SETTLED`
 * payment becomes `RETURNED` with the code and the day: undone as a reversal undoes it (what it
 * paid is owed again, so the installment it paid can be past due again), the loan's
 * returned-payment fee charged (`RETURN_FEE`: the replay's `chargeReturnFee`), with
 * `payment.returned` and its audit event; on a charged-off loan what it paid is reversed and written off at once
 * (`writtenOffReversal`: the loan still owes nothing, the charge-off grows by it), and it is
 * `loan_charged_off`. A payment already `RETURNED` or `REVERSED` is left as it is, and one never
 * sent (`not_sent`) too: each says so.
 */
export const planReturn = (locked: O.Option<LoadedLoan>, current: O.Option<Payment>, order: ReturnOrder): E.Either<NotFound, Change<AppliedReturn>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  if (O.isNone(current)) return E.left(notFound('payment'))
  const loaded = locked.value
  const paid = current.value
  const unchanged = (outcome: AppliedReturn['outcome']): Change<AppliedReturn> => ({ posting: nothing(loaded), result: { payment: paid, outcome } })
  if (paid.status === 'RETURNED') return E.right(unchanged('already_returned'))
  if (paid.status === 'REVERSED') return E.right(unchanged('already_reversed'))
  if ((paid.status !== 'SUBMITTED' && paid.status !== 'SETTLED') || paid.transactionId === null) return E.right(unchanged('not_sent'))
  const { now, ids } = order
  const date = postingDate(loaded.loan, now, loaded.latest)
  const chargedOff = loaded.loan.status === 'CHARGED_OFF'
  // A loan written off owes nothing and is charged no more: no fee.
  const fee = chargedOff ? 0 : (loaded.loan.returnedPaymentFee ?? 0)
  const returned: Payment = { ...paid, status: 'RETURNED', returnCode: order.returnCode, returnedOn: date, ...(fee === 0 ? {} : { returnFee: fee }) }
  // Written off: what it paid is owed again and written off with the rest; otherwise the replay without it, and its fee.
  const { posting, reversalId } = chargedOff ? undoWrittenOff(loaded, paid, returned, date, order) : undo(loaded, paid, returned, order, { type: 'RETURN', payment: paid, fee })
  const audit = paymentReturnedEvent(ids.next(), order.context, returned, loaded.loan, reversalId, order.inboundFileId, now)
  const event = paymentEvent(ids.next(), 'payment.returned', returned, loaded.loan, now, { status: paid.status })
  return E.right({ posting: causedBy({ ...posting, audit }, event), result: { payment: returned, outcome: chargedOff ? 'loan_charged_off' : 'applied' } })
}

/** A reversal of `current` decided under the loan's lock: the loan replayed from booking, then `planReversal`. */
export const decideReversal = (found: O.Option<LockedLoan>, current: O.Option<Payment>, reads: PaymentReads, order: ReversalOrder): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, Change<Payment>> =>
  pipe(
    found,
    O.traverse(TE.ApplicativeSeq)((locked) => loadFromBooking(locked, reads)),
    TE.chainEitherKW((loaded) => planReversal(loaded, current, order)),
  )

/**
 * Reverses a posted, settled payment (`planReversal`) with its `payment.reversed` audit event, in
 * one transaction; nothing is deleted. A named operator may not act alone (`CheckerRequired`):
 * they ask with `askOperatorRequest`, and another approves.
 */
export const reverseLoanPayment =
  (deps: ReversalDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<ReversalError, Payment> =>
    pipe(
      actsAlone(context) ? TE.right(command) : TE.left(checkerRequired('payment_reversal')),
      TE.chainEitherKW(decode(ReverseCommand)),
      TE.chainW((cmd) =>
        changeOfPayment(deps.loans, cmd.paymentId, (found, current, reads) =>
          decideReversal(found, current, reads, { context, reason: cmd.reason ?? null, ids: deps.ids, now: deps.clock.now() }),
        ),
      ),
    )
