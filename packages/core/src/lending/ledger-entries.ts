import type { LoanId, PaymentId } from '../domain/foundations/ids.js'
import type { Allocation } from './apply-payment.js'
import { add, negated, total, type Buckets } from './buckets.js'
import type { DerivedLoan } from './derived-loan.js'
import type { BalanceSnapshot, LedgerTransaction, TransactionType } from './loan-records.js'

export const entry = (
  loanId: LoanId,
  type: TransactionType,
  change: Buckets,
  amount: number,
  effectiveDate: string,
  id: string,
  now: Date,
  links: { readonly paymentId?: PaymentId; readonly reversesId?: string } = {},
): LedgerTransaction => ({
  id,
  loanId,
  type,
  effectiveDate,
  amount,
  principal: change.principal,
  interest: change.interest,
  fees: change.fees,
  paymentId: links.paymentId ?? null,
  reversesId: links.reversesId ?? null,
  createdAt: now,
})

export const allocated = (a: Allocation): Buckets => add(a.pastDue, a.current)

/** The `PAYMENT` ledger entry of an allocation: every bucket goes down by what was paid in it. */
export const paymentEntry = (loanId: LoanId, paymentId: PaymentId, allocation: Allocation, effectiveDate: string, id: string, now: Date): LedgerTransaction => {
  const paid = allocated(allocation)
  return entry(loanId, 'PAYMENT', negated(paid), total(paid), effectiveDate, id, now, { paymentId })
}

/** The balance snapshot of a derived state, after the ledger entry `transactionId`. */
export const snapshotOf = (derived: DerivedLoan, loanId: LoanId, transactionId: string, id: string, now: Date): BalanceSnapshot => ({
  id,
  loanId,
  transactionId,
  asOf: derived.asOf,
  principalOutstanding: derived.outstanding.principal,
  interestOutstanding: derived.outstanding.interest,
  feesOutstanding: derived.outstanding.fees,
  payoffAmount: derived.payoff,
  pastDueAmount: derived.pastDueAmount,
  nextDueDate: derived.nextDueDate,
  nextDueAmount: derived.nextDueAmount,
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

/** The `CHARGE_OFF` entry that writes off everything `owed`, and the snapshot after it: nothing outstanding, nothing due. */
export const chargeOffEntries = (
  loanId: LoanId,
  owed: Buckets,
  date: string,
  ids: () => string,
  now: Date,
): { readonly transaction: LedgerTransaction; readonly balance: BalanceSnapshot } => {
  const transaction = entry(loanId, 'CHARGE_OFF', negated(owed), total(owed), date, ids(), now)
  const balance: BalanceSnapshot = {
    id: ids(),
    loanId,
    transactionId: transaction.id,
    asOf: date,
    principalOutstanding: 0,
    interestOutstanding: 0,
    feesOutstanding: 0,
    payoffAmount: 0,
    pastDueAmount: 0,
    nextDueDate: null,
    nextDueAmount: null,
    createdAt: now,
  }
  return { transaction, balance }
}

/**
 * A payment of a charged-off loan undone: a `REVERSAL` of what it paid (`paid`, owed again), then
 * a `CHARGE_OFF` of the same, so the loan still owes nothing and what was written off grows by it;
 * with the zero snapshot that follows.
 */
export const writtenOffReversal = (
  loanId: LoanId,
  payment: { readonly id: PaymentId; readonly transactionId: string | null },
  paid: Buckets,
  date: string,
  ids: () => string,
  now: Date,
): { readonly transactions: readonly LedgerTransaction[]; readonly balance: BalanceSnapshot } => {
  const reversal = entry(loanId, 'REVERSAL', paid, total(paid), date, ids(), now, { paymentId: payment.id, ...(payment.transactionId === null ? {} : { reversesId: payment.transactionId }) })
  const { transaction, balance } = chargeOffEntries(loanId, paid, date, ids, now)
  return { transactions: [reversal, transaction], balance }
}
