import type { PaymentId } from '../domain/foundations/ids.js'
import { advance } from './advance.js'
import { applyPayment, type AppliedPayment } from './apply-payment.js'
import { derivedAt, type DerivedLoan } from './derived-loan.js'
import type { ServicedLoan } from './loan-records.js'
import { bookedState, checkpointOf, resumedState, rulesOf, type ServicingCheckpoint } from './replay-state.js'
import { chargeReturnFee, type ReturnFee } from './return-fees.js'

/** A successful payment; those of one date apply in the order they were taken. */
export type SettledPayment = { readonly id: PaymentId; readonly amount: number; readonly effectiveDate: string; readonly createdAt: Date }

/** What a replay applies, by day: a returned payment's fee (before the day's payments), or a payment. */
type Step = { readonly date: string; readonly payment: SettledPayment } | { readonly date: string; readonly fee: ReturnFee }

/** The payments by effective date (those of one date in the order given), each day's returned-payment fees before them. */
const stepsOf = (payments: readonly SettledPayment[], fees: readonly ReturnFee[]): readonly Step[] =>
  [...payments.map((payment): Step => ({ date: payment.effectiveDate, payment })), ...fees.map((fee): Step => ({ date: fee.date, fee }))].sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : Number('payment' in a) - Number('payment' in b),
  )

/**
 * The loan and its checkpoint on `asOf`, from checkpoint `from` (`payments` and `fees` dated on or
 * after it) or from booking (null; all of them); later ones are left out. Each day: due
 * installments close, late fees are charged, the day's returned-payment fees are charged
 * (`chargeReturnFee`), then its payments apply: a payment taken earlier on the day of a return is
 * re-allocated to pay the fee first, as a reversal re-allocates later payments.
 */
export const replay = (
  loan: ServicedLoan,
  from: ServicingCheckpoint | null,
  payments: readonly SettledPayment[],
  asOf: string,
  fees: readonly ReturnFee[] = [],
): { readonly derived: DerivedLoan; readonly checkpoint: ServicingCheckpoint } => {
  const rules = rulesOf(loan)
  const state = from === null ? bookedState(loan) : resumedState(from)
  const allocations = new Map<PaymentId, AppliedPayment>()
  const charged = new Map<PaymentId, number>()
  for (const step of stepsOf(payments, fees)) {
    if (step.date > asOf) continue
    advance(state, rules, step.date)
    if ('payment' in step) allocations.set(step.payment.id, applyPayment(state, rules, step.payment.amount, step.date))
    else charged.set(step.fee.paymentId, chargeReturnFee(state, rules, step.fee.amount, step.date))
  }
  advance(state, rules, asOf)
  return { derived: derivedAt(loan, rules, state, asOf, allocations, charged), checkpoint: checkpointOf(state, asOf) }
}

/** The loan on `asOf` replayed from booking. */
export const deriveLoan = (loan: ServicedLoan, payments: readonly SettledPayment[], asOf: string, fees: readonly ReturnFee[] = []): DerivedLoan => replay(loan, null, payments, asOf, fees).derived

/** What a replay from booking takes: the posted payments and the returned payments' fees. */
export type ReplayInputs = { readonly payments: readonly SettledPayment[]; readonly fees: readonly ReturnFee[] }

/** The loan on `date`: resumed from its checkpoint when `inputs` is null, else replayed from booking with them. */
export const derivedOn = (loan: ServicedLoan, inputs: ReplayInputs | null, date: string): DerivedLoan =>
  inputs === null ? replay(loan, loan.checkpoint, [], date).derived : replay(loan, null, inputs.payments, date, inputs.fees).derived
