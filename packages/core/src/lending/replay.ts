import type { PaymentId } from '../domain/foundations/ids.js'
import { advance } from './advance.js'
import { applyPayment, type AppliedPayment } from './apply-payment.js'
import { derivedAt, type DerivedLoan } from './derived-loan.js'
import type { ServicedLoan } from './loan-records.js'
import { bookedState, checkpointOf, resumedState, rulesOf, type ServicingCheckpoint } from './replay-state.js'

/** A successful payment; those of one date apply in the order they were taken. */
export type SettledPayment = { readonly id: PaymentId; readonly amount: number; readonly effectiveDate: string; readonly createdAt: Date }

const sortedPayments = (payments: readonly SettledPayment[]): readonly SettledPayment[] =>
  [...payments].sort((a, b) => (a.effectiveDate < b.effectiveDate ? -1 : a.effectiveDate > b.effectiveDate ? 1 : 0))

/**
 * The loan and its checkpoint on `asOf`, from checkpoint `from` (`payments` dated on or after it)
 * or from booking (null; `payments` all of them); later payments are left out. Each day: due
 * installments close, late fees are charged, then the day's payments apply.
 */
export const replay = (
  loan: ServicedLoan,
  from: ServicingCheckpoint | null,
  payments: readonly SettledPayment[],
  asOf: string,
): { readonly derived: DerivedLoan; readonly checkpoint: ServicingCheckpoint } => {
  const rules = rulesOf(loan)
  const state = from === null ? bookedState(loan) : resumedState(from)
  const allocations = new Map<PaymentId, AppliedPayment>()
  for (const payment of sortedPayments(payments)) {
    if (payment.effectiveDate > asOf) continue
    advance(state, rules, payment.effectiveDate)
    allocations.set(payment.id, applyPayment(state, rules, payment.amount, payment.effectiveDate))
  }
  advance(state, rules, asOf)
  return { derived: derivedAt(loan, rules, state, asOf, allocations), checkpoint: checkpointOf(state, asOf) }
}

/** The loan on `asOf` replayed from booking. */
export const deriveLoan = (loan: ServicedLoan, payments: readonly SettledPayment[], asOf: string): DerivedLoan => replay(loan, null, payments, asOf).derived

/** The loan on `date`: resumed from its checkpoint when `payments` is null, else replayed from booking. */
export const derivedOn = (loan: ServicedLoan, payments: readonly SettledPayment[] | null, date: string): DerivedLoan =>
  payments === null ? replay(loan, loan.checkpoint, [], date).derived : replay(loan, null, payments, date).derived
