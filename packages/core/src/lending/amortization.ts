/**
 * Level-payment amortization in minor units (decision 23): each period's interest by the day
 * count, rounded half up; the level payment retires the principal exactly, rounded half up once
 * (P ÷ n rounded down at a zero rate); each installment's principal is payment − interest, and the
 * last takes what remains. Due dates fall on the start's day of each month, or its last day.
 */

import { addMonths, dayCounter, divideHalfUp, interestBetween, type DayCount, type DayCounter } from './day-count.js'

export { addMonths }

export type Installment = {
  readonly number: number
  readonly dueDate: string
  readonly payment: number
  readonly principal: number
  readonly interest: number
  readonly balanceAfter: number
}

type LoanTerms = {
  readonly principal: number
  readonly annualRateBps: number
  readonly termMonths: number
  readonly startDate: string
}

/** Interest on `balance` for one month at `annualRateBps`. */
export const monthlyInterest = (balance: number, annualRateBps: number): number =>
  Number(divideHalfUp(BigInt(balance) * BigInt(annualRateBps), 120_000n))

/**
 * The level payment retiring `principal` over periods of `periodDays`: with `g_k = 10000·yearDays
 * + bps·days_k`, `P·∏g_k / Σ_j (10000·yearDays)^j·∏_{k>j} g_k` in BigInt, rounded half up once.
 */
export const levelPaymentOver = (principal: number, annualRateBps: number, periodDays: readonly number[], yearDays: number): number => {
  const n = periodDays.length
  if (n === 0) return principal
  if (annualRateBps === 0) return Math.floor(principal / n)
  const base = 10_000n * BigInt(yearDays)
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

/** The level monthly payment under 30/360 (the annuity formula). */
export const levelPayment = (principal: number, annualRateBps: number, termMonths: number): number =>
  levelPaymentOver(principal, annualRateBps, Array.from({ length: termMonths }, () => 30), 360)

/** `principal` repaid by `payment` over `dueDates` from `from`; the last installment takes what remains. */
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

export const monthlyDueDates = (startDate: string, termMonths: number): readonly string[] => Array.from({ length: termMonths }, (_, k) => addMonths(startDate, k + 1))

/** The full repayment schedule of the terms (by 30/360 unless the terms name a `dayCount`). */
export const amortize = (terms: LoanTerms & { readonly dayCount?: DayCount }): readonly Installment[] => {
  const counter = dayCounter(terms.dayCount ?? 'THIRTY_360', terms.startDate)
  const dueDates = monthlyDueDates(terms.startDate, terms.termMonths)
  const schedule = { principal: terms.principal, annualRateBps: terms.annualRateBps, counter, from: terms.startDate, dueDates }
  return amortizeOver(schedule, levelPaymentFor(terms.principal, terms.annualRateBps, counter, terms.startDate, dueDates))
}
