import { dateIn } from '../../domain/loans/servicing-terms.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { notFound, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { LoanId, PaymentId } from '../../domain/foundations/ids.js'
import * as O from 'fp-ts/lib/Option.js'
import { delinquencyBucketOf, postChange, resumes, sameFigures, snapshotOf, statusChange, type Buckets, type LoanChange, type LoanEvent, type ReplayInputs, type ReturnFee, type SettledPayment } from '../../lending/index.js'
import type { EventDraft } from '../../domain/events/event.js'
import type { Payment } from '../../domain/loans/payment.js'
import { daysPastDue, type BalanceSnapshot, type LedgerTransaction, type Loan } from '../../domain/loans/loan.js'
import { lateFeeEvent, loanEvent } from '../../views/events.js'
import type { Change, LoanRepository, LockedLoan, PaymentReads, Posting } from '../../ports/loan-repository.js'

/** How a servicing change becomes a posting: shared by payments, reversals and the daily job. */

/** What the ledger sums to, by the invariant that the latest snapshot's figures are the ledger's sums. */
export const ledgerOf = (latest: BalanceSnapshot): Buckets => ({
  principal: latest.principalOutstanding,
  interest: latest.interestOutstanding,
  fees: latest.feesOutstanding,
})

/** Today for `loan` at the instant `now`: the date in its business time zone. */
export const loanToday = (loan: Pick<Loan, 'timeZone'>, now: Date): string => dateIn(loan.timeZone, now)

/** The date a change posts on: `wanted` or the loan's today, never after today nor before the latest posting. */
export const postingDate = (loan: Pick<Loan, 'timeZone'>, now: Date, latest: BalanceSnapshot, wanted?: string): string => {
  const today = loanToday(loan, now)
  const date = wanted === undefined || wanted > today ? today : wanted
  return date < latest.asOf ? latest.asOf : date
}

/**
 * A locked loan with what a replay from booking takes when a change must replay it so (both null
 * when it resumes): its posted payments, and its returned payments that charged a fee.
 */
export type LoadedLoan = LockedLoan & { readonly payments: readonly Payment[] | null; readonly returned: readonly Payment[] | null }

/** The fee a returned payment charged, as the replay takes it: on the day it was returned. */
export const returnFeeOf = (p: Payment): ReturnFee => ({ paymentId: p.id, amount: p.returnFee ?? 0, date: p.returnedOn ?? p.effectiveDate, createdAt: p.createdAt })

/** What the replay of `loaded` from booking takes; null when it resumes from its checkpoint. */
export const replayInputsOf = (loaded: Pick<LoadedLoan, 'payments' | 'returned'>): ReplayInputs | null =>
  loaded.payments === null ? null : { payments: loaded.payments.map(settled), fees: (loaded.returned ?? []).map(returnFeeOf) }

/** What a replay from booking of loan `loanId` takes, read: its posted payments and its returned ones that charged a fee. */
export const readReplayInputs = (reads: PaymentReads, loanId: LoanId): TE.TaskEither<StoreUnavailable, Pick<LoadedLoan, 'payments' | 'returned'>> =>
  pipe(
    reads.posted(loanId),
    TE.chain((payments) => pipe(reads.returnedWithFee(loanId), TE.map((returned) => ({ payments, returned })))),
  )

/** The locked loan with what a replay from booking needs. */
export const loadFromBooking = (locked: LockedLoan, reads: PaymentReads): TE.TaskEither<StoreUnavailable, LoadedLoan> =>
  pipe(
    readReplayInputs(reads, locked.loan.id),
    TE.map((inputs) => ({ ...locked, ...inputs })),
  )

/** The locked loan, with what a replay from booking needs when `event` must replay from booking (reversal, return, no checkpoint). */
export const loadFor = (locked: LockedLoan, reads: PaymentReads, event: LoanEvent, date: string): TE.TaskEither<StoreUnavailable, LoadedLoan> =>
  resumes(locked.loan.checkpoint, event, date) ? TE.right({ ...locked, payments: null, returned: null }) : loadFromBooking(locked, reads)

/**
 * Runs `decide` under the lock of payment `paymentId`'s loan, handing it the payment as it stands
 * under that lock (an earlier change may have moved it since it was found); NotFound `payment`
 * when there is none.
 */
export const changeOfPayment = <E, A>(
  loans: Pick<LoanRepository, 'change' | 'payments'>,
  paymentId: PaymentId,
  decide: (found: O.Option<LockedLoan>, current: O.Option<Payment>, reads: PaymentReads) => TE.TaskEither<E | StoreUnavailable, Change<A>>,
): TE.TaskEither<E | NotFound | StoreUnavailable, A> =>
  pipe(
    loans.payments.paymentById(paymentId),
    TE.chainW(TE.fromOption(() => notFound('payment'))),
    TE.chainW((payment) =>
      loans.change({ loanId: payment.loanId }, (found, reads) =>
        pipe(
          reads.paymentById(paymentId),
          TE.chainW((current) => decide(found, current, reads)),
        ),
      ),
    ),
  )

/** A posting that writes nothing but (maybe) `payment`. */
export const nothing = (locked: Pick<LockedLoan, 'installments'>, payment?: Payment): Posting => ({
  transactions: [],
  installments: locked.installments,
  balance: null,
  audit: NOT_AUDITED,
  payments: payment === undefined ? [] : [payment],
  events: [],
})

/** A loan's days past due and delinquency bucket on `date`. */
const delinquencyOn = (loan: Loan, date: string) => {
  const days = daysPastDue(loan, date)
  return { days_past_due: days, delinquency_bucket: delinquencyBucketOf(days) }
}

/**
 * The events a change causes by itself, in order: each late fee it charged, the delinquency
 * bucket moved (from where the loan stood at its last posting), the loan paid off.
 */
const changeEvents = (locked: LockedLoan, after: Loan, transactions: readonly LedgerTransaction[], date: string, deps: { readonly ids: () => string; readonly now: Date }): EventDraft[] => {
  const before = locked.loan
  const { now } = deps
  const fees = transactions.filter((t) => t.type === 'LATE_FEE' && t.fees > 0).map((t) => lateFeeEvent(deps.ids(), t, before, now))
  // Where the loan stood at its last posting, or on `date` when this one is dated earlier (an operator's run for a past date).
  const last = before.checkpoint?.date ?? locked.latest.asOf
  const was = delinquencyOn(before, last < date ? last : date)
  const moved = was.delinquency_bucket === delinquencyOn(after, date).delinquency_bucket ? [] : [loanEvent(deps.ids(), 'loan.delinquency_changed', after, date, now, was)]
  const paidOff = after.status === 'PAID_OFF' && before.status !== 'PAID_OFF' ? [loanEvent(deps.ids(), 'loan.paid_off', after, date, now, { status: before.status })] : []
  return [...fees, ...moved, ...paidOff]
}

/** `posting` with the event of its `cause` (a payment taken or reversed): after the late fees posted before it, before what it moved. */
export const causedBy = (posting: Posting, cause: EventDraft): Posting => {
  const fees = posting.events.filter((e) => e.type === 'loan.late_fee_assessed')
  return { ...posting, events: [...fees, cause, ...posting.events.filter((e) => e.type !== 'loan.late_fee_assessed')] }
}

/** A posted payment as the replay takes it. */
export const settled = (p: Pick<Payment, 'id' | 'amount' | 'effectiveDate' | 'createdAt'>): SettledPayment => ({
  id: p.id,
  amount: p.amount,
  effectiveDate: p.effectiveDate,
  createdAt: p.createdAt,
})

/**
 * Posts `event` as of `date` (`locked.payments` null resumes from the checkpoint): entries to the derived state, the
 * schedule, a snapshot when something moved, re-allocated payments (not the event's own) and a status change.
 */
export const post = (
  locked: LoadedLoan,
  event: LoanEvent,
  date: string,
  deps: { readonly ids: () => string; readonly now: Date },
): { readonly posting: Posting; readonly change: LoanChange } => {
  const { payments } = locked
  const fees = locked.returned === null ? null : locked.returned.map(returnFeeOf)
  const change = postChange({ loan: locked.loan, ledger: ledgerOf(locked.latest), checkpoint: locked.loan.checkpoint, payments, fees, event, date, ids: deps.ids, now: deps.now })
  const byId = new Map((payments ?? []).map((p) => [p.id, p]))
  const reallocated = change.reallocated.map((r): Payment => ({ ...byId.get(r.id)!, allocation: r.allocation, perInstallment: r.perInstallment }))
  const last = change.transactions[change.transactions.length - 1]
  const snapshot = snapshotOf(change.derived, locked.loan.id, last?.id ?? locked.latest.transactionId, deps.ids(), deps.now)
  const moved = change.transactions.length > 0 || !sameFigures(snapshot, locked.latest)
  const { oldestUnpaidDueDate } = change.derived
  const status = statusChange(locked.loan, change.derived)
  const after: Loan = { ...locked.loan, status: status.loanStatus ?? locked.loan.status, oldestUnpaidDueDate, checkpoint: change.checkpoint }
  return {
    change,
    posting: {
      transactions: change.transactions,
      installments: change.derived.installments.map(({ status: _status, ...i }) => i),
      balance: moved ? snapshot : null,
      payments: reallocated,
      ...status,
      checkpoint: change.checkpoint,
      ...(oldestUnpaidDueDate === locked.loan.oldestUnpaidDueDate ? {} : { oldestUnpaidDueDate }),
      audit: null,
      events: changeEvents(locked, after, change.transactions, date, deps),
    },
  }
}
