import type { PaymentId } from '../domain/foundations/ids.js'
import type { Allocation, AppliedPayment, InstallmentPayments } from './apply-payment.js'
import { add, sameBuckets, subtract, total, ZERO, negated, type Buckets } from './buckets.js'
import type { DerivedLoan } from './derived-loan.js'
import { allocated, entry, paymentEntry } from './ledger-entries.js'
import type { LedgerTransaction, LoanStatus, ServicedLoan } from './loan-records.js'
import type { ServicingCheckpoint } from './replay-state.js'
import { replay, type SettledPayment } from './replay.js'
import type { ReturnFee } from './return-fees.js'

/** A payment as the ledger knows it: its allocation (null for a failed one) and its `PAYMENT` entry. */
export type PostedPayment = {
  readonly id: PaymentId
  readonly amount: number
  readonly effectiveDate: string
  readonly createdAt: Date
  readonly allocation: Allocation | null
  readonly perInstallment: InstallmentPayments
  readonly transactionId: string | null
}

/**
 * What changes a loan: a payment taken, a payment reversed, a bank debit returned (reversed, and
 * its returned-payment fee `fee` charged, 0 for none), or only time (the daily job).
 */
export type LoanEvent =
  | { readonly type: 'PAYMENT'; readonly payment: SettledPayment }
  | { readonly type: 'REVERSAL'; readonly payment: PostedPayment }
  | { readonly type: 'RETURN'; readonly payment: PostedPayment; readonly fee: number }
  | { readonly type: 'TIME' }

/** What `postChange` posts. */
export type LoanChange = {
  readonly transactions: readonly LedgerTransaction[]
  readonly allocation: (AppliedPayment & { readonly transactionId: string }) | null
  /** Earlier payments the replay re-allocated. */
  readonly reallocated: readonly ({ readonly id: PaymentId } & AppliedPayment)[]
  readonly derived: DerivedLoan
  readonly checkpoint: ServicingCheckpoint
}

const sameAllocation = (next: AppliedPayment, posted: PostedPayment): boolean =>
  posted.allocation !== null &&
  sameBuckets(next.allocation.pastDue, posted.allocation.pastDue) &&
  sameBuckets(next.allocation.current, posted.allocation.current) &&
  next.perInstallment.length === posted.perInstallment.length &&
  next.perInstallment.every((p, k) => p.number === posted.perInstallment[k]!.number && sameBuckets(p.paid, posted.perInstallment[k]!.paid))

/** Whether `event` on `date` resumes from `checkpoint`: a payment or time on or after it; a reversal or a return replays from booking. */
export const resumes = (checkpoint: ServicingCheckpoint | null, event: LoanEvent, date: string): checkpoint is ServicingCheckpoint =>
  checkpoint !== null && event.type !== 'REVERSAL' && event.type !== 'RETURN' && date >= checkpoint.date && (event.type !== 'PAYMENT' || event.payment.effectiveDate >= checkpoint.date)

/**
 * The entries that bring the ledger (bucket sums `ledger`) to the state derived on `date` after
 * `event`, resumed from `checkpoint` or replayed from booking with `payments` (required then) and
 * the returned payments' `fees` (none when left out): the interest and late fees since the last posting (negative
 * when a replay lowers them), the event's entry (a return's followed by its `RETURN_FEE`: what the
 * replay charged for it), then a zero-sum `REALLOCATION` for each earlier payment the replay
 * applies differently.
 */
export const postChange = (args: {
  readonly loan: ServicedLoan
  readonly ledger: Buckets
  readonly checkpoint: ServicingCheckpoint | null
  readonly payments: readonly PostedPayment[] | null
  readonly fees?: readonly ReturnFee[] | null
  readonly event: LoanEvent
  readonly date: string
  readonly ids: () => string
  readonly now: Date
}): LoanChange => {
  const { loan, event, date, now } = args
  const resumed = resumes(args.checkpoint, event, date)
  const reversedId = event.type === 'REVERSAL' || event.type === 'RETURN' ? event.payment.id : null
  if (!resumed && args.payments === null) throw new Error(`postChange: loan ${loan.id} is replayed from booking but its payments were not given`)
  if (!resumed && args.fees === null) throw new Error(`postChange: loan ${loan.id} is replayed from booking but its returned payments' fees were not given`)
  const settled = resumed ? [] : (args.payments ?? []).filter((p) => p.allocation !== null && p.id !== reversedId)
  const fresh = event.type === 'PAYMENT' ? [event.payment] : []
  const ownFee: ReturnFee[] = event.type === 'RETURN' && event.fee > 0 ? [{ paymentId: event.payment.id, amount: event.fee, date, createdAt: now }] : []
  const fees = [...(args.fees ?? []).filter((f) => f.paymentId !== reversedId), ...ownFee]
  const { derived, checkpoint } = resumed ? replay(loan, args.checkpoint, fresh, date) : replay(loan, null, [...settled, ...fresh], date, fees)
  let ledger = args.ledger
  const later: LedgerTransaction[] = []
  let allocation: LoanChange['allocation'] = null
  if (event.type === 'PAYMENT') {
    const mine = derived.allocations.get(event.payment.id)!
    const posted = paymentEntry(loan.id, event.payment.id, mine.allocation, date, args.ids(), now)
    later.push(posted)
    ledger = subtract(ledger, allocated(mine.allocation))
    allocation = { ...mine, transactionId: posted.id }
  }
  // A return's fee is its own entry, after the return's; the fees left to post are late fees.
  const returnFee = event.type === 'RETURN' ? (derived.returnFees.get(event.payment.id) ?? 0) : 0
  if (event.type === 'REVERSAL' || event.type === 'RETURN') {
    const undone = allocated(event.payment.allocation!)
    later.push(entry(loan.id, 'REVERSAL', undone, total(undone), date, args.ids(), now, { paymentId: event.payment.id, reversesId: event.payment.transactionId ?? undefined }))
    ledger = add(ledger, undone)
    if (returnFee > 0) {
      later.push(entry(loan.id, 'RETURN_FEE', { ...ZERO, fees: returnFee }, returnFee, date, args.ids(), now, { paymentId: event.payment.id }))
      ledger = add(ledger, { ...ZERO, fees: returnFee })
    }
  }
  const reallocated: LoanChange['reallocated'][number][] = []
  for (const p of settled) {
    const next = derived.allocations.get(p.id)
    if (next === undefined || sameAllocation(next, p)) continue
    const moved = subtract(allocated(next.allocation), allocated(p.allocation!))
    if (!sameBuckets(moved, ZERO)) {
      const shifted = [moved.principal, moved.interest, moved.fees].filter((n) => n > 0).reduce((a, b) => a + b, 0)
      later.push(entry(loan.id, 'REALLOCATION', negated(moved), shifted, date, args.ids(), now, { paymentId: p.id }))
      ledger = subtract(ledger, moved)
    }
    reallocated.push({ id: p.id, ...next })
  }
  const charges = subtract(derived.outstanding, ledger)
  if (charges.principal !== 0) throw new Error(`postChange: principal does not reconcile on loan ${loan.id} (${charges.principal})`)
  const first: LedgerTransaction[] = []
  if (charges.interest !== 0) first.push(entry(loan.id, 'INTEREST_ACCRUAL', { ...ZERO, interest: charges.interest }, Math.abs(charges.interest), date, args.ids(), now))
  if (charges.fees !== 0) first.push(entry(loan.id, 'LATE_FEE', { ...ZERO, fees: charges.fees }, Math.abs(charges.fees), date, args.ids(), now))
  return { transactions: [...first, ...later], allocation, reallocated, derived, checkpoint }
}

/** The status after a change, if it moves: `PAID_OFF` once nothing is owed, `ACTIVE` when a debt returns; charged off stays. */
export const statusChange = (loan: Pick<ServicedLoan, 'status'>, derived: DerivedLoan): { readonly loanStatus?: LoanStatus } => {
  if (loan.status === 'CHARGED_OFF') return {}
  const next: LoanStatus = derived.payoff === 0 ? 'PAID_OFF' : 'ACTIVE'
  return next === loan.status ? {} : { loanStatus: next }
}
