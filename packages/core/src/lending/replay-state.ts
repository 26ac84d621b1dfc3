import { amortize } from './amortization.js'
import type { Buckets } from './buckets.js'
import { dayCounter, type DayCounter } from './day-count.js'
import type { ServicedLoan } from './loan-records.js'
import type { ServicingCheckpoint, Working } from './checkpoint.js'
import type { LateFee, PrepaymentMode } from './servicing-terms.js'
import { DEFAULT_ALLOCATION_ORDER, type AllocationOrder } from './waterfall.js'

export type { ServicingCheckpoint, Working }

/** A replay's working state: a checkpoint's fields and `charged`, what the loan was ever charged (paid or not). */
export type ReplayState = {
  principal: number
  cursor: string
  open: number
  level: number
  installments: Working[]
  charged: number
}

export type Rules = {
  readonly counter: DayCounter
  readonly rateBps: number
  readonly lateFee: LateFee
  readonly prepayment: PrepaymentMode
  readonly order: AllocationOrder
}

export const rulesOf = (loan: ServicedLoan): Rules => ({
  counter: dayCounter(loan.dayCount, loan.startDate),
  rateBps: loan.interestRateBps,
  lateFee: loan.lateFee,
  prepayment: loan.prepayment,
  order: loan.allocationOrder ?? DEFAULT_ALLOCATION_ORDER,
})

/** What installment `i` still owes of what has accrued to it. */
export const owedOn = (i: Working): Buckets => ({ principal: i.principalDue - i.principalPaid, interest: i.interest - i.interestPaid, fees: i.feesDue - i.feesPaid })

/** Principal lent, and interest and fees accrued, paid or not: what the ceiling bounds (decision 126). */
const chargedIn = (installments: readonly Working[]): number => installments.reduce((sum, i) => sum + i.principalDue + i.interest + i.feesDue, 0)

/** The state on the day of booking. */
export const bookedState = (loan: ServicedLoan): ReplayState => {
  const schedule = amortize({ principal: loan.principal, annualRateBps: loan.interestRateBps, termMonths: loan.termMonths, startDate: loan.startDate, dayCount: loan.dayCount })
  const installments = schedule.map(
    (i): Working => ({ number: i.number, dueDate: i.dueDate, principalDue: i.principal, interest: 0, feesDue: 0, principalPaid: 0, interestPaid: 0, feesPaid: 0, closed: false, reached: false, feeChecked: false }),
  )
  return { principal: loan.principal, cursor: loan.startDate, open: 0, level: loan.paymentAmount, installments, charged: loan.principal }
}

/** A copy of the state a checkpoint keeps. */
export const resumedState = (from: ServicingCheckpoint): ReplayState => {
  const installments = from.installments.map((i) => ({ ...i }))
  return { principal: from.principal, cursor: from.cursor, open: from.open, level: from.level, installments, charged: chargedIn(installments) }
}

export const checkpointOf = (state: ReplayState, date: string): ServicingCheckpoint => ({
  date,
  principal: state.principal,
  cursor: state.cursor,
  open: state.open,
  level: state.level,
  installments: state.installments.map((i) => ({ ...i })),
})

/** The installment interest accrues to: the earliest not closed (the last, once all have). */
export const firstOpen = (installments: readonly Working[]): number => {
  const k = installments.findIndex((i) => !i.closed)
  return k === -1 ? installments.length - 1 : k
}
