import type { PaymentId } from '../domain/foundations/ids.js'
import { accrue, headroom } from './accrual.js'
import { total } from './buckets.js'
import { owedOn, type ReplayState, type Rules } from './replay-state.js'

/**
 * The returned-payment fee of a bank debit its bank sent back (docs/servicing.md "Returns"): a
 * replay input beside the payments, charged on `date` (the day the return was applied), before
 * that day's payments; `amount` is the loan's fee, frozen at booking.
 */
export type ReturnFee = { readonly paymentId: PaymentId; readonly amount: number; readonly date: string; readonly createdAt: Date }

/**
 * Charges a returned-payment fee of `amount` on `date` to the oldest installment owing anything
 * that day (for the open one, the interest accrued to the day included), the last when none does,
 * as a fee it owes, within the ceiling a loan is ever charged (`headroom`); what it charged.
 */
export const chargeReturnFee = (state: ReplayState, rules: Rules, amount: number, date: string): number => {
  const accruing = accrue(rules.counter, state.principal, rules.rateBps, state.cursor, date, state.charged)
  const owing = state.installments.find((i, k) => total(owedOn(i)) + (k === state.open ? accruing : 0) > 0) ?? state.installments.at(-1)!
  const fee = Math.min(amount, headroom(state.charged))
  owing.feesDue += fee
  state.charged += fee
  return fee
}
