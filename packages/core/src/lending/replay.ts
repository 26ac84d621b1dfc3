import type { PaymentId } from '../domain/foundations/ids.js'
import { advance } from './advance.js'
import { applyPayment, type AppliedPayment } from './apply-payment.js'
import { derivedAt, type DerivedLoan } from './derived-loan.js'
import type { ServicedLoan } from './loan-records.js'
import { bookedState, checkpointOf, resumedState, rulesOf, type ServicingCheckpoint } from './replay-state.js'

/** A successful payment as the replay takes it: by effective date, those of one date in the order they were taken. */
export type SettledPayment = { readonly id: PaymentId; readonly amount: number; readonly effectiveDate: string; readonly createdAt: Date }

/** The payments by effective date; those of one date stay in the order given (the order they were taken). */
const sortedPayments = (payments: readonly SettledPayment[]): readonly SettledPayment[] =>
  [...payments].sort((a, b) => (a.effectiveDate < b.effectiveDate ? -1 : a.effectiveDate > b.effectiveDate ? 1 : 0))

/**
 * The loan on `asOf`, from `from` (a checkpoint of an earlier replay of the same loan; each of
 * `payments` is dated on or after its date) or from booking (null: `payments` is every successful
 * payment); payments dated after `asOf` are left out. Each day, in order: installments due that
 * day close, late fees whose grace ended the day before are charged, the day's payments apply in
 * the order they were taken. Also answers the checkpoint on `asOf`.
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

/** The loan on `asOf` replayed from booking with its successful payments (docs/servicing.md "How a loan's state is derived"). */
export const deriveLoan = (loan: ServicedLoan, payments: readonly SettledPayment[], asOf: string): DerivedLoan => replay(loan, null, payments, asOf).derived

/** The loan on `date`, resumed from its checkpoint (`payments` null: nothing since it) or, given its successful payments, replayed from booking. */
export const derivedOn = (loan: ServicedLoan, payments: readonly SettledPayment[] | null, date: string): DerivedLoan =>
  payments === null ? replay(loan, loan.checkpoint, [], date).derived : replay(loan, null, payments, date).derived
