/**
 * Level-payment amortization over integer minor units (issue 5; docs/decisions.md).
 *
 * Rules:
 * - Interest per period = balance × annual rate ÷ 12 (a 30/360 month: every month is 1/12 of
 *   a year), rounded half up to a whole minor unit, computed exactly with BigInt.
 * - The level payment is the annuity payment P·r / (1 − (1 + r)^−n), computed exactly with
 *   BigInt and rounded half up; with a zero rate it is P ÷ n rounded down.
 * - Each installment's principal is payment − interest, kept between 0 and the balance; the
 *   last installment takes whatever principal remains, so the principal parts always sum to
 *   the principal exactly and the final balance is zero.
 * - Due dates fall on the same day of each following month, or that month's last day.
 */

import { utcDate } from './instant.js'

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

/** `numerator / denominator` rounded half up, for non-negative integers. */
const divideHalfUp = (numerator: bigint, denominator: bigint): bigint => (numerator * 2n + denominator) / (denominator * 2n)

/** Interest on `balance` for one month at `annualRateBps`. */
export const monthlyInterest = (balance: number, annualRateBps: number): number =>
  Number(divideHalfUp(BigInt(balance) * BigInt(annualRateBps), 120_000n))

/** Basis points in a year of twelve months: the monthly rate of `b` basis points is `b / MONTHLY_BPS`. */
const MONTHLY_BPS = 120_000n

/**
 * The level monthly payment for the terms, exactly: with `r = b / 120000` the monthly rate,
 * `P·r / (1 − (1 + r)^−n)` is the fraction `P·b·(120000 + b)^n / (120000·((120000 + b)^n −
 * 120000^n))`, computed in BigInt and rounded half up once (floating point was off by up to
 * hundreds of minor units on large principals).
 */
export const levelPayment = (principal: number, annualRateBps: number, termMonths: number): number => {
  if (annualRateBps === 0) return Math.floor(principal / termMonths)
  const rate = BigInt(annualRateBps)
  const grown = (MONTHLY_BPS + rate) ** BigInt(termMonths)
  return Number(divideHalfUp(BigInt(principal) * rate * grown, MONTHLY_BPS * (grown - MONTHLY_BPS ** BigInt(termMonths))))
}

/** `YYYY-MM-DD` plus `months`, clamped to the last day of the target month. */
export const addMonths = (isoDate: string, months: number): string => {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number]
  const target = new Date(Date.UTC(y, m - 1 + months, 1))
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
  target.setUTCDate(Math.min(d, lastDay))
  return utcDate(target)
}

/** The full repayment schedule of the terms. */
export const amortize = (terms: LoanTerms): readonly Installment[] => {
  const payment = levelPayment(terms.principal, terms.annualRateBps, terms.termMonths)
  const installments: Installment[] = []
  let balance = terms.principal
  for (let number = 1; number <= terms.termMonths; number += 1) {
    const interest = monthlyInterest(balance, terms.annualRateBps)
    const principal = number === terms.termMonths ? balance : Math.min(Math.max(payment - interest, 0), balance)
    balance -= principal
    installments.push({ number, dueDate: addMonths(terms.startDate, number), payment: principal + interest, principal, interest, balanceAfter: balance })
  }
  return installments
}
