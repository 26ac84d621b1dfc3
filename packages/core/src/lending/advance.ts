import { accrue, accrueTo } from './accrual.js'
import { total } from './buckets.js'
import { chargesLateFees, lateFeeDate, lateFeeOn } from './late-fees.js'
import { firstOpen, owedOn, type ReplayState, type Rules, type Working } from './replay-state.js'

/** An installment's due date comes: its stretch is cut and its interest is final, unless it is the last and principal is still owed. */
const reachDueDate = (state: ReplayState, rules: Rules, due: Working): void => {
  accrueTo(state, rules, due.dueDate)
  due.reached = true
  if (due !== state.installments.at(-1) || state.principal === 0) due.closed = true
  state.open = firstOpen(state.installments)
}

/**
 * An installment's late-fee date comes: it is charged on what it still owes that day, for the
 * open installment (the last, after maturity) the interest accrued to that day included.
 */
const chargeLateFee = (state: ReplayState, rules: Rules, late: Working): void => {
  late.feeChecked = true
  const accruing = state.installments.indexOf(late) === state.open ? accrue(rules.counter, state.principal, rules.rateBps, state.cursor, lateFeeDate(rules.lateFee, late.dueDate), state.charged) : 0
  const fee = lateFeeOn(rules.lateFee, total(owedOn(late)) + accruing, state.charged + accruing)
  late.feesDue += fee
  state.charged += fee
}

/** Moves the replay to the start of `date`: due dates and late-fee dates on or before it, in date order (a due date first on a tie). */
export const advance = (state: ReplayState, rules: Rules, date: string): void => {
  const chargesFees = chargesLateFees(rules.lateFee)
  const feeDate = (i: Working): string => lateFeeDate(rules.lateFee, i.dueDate)
  for (;;) {
    const due = state.installments.find((i) => !i.reached && i.dueDate <= date)
    const fee = chargesFees ? state.installments.find((i) => i.reached && !i.feeChecked && feeDate(i) <= date) : undefined
    if (due === undefined && fee === undefined) return
    if (due !== undefined && (fee === undefined || due.dueDate <= feeDate(fee))) reachDueDate(state, rules, due)
    else chargeLateFee(state, rules, fee!)
  }
}
