import type { PaymentId } from '../domain/foundations/ids.js'
import { accrue, headroom } from './accrual.js'
import type { AppliedPayment } from './apply-payment.js'
import { add, total, ZERO, type Buckets } from './buckets.js'
import { interestBetween } from './day-count.js'
import { daysPastDueSince } from './delinquency.js'
import type { InstallmentStatus, Loan, LoanInstallment, ServicedLoan } from './loan-records.js'
import type { ReplayState, Rules } from './replay-state.js'

/** An installment as servicing shows it: what is due, what is paid, whether its interest is final. */
export type ServicedInstallment = LoanInstallment

/** An installment with its status on the date it was derived for. */
export type ScheduledInstallment = ServicedInstallment & { readonly status: InstallmentStatus }

/** A loan as derived for `asOf` from its terms and payments. */
export type DerivedLoan = {
  readonly asOf: string
  readonly installments: readonly ScheduledInstallment[]
  readonly outstanding: Buckets
  readonly payoff: number
  readonly pastDueAmount: number
  readonly nextDueDate: string | null
  /** The next installment's unpaid principal and fees and its interest projected to its due date. */
  readonly nextDueAmount: number | null
  readonly daysPastDue: number
  /** The due date of the first installment that still owes something (null when none does): what the loan's delinquency is judged from between postings. */
  readonly oldestUnpaidDueDate: string | null
  readonly allocations: ReadonlyMap<PaymentId, AppliedPayment>
  /** What each returned payment's fee the replay charged came to (at most its amount: the ceiling). */
  readonly returnFees: ReadonlyMap<PaymentId, number>
}

/** What pays the loan off on `asOf`, by bucket. */
export type PayoffQuote = { readonly loan: Loan; readonly asOf: string; readonly outstanding: Buckets; readonly payoff: number }

/** What an installment still owes: its principal, interest and fees due, less what was paid of each. */
export const unpaidOf = (i: LoanInstallment): number => i.principalDue - i.principalPaid + (i.interestDue - i.interestPaid) + (i.feesDue - i.feesPaid)

/** An installment's status on `asOf` (docs/servicing.md "Schedule"); `settled`: the loan owes no principal. */
export const installmentStatus = (i: LoanInstallment, asOf: string, settled: boolean): InstallmentStatus => {
  if (unpaidOf(i) === 0 && (i.interestAccrued || settled)) return 'PAID'
  if (i.dueDate < asOf) return 'LATE'
  if (i.principalPaid + i.interestPaid + i.feesPaid > 0) return 'PARTIALLY_PAID'
  return i.dueDate === asOf ? 'DUE' : 'UPCOMING'
}

/**
 * The loan on `asOf` from a state advanced to it: the open stretch's interest counted without
 * closing it, each installment not yet due projected to its due date on the principal from it on.
 */
export const derivedAt = (
  loan: Pick<ServicedLoan, 'id'>,
  rules: Rules,
  state: ReplayState,
  asOf: string,
  allocations: ReadonlyMap<PaymentId, AppliedPayment>,
  returnFees: ReadonlyMap<PaymentId, number>,
): DerivedLoan => {
  const { installments: inst, open, cursor } = state
  const pending = accrue(rules.counter, state.principal, rules.rateBps, cursor, asOf, state.charged)
  const accruedOf = (k: number): number => inst[k]!.interest + (k === open ? pending : 0)
  const outstanding = inst.reduce((sum, i, k) => add(sum, { principal: i.principalDue - i.principalPaid, interest: accruedOf(k) - i.interestPaid, fees: i.feesDue - i.feesPaid }), ZERO)
  // Projections share what is left under the ceiling, in due-date order, so no sum of the schedule passes it.
  let room = headroom(state.charged + pending)
  const principalFrom: number[] = new Array<number>(inst.length)
  for (let k = inst.length - 1, after = 0; k >= 0; k--) principalFrom[k] = after += inst[k]!.principalDue - inst[k]!.principalPaid
  const projectedOf = (k: number): number => {
    const i = inst[k]!
    if (i.closed || i.dueDate <= asOf || k < open) return 0
    const from = k === open ? (cursor > asOf ? cursor : asOf) : inst[k - 1]!.dueDate
    const projected = Math.min(interestBetween(rules.counter, principalFrom[k]!, rules.rateBps, from, i.dueDate), room)
    room -= projected
    return projected
  }
  const installments = inst.map((i, k): ScheduledInstallment => {
    const row: ServicedInstallment = {
      loanId: loan.id,
      number: i.number,
      dueDate: i.dueDate,
      principalDue: i.principalDue,
      interestDue: accruedOf(k) + projectedOf(k),
      feesDue: i.feesDue,
      principalPaid: i.principalPaid,
      interestPaid: i.interestPaid,
      feesPaid: i.feesPaid,
      interestAccrued: i.closed,
    }
    return { ...row, status: installmentStatus(row, asOf, outstanding.principal === 0) }
  })
  const pastDue = installments.filter((i) => i.dueDate < asOf && unpaidOf(i) > 0)
  const next = installments.find((i) => i.dueDate >= asOf && unpaidOf(i) > 0)
  return {
    asOf,
    installments,
    outstanding,
    payoff: total(outstanding),
    pastDueAmount: pastDue.reduce((sum, i) => sum + unpaidOf(i), 0),
    nextDueDate: next?.dueDate ?? null,
    nextDueAmount: next === undefined ? null : unpaidOf(next),
    daysPastDue: daysPastDueSince(pastDue[0]?.dueDate ?? null, asOf),
    oldestUnpaidDueDate: installments.find((i) => unpaidOf(i) > 0)?.dueDate ?? null,
    allocations,
    returnFees,
  }
}
