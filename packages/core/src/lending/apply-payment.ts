import { accrueTo } from './accrual.js'
import { add, total, ZERO, type Buckets } from './buckets.js'
import { recast } from './recast.js'
import { firstOpen, owedOn, type ReplayState, type Rules, type Working } from './replay-state.js'
import { allocate, take } from './waterfall.js'

/** What a payment paid: past due first, then the current buckets. */
export type Allocation = { readonly pastDue: Buckets; readonly current: Buckets }

/** Per installment (by number), what a payment paid on it. */
export type InstallmentPayments = readonly { readonly number: number; readonly paid: Buckets }[]

/** A payment as the replay applied it: its allocation, in all and per installment. */
export type AppliedPayment = { readonly allocation: Allocation; readonly perInstallment: InstallmentPayments }

/**
 * Applies `amount` paid on `date` (docs/servicing.md "Payments"): past-due installments oldest
 * first by the waterfall; then, bucket by bucket in its order, what is not yet past due (principal
 * of the current installment only); then a prepayment, which recasts the rest.
 */
export const applyPayment = (state: ReplayState, rules: Rules, amount: number, date: string): AppliedPayment => {
  accrueTo(state, rules, date)
  const inst = state.installments
  let left = amount
  let pastDue = ZERO
  let current = ZERO
  const paid = new Map<number, Buckets>()
  const pay = (i: Working, part: Buckets, into: 'pastDue' | 'current'): void => {
    i.principalPaid += part.principal
    i.interestPaid += part.interest
    i.feesPaid += part.fees
    paid.set(i.number, add(paid.get(i.number) ?? ZERO, part))
    left -= total(part)
    if (into === 'pastDue') pastDue = add(pastDue, part)
    else current = add(current, part)
  }
  for (const i of inst) {
    if (i.dueDate < date && left > 0) pay(i, allocate(left, owedOn(i), rules.order), 'pastDue')
  }
  const notPastDue = inst.filter((i) => i.dueDate >= date)
  const currentIndex = inst.findIndex((i) => i.dueDate >= date && owedOn(i).principal > 0)
  for (const bucket of rules.order) {
    if (bucket === 'principal') {
      if (currentIndex >= 0) pay(inst[currentIndex]!, { ...ZERO, principal: take(left, owedOn(inst[currentIndex]!).principal) }, 'current')
      continue
    }
    for (const i of notPastDue) {
      const part = take(left, owedOn(i)[bucket])
      if (part > 0) pay(i, { ...ZERO, [bucket]: part }, 'current')
    }
  }
  if (currentIndex >= 0) {
    const i = inst[currentIndex]!
    const prepaid = take(left, inst.slice(currentIndex + 1).reduce((sum, j) => sum + j.principalDue - j.principalPaid, 0))
    if (prepaid > 0) {
      i.principalDue += prepaid
      pay(i, { ...ZERO, principal: prepaid }, 'current')
      const future = inst.slice(currentIndex + 1)
      const recastTo = recast(rules, future, prepaid, date, state.level)
      recastTo.principalDue.forEach((due, k) => {
        future[k]!.principalDue = due
      })
      inst.splice(currentIndex + 1 + recastTo.principalDue.length)
      state.level = recastTo.level
    }
  }
  for (const i of inst) {
    if (paid.has(i.number) && !i.closed && total(owedOn(i)) === 0) i.closed = true
  }
  state.open = firstOpen(inst)
  state.principal -= pastDue.principal + current.principal
  const perInstallment = [...paid.entries()].filter(([, b]) => total(b) > 0).sort(([a], [b]) => a - b).map(([number, b]) => ({ number, paid: b }))
  return { allocation: { pastDue, current }, perInstallment }
}
