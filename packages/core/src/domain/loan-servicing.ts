import { monthlyInterest } from './amortization.js'
import type { BalanceSnapshot, InstallmentStatus, LedgerTransaction, Loan, LoanInstallment, LoanStatus } from './loan.js'
import type { LoanId, PaymentId } from './ids.js'

/**
 * Servicing rules over a loan's state, as pure functions (docs/servicing.md): interest
 * accrual on due dates, the payment waterfall, reversals, installment status and the balance
 * figures. The repository locks the loan, hands its state here and writes what comes back.
 */

/** What is owed in each bucket. */
export type Buckets = { readonly principal: number; readonly interest: number; readonly fees: number }

export const ZERO: Buckets = { principal: 0, interest: 0, fees: 0 }

const add = (a: Buckets, b: Buckets): Buckets => ({ principal: a.principal + b.principal, interest: a.interest + b.interest, fees: a.fees + b.fees })
const total = (b: Buckets): number => b.principal + b.interest + b.fees
/** `-n` without a negative zero (which JSON would hide but deep equality would not). */
const negate = (n: number): number => (n === 0 ? 0 : -n)

/** An installment as servicing sees it: what is due, what is paid, whether its interest is accrued. */
export type ServicedInstallment = LoanInstallment

/** The state servicing works on: the loan, its installments by number, and what is outstanding. */
export type LoanState = {
  readonly loan: Loan
  readonly installments: readonly ServicedInstallment[]
  readonly outstanding: Buckets
}

const paidOf = (i: ServicedInstallment): Buckets => ({ principal: i.principalPaid, interest: i.interestPaid, fees: i.feesPaid })

/** What is still owed on an installment: only accrued interest counts as owed. */
const remainingOf = (i: ServicedInstallment): Buckets => ({
  principal: i.principalDue - i.principalPaid,
  interest: i.interestAccrued ? i.interestDue - i.interestPaid : 0,
  fees: i.feesDue - i.feesPaid,
})

/**
 * Status of an installment as of `asOf` (docs/servicing.md "Schedule"). An installment whose
 * due date has come owes its interest even before the accrual job has posted it (then the
 * projection stands in for it), unless no principal is left to bear interest.
 */
export const installmentStatus = (i: ServicedInstallment, asOf: string, principalOutstanding: number): InstallmentStatus => {
  const notYetDue = i.dueDate > asOf
  const unpostedInterest = !i.interestAccrued && !notYetDue && principalOutstanding > 0 ? i.interestDue - i.interestPaid : 0
  const owed = total(remainingOf(i)) + unpostedInterest
  const paid = total(paidOf(i))
  if (owed === 0 && (!notYetDue || principalOutstanding === 0)) return 'PAID'
  if (i.dueDate < asOf) return 'LATE'
  if (paid > 0) return 'PARTIALLY_PAID'
  return notYetDue ? 'UPCOMING' : 'DUE'
}

/**
 * Interest for every installment due on or before `asOf` and not yet accrued, in order, each
 * on the principal outstanding (30/360, rounded half up). Returns the new state and one
 * `INTEREST_ACCRUAL` entry per installment with interest (a zero accrual is marked, not posted).
 */
export const accrueInterest = (
  state: LoanState,
  asOf: string,
  ids: () => string,
  now: Date,
): { readonly state: LoanState; readonly transactions: readonly LedgerTransaction[] } => {
  const transactions: LedgerTransaction[] = []
  let outstanding = state.outstanding
  const installments = state.installments.map((i) => {
    if (i.interestAccrued || i.dueDate > asOf) return i
    const interest = monthlyInterest(outstanding.principal, state.loan.interestRateBps)
    outstanding = add(outstanding, { principal: 0, interest, fees: 0 })
    if (interest > 0) {
      transactions.push({
        id: ids(),
        loanId: state.loan.id,
        type: 'INTEREST_ACCRUAL',
        effectiveDate: i.dueDate,
        amount: interest,
        principal: 0,
        interest,
        fees: 0,
        paymentId: null,
        reversesId: null,
        createdAt: now,
      })
    }
    return { ...i, interestDue: interest, interestAccrued: true }
  })
  return { state: { ...state, installments, outstanding }, transactions }
}

/** What a payment paid: past due first, then the current buckets. */
export type Allocation = { readonly pastDue: Buckets; readonly current: Buckets }

/** Per installment (by number), what a payment paid on it: kept so a reversal can undo it exactly. */
export type InstallmentPayments = readonly { readonly number: number; readonly paid: Buckets }[]

const take = (available: number, owed: number): number => Math.max(0, Math.min(available, owed))

/** Pays `want` of an installment's buckets, fees → interest → principal, from `available`. */
const payBuckets = (available: number, owed: Buckets): Buckets => {
  const fees = take(available, owed.fees)
  const interest = take(available - fees, owed.interest)
  const principal = take(available - fees - interest, owed.principal)
  return { principal, interest, fees }
}

/** The payoff: everything outstanding now (principal, accrued interest, fees). */
export const payoffOf = (state: LoanState): number => total(state.outstanding)

/**
 * Allocates `amount` (≤ payoff) by the waterfall of docs/servicing.md: installments past due
 * (due before `asOf`), oldest first, fees → interest → principal in each; then the rest of
 * fees, then accrued interest, then principal, installments oldest first.
 */
export const allocatePayment = (
  state: LoanState,
  amount: number,
  asOf: string,
): { readonly state: LoanState; readonly allocation: Allocation; readonly perInstallment: InstallmentPayments } => {
  let left = amount
  const paid = new Map<number, Buckets>()
  const pay = (number: number, b: Buckets) => {
    paid.set(number, add(paid.get(number) ?? ZERO, b))
    left -= total(b)
  }
  const current = () => state.installments.map((i) => applyPaid(i, paid.get(i.number) ?? ZERO))

  let pastDue = ZERO
  for (const i of state.installments) {
    if (i.dueDate >= asOf || left === 0) continue
    const b = payBuckets(left, remainingOf(i))
    pastDue = add(pastDue, b)
    pay(i.number, b)
  }
  let now = ZERO
  for (const bucket of ['fees', 'interest', 'principal'] as const) {
    for (const i of current()) {
      if (left === 0) break
      const owed = remainingOf(i)[bucket]
      const part = take(left, owed)
      if (part === 0) continue
      const b = { ...ZERO, [bucket]: part }
      now = add(now, b)
      pay(i.number, b)
    }
  }
  const installments = current()
  const applied = add(pastDue, now)
  const outstanding = { principal: state.outstanding.principal - applied.principal, interest: state.outstanding.interest - applied.interest, fees: state.outstanding.fees - applied.fees }
  const perInstallment = [...paid.entries()].sort(([a], [b]) => a - b).map(([number, b]) => ({ number, paid: b }))
  return { state: { ...state, installments, outstanding }, allocation: { pastDue, current: now }, perInstallment }
}

const applyPaid = (i: ServicedInstallment, b: Buckets): ServicedInstallment => ({
  ...i,
  principalPaid: i.principalPaid + b.principal,
  interestPaid: i.interestPaid + b.interest,
  feesPaid: i.feesPaid + b.fees,
})

/** Undoes what a payment paid on each installment (a reversal). */
const unapplyPayment = (state: LoanState, perInstallment: InstallmentPayments): LoanState => {
  const byNumber = new Map(perInstallment.map((p) => [p.number, p.paid]))
  const back = perInstallment.reduce((sum, p) => add(sum, p.paid), ZERO)
  return {
    ...state,
    installments: state.installments.map((i) => {
      const b = byNumber.get(i.number)
      return b === undefined ? i : applyPaid(i, { principal: negate(b.principal), interest: negate(b.interest), fees: negate(b.fees) })
    }),
    outstanding: add(state.outstanding, back),
  }
}

/**
 * Past due and next due as of `asOf`. The next installment is the first due on or after `asOf`
 * that still owes something; until its interest accrues, its projected interest counts, unless
 * no principal is left (then no interest can accrue).
 */
export const dueFigures = (
  installments: readonly ServicedInstallment[],
  asOf: string,
): { readonly pastDueAmount: number; readonly nextDueDate: string | null; readonly nextDueAmount: number | null } => {
  const principalLeft = installments.reduce((sum, i) => sum + i.principalDue - i.principalPaid, 0)
  const nextOwed = (i: ServicedInstallment): number =>
    total(remainingOf(i)) + (!i.interestAccrued && principalLeft > 0 ? i.interestDue - i.interestPaid : 0)
  const pastDueAmount = installments.filter((i) => i.dueDate < asOf).reduce((sum, i) => sum + total(remainingOf(i)), 0)
  const next = installments.find((i) => i.dueDate >= asOf && nextOwed(i) > 0)
  return { pastDueAmount, nextDueDate: next?.dueDate ?? null, nextDueAmount: next === undefined ? null : nextOwed(next) }
}

/** The schedule's totals still owed (accrued interest only): must equal `outstanding`. */
export const scheduleOwed = (installments: readonly ServicedInstallment[]): Buckets =>
  installments.reduce((sum, i) => add(sum, remainingOf(i)), ZERO)

/** The sum of a ledger's bucket changes. */
export const ledgerSums = (transactions: readonly Pick<LedgerTransaction, 'principal' | 'interest' | 'fees'>[]): Buckets =>
  transactions.reduce((sum, t) => add(sum, { principal: t.principal, interest: t.interest, fees: t.fees }), ZERO)


/** The state of a just-booked loan: nothing accrued, nothing paid. */
export const servicingStateOf = (booked: {
  readonly loan: Loan
  readonly installments: readonly LoanInstallment[]
  readonly balance: { readonly principalOutstanding: number; readonly interestOutstanding: number; readonly feesOutstanding: number }
}): LoanState => ({
  loan: booked.loan,
  installments: booked.installments,
  outstanding: { principal: booked.balance.principalOutstanding, interest: booked.balance.interestOutstanding, fees: booked.balance.feesOutstanding },
})

/** The `PAYMENT` ledger entry of an allocation: every bucket goes down by what was paid in it. */
export const paymentEntry = (
  loanId: LoanId,
  paymentId: PaymentId,
  allocation: Allocation,
  effectiveDate: string,
  id: string,
  now: Date,
): LedgerTransaction => {
  const paid = add(allocation.pastDue, allocation.current)
  return {
    id,
    loanId,
    type: 'PAYMENT',
    effectiveDate,
    amount: total(paid),
    principal: negate(paid.principal),
    interest: negate(paid.interest),
    fees: negate(paid.fees),
    paymentId,
    reversesId: null,
    createdAt: now,
  }
}

/** The `REVERSAL` of a payment entry, and the state with that payment undone. */
export const reversePayment = (
  state: LoanState,
  payment: LedgerTransaction,
  perInstallment: InstallmentPayments,
  effectiveDate: string,
  id: string,
  now: Date,
): { readonly state: LoanState; readonly transaction: LedgerTransaction } => ({
  state: unapplyPayment(state, perInstallment),
  transaction: {
    id,
    loanId: payment.loanId,
    type: 'REVERSAL',
    effectiveDate,
    amount: payment.amount,
    principal: negate(payment.principal),
    interest: negate(payment.interest),
    fees: negate(payment.fees),
    paymentId: payment.paymentId,
    reversesId: payment.id,
    createdAt: now,
  },
})

/** The balance snapshot of `state` as of `asOf`, after the ledger entry `transactionId`. */
export const snapshotOf = (state: LoanState, asOf: string, transactionId: string, id: string, now: Date): BalanceSnapshot => ({
  id,
  loanId: state.loan.id,
  transactionId,
  asOf,
  principalOutstanding: state.outstanding.principal,
  interestOutstanding: state.outstanding.interest,
  feesOutstanding: state.outstanding.fees,
  payoffAmount: total(state.outstanding),
  ...dueFigures(state.installments, asOf),
  createdAt: now,
})

/** Whether two snapshots tell the same figures (ignoring identity, time and date). */
export const sameFigures = (a: BalanceSnapshot, b: BalanceSnapshot): boolean =>
  a.principalOutstanding === b.principalOutstanding &&
  a.interestOutstanding === b.interestOutstanding &&
  a.feesOutstanding === b.feesOutstanding &&
  a.pastDueAmount === b.pastDueAmount &&
  a.nextDueDate === b.nextDueDate &&
  a.nextDueAmount === b.nextDueAmount

/**
 * The loan's status after a change, if it moves: `PAID_OFF` once nothing is owed (a payoff),
 * `ACTIVE` again if a reversal brings a debt back. Charged-off loans stay charged off.
 */
export const statusChange = (state: LoanState): { readonly loanStatus?: LoanStatus } => {
  if (state.loan.status === 'CHARGED_OFF') return {}
  const next: LoanStatus = total(state.outstanding) === 0 ? 'PAID_OFF' : 'ACTIVE'
  return next === state.loan.status ? {} : { loanStatus: next }
}
