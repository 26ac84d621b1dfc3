import { amortizeOver, levelPaymentFor } from './amortization.js'
import type { Rules } from './replay-state.js'

export type Remaining = readonly { readonly dueDate: string; readonly principalDue: number; readonly principalPaid: number }[]

/** The principal due of the installments kept, in order, and the level payment from now on. */
export type Recast = { readonly principalDue: readonly number[]; readonly level: number }

/**
 * The installments after a prepayment of `prepaid`, re-amortized from `from`: `REDUCE_INSTALLMENT`
 * keeps the due dates at a new level payment, `REDUCE_TERM` keeps `level` and ends sooner.
 */
export const recast = (rules: Rules, future: Remaining, prepaid: number, from: string, level: number): Recast => {
  const remaining = future.reduce((sum, i) => sum + i.principalDue - i.principalPaid, 0) - prepaid
  if (remaining === 0) return { principalDue: [], level }
  const dueDates = future.map((i) => i.dueDate)
  const payment = rules.prepayment === 'REDUCE_INSTALLMENT' ? levelPaymentFor(remaining, rules.rateBps, rules.counter, from, dueDates) : level
  const rows = amortizeOver({ principal: remaining, annualRateBps: rules.rateBps, counter: rules.counter, from, dueDates }, payment)
  const kept = rules.prepayment === 'REDUCE_TERM' ? rows.findIndex((r) => r.balanceAfter === 0) + 1 : rows.length
  return { principalDue: rows.slice(0, kept).map((r, k) => future[k]!.principalPaid + r.principal), level: payment }
}
