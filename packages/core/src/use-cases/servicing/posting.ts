import { dateIn } from '../../domain/loans/servicing-terms.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import { postChange, resumes, sameFigures, snapshotOf, statusChange, type Buckets, type LoanChange, type LoanEvent, type SettledPayment } from '../../lending/index.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { BalanceSnapshot, Loan } from '../../domain/loans/loan.js'
import type { LockedLoan, PaymentReads, Posting } from '../../ports/loan-repository.js'

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

/** A locked loan with its successful payments when a change must replay it from booking (null when it resumes). */
export type LoadedLoan = LockedLoan & { readonly payments: readonly Payment[] | null }

/** The locked loan with its successful payments when `event` must replay from booking (reversal, no checkpoint). */
export const loadFor = (locked: LockedLoan, reads: PaymentReads, event: LoanEvent, date: string): TE.TaskEither<StoreUnavailable, LoadedLoan> =>
  resumes(locked.loan.checkpoint, event, date)
    ? TE.right({ ...locked, payments: null })
    : pipe(
        reads.succeeded(locked.loan.id),
        TE.map((payments) => ({ ...locked, payments })),
      )

/** A posting that writes nothing but (maybe) `payment`. */
export const nothing = (locked: Pick<LockedLoan, 'installments'>, payment?: Payment): Posting => ({
  transactions: [],
  installments: locked.installments,
  balance: null,
  audit: NOT_AUDITED,
  payments: payment === undefined ? [] : [payment],
})

/** A successful payment as the replay takes it. */
export const settled = (p: Pick<Payment, 'id' | 'amount' | 'effectiveDate' | 'createdAt'>): SettledPayment => ({
  id: p.id,
  amount: p.amount,
  effectiveDate: p.effectiveDate,
  createdAt: p.createdAt,
})

/**
 * Posts `event` as of `date` (`payments` null resumes from the checkpoint): entries to the derived state, the
 * schedule, a snapshot when something moved, re-allocated payments (not the event's own) and a status change.
 */
export const post = (
  locked: LockedLoan,
  payments: readonly Payment[] | null,
  event: LoanEvent,
  date: string,
  deps: { readonly ids: () => string; readonly now: Date },
): { readonly posting: Posting; readonly change: LoanChange } => {
  const change = postChange({ loan: locked.loan, ledger: ledgerOf(locked.latest), checkpoint: locked.loan.checkpoint, payments, event, date, ids: deps.ids, now: deps.now })
  const byId = new Map((payments ?? []).map((p) => [p.id, p]))
  const reallocated = change.reallocated.map((r): Payment => ({ ...byId.get(r.id)!, allocation: r.allocation, perInstallment: r.perInstallment }))
  const last = change.transactions[change.transactions.length - 1]
  const snapshot = snapshotOf(change.derived, locked.loan.id, last?.id ?? locked.latest.transactionId, deps.ids(), deps.now)
  const moved = change.transactions.length > 0 || !sameFigures(snapshot, locked.latest)
  const { oldestUnpaidDueDate } = change.derived
  return {
    change,
    posting: {
      transactions: change.transactions,
      installments: change.derived.installments.map(({ status: _status, ...i }) => i),
      balance: moved ? snapshot : null,
      payments: reallocated,
      ...statusChange(locked.loan, change.derived),
      checkpoint: change.checkpoint,
      ...(oldestUnpaidDueDate === locked.loan.oldestUnpaidDueDate ? {} : { oldestUnpaidDueDate }),
      audit: null,
    },
  }
}
