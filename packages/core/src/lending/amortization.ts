/**
 * Level-payment amortization over integer minor units (issue 5; docs/decisions.md).
 *
 * Rules:
 * - Interest per period = balance × annual rate × the period's days ÷ the year's days by the
 *   loan's day-count convention (day-count.ts; under 30/360 a month between due dates is 30
 *   days: 1/12 of a year), rounded half up to a whole minor unit, computed exactly with BigInt.
 * - The level payment is the one that retires the principal over those periods exactly (the
 *   annuity payment P·r / (1 − (1 + r)^−n) when every period is a month of 30/360), computed
 *   with BigInt and rounded half up; with a zero rate it is P ÷ n rounded down.
 * - Each installment's principal is payment − interest, kept between 0 and the balance; the
 *   last installment takes whatever principal remains, so the principal parts always sum to
 *   the principal exactly and the final balance is zero.
 * - Due dates fall on the same day of each following month, or that month's last day.
 */

import { addMonths, dayCounter, divideHalfUp, interestBetween, type DayCount, type DayCounter } from './day-count.js'

export { addMonths }

/** One installment of a schedule: its number (from 1), due date, payment and how it splits, and the principal left after it. */
export type Installment = {
  readonly number: number
  readonly dueDate: string
  readonly payment: number
  readonly principal: number
  readonly interest: number
  readonly balanceAfter: number
}

type LoanTerms = {
  /** Principal in minor units, a positive safe integer. */
  readonly principal: number
  /** Annual rate in basis points (600 = 6.00%). */
  readonly annualRateBps: number
  readonly termMonths: number
  /** `YYYY-MM-DD`: the first installment is due one month later. */
  readonly startDate: string
}

/** Interest on `balance` for one month at `annualRateBps`. */
export const monthlyInterest = (balance: number, annualRateBps: number): number =>
  Number(divideHalfUp(BigInt(balance) * BigInt(annualRateBps), 120_000n))

/**
 * The level payment that retires `principal` over periods of `periodDays` days each (a year of
 * `yearDays`), exactly: with `g_k = 10000·yearDays + bps·days_k`, the payment `X` that leaves
 * nothing after the last period is `P·∏g_k / Σ_j (10000·yearDays)^j·∏_{k>j} g_k`, computed in
 * BigInt and rounded half up once (floating point was off by hundreds of minor units on large
 * principals). With a zero rate it is `P ÷ n` rounded down.
 */
export const levelPaymentOver = (principal: number, annualRateBps: number, periodDays: readonly number[], yearDays: number): number => {
  const n = periodDays.length
  if (n === 0) return principal
  if (annualRateBps === 0) return Math.floor(principal / n)
  const base = 10_000n * BigInt(yearDays)
  // Horner's rule over the periods: after period j, `sum` = Σ_{i≤j} base^i·∏_{i<k≤j} g_k and `growth` = ∏_{k≤j} g_k.
  let power = 1n
  let sum = 0n
  let growth = 1n
  for (const days of periodDays) {
    const g = base + BigInt(annualRateBps) * BigInt(days)
    power *= base
    sum = sum * g + power
    growth *= g
  }
  return Number(divideHalfUp(BigInt(principal) * growth, sum))
}

/** The level monthly payment for the terms when every month is 30 days of a 360-day year (the annuity formula). */
export const levelPayment = (principal: number, annualRateBps: number, termMonths: number): number =>
  levelPaymentOver(principal, annualRateBps, Array.from({ length: termMonths }, () => 30), 360)

/**
 * `principal` repaid over installments due on `dueDates`, interest running from `from` by
 * `dayCount`: each installment pays `payment` (its interest first, the rest principal, never more
 * than the balance) and the last takes whatever principal remains.
 */
export const amortizeOver = (
  terms: { readonly principal: number; readonly annualRateBps: number; readonly counter: DayCounter; readonly from: string; readonly dueDates: readonly string[] },
  payment: number,
): readonly Installment[] => {
  const installments: Installment[] = []
  let balance = terms.principal
  let previous = terms.from
  terms.dueDates.forEach((dueDate, k) => {
    const interest = interestBetween(terms.counter, balance, terms.annualRateBps, previous, dueDate)
    const last = k === terms.dueDates.length - 1
    const principal = last ? balance : Math.min(Math.max(payment - interest, 0), balance)
    balance -= principal
    installments.push({ number: k + 1, dueDate, payment: principal + interest, principal, interest, balanceAfter: balance })
    previous = dueDate
  })
  return installments
}

/** The level payment that retires `principal` over installments due on `dueDates`, interest running from `from`. */
export const levelPaymentFor = (principal: number, annualRateBps: number, counter: DayCounter, from: string, dueDates: readonly string[]): number =>
  levelPaymentOver(
    principal,
    annualRateBps,
    dueDates.map((dueDate, k) => counter.days(k === 0 ? from : dueDates[k - 1]!, dueDate)),
    counter.year,
  )

/** The due dates of a monthly schedule of `termMonths` starting on `startDate`. */
export const monthlyDueDates = (startDate: string, termMonths: number): readonly string[] => Array.from({ length: termMonths }, (_, k) => addMonths(startDate, k + 1))

/** The full repayment schedule of the terms (by 30/360 unless the terms name a `dayCount`). */
export const amortize = (terms: LoanTerms & { readonly dayCount?: DayCount }): readonly Installment[] => {
  const counter = dayCounter(terms.dayCount ?? 'THIRTY_360', terms.startDate)
  const dueDates = monthlyDueDates(terms.startDate, terms.termMonths)
  const schedule = { principal: terms.principal, annualRateBps: terms.annualRateBps, counter, from: terms.startDate, dueDates }
  return amortizeOver(schedule, levelPaymentFor(terms.principal, terms.annualRateBps, counter, terms.startDate, dueDates))
}
