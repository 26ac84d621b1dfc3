/**
 * The APR by Regulation Z, 12 CFR 1026 Appendix J's actuarial method: (b)(8) the unit-period rate
 * `i` is the root of `A = Σⱼ Pⱼ / ((1 + fⱼ·i)(1 + i)^tⱼ)` (`tⱼ` whole unit-periods and the fraction
 * `fⱼ` after the advance); (b)(1) APR = `i` × unit-periods per year. The exact root rounded half up
 * to thousandths of a percent, decided in BigInt; amounts are `bigint` minor units.
 */

import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'

/** `numerator / denominator`, safe integers, `numerator ≥ 0`, `denominator ≥ 1`. */
export type Ratio = { readonly numerator: number; readonly denominator: number }

/** An Appendix J unit-period: 1–12 months, a semimonth, 1–52 weeks or 1–366 days. */
export type UnitPeriod = { readonly kind: 'MONTH' | 'SEMIMONTH' | 'WEEK' | 'DAY'; readonly count: number }

export type PaymentTime = { readonly unitPeriods: number; readonly fraction: Ratio }

export type TimedPayment = PaymentTime & { readonly amount: bigint }

export type ActuarialLoan = {
  readonly amountFinanced: bigint
  readonly unitPeriod: UnitPeriod
  readonly payments: readonly TimedPayment[]
}

export type InvalidAprInput = { readonly _tag: 'InvalidAprInput'; readonly detail: string }
export const invalidAprInput = (detail: string): InvalidAprInput => ({ _tag: 'InvalidAprInput', detail })
export type RateBelowZero = { readonly _tag: 'RateBelowZero' }
export const rateBelowZero = (): RateBelowZero => ({ _tag: 'RateBelowZero' })
export type RateAboveLimit = { readonly _tag: 'RateAboveLimit' }
export const rateAboveLimit = (): RateAboveLimit => ({ _tag: 'RateAboveLimit' })
export type AprError = InvalidAprInput | RateBelowZero | RateAboveLimit

/** The largest APR computed: 10,000,000.000%, in thousandths of a percent. */
export const MAX_APR_THOUSANDTHS = 10_000_000_000

/** The most whole unit-periods a payment may lie from the advance. */
export const MAX_UNIT_PERIODS = 5_000

const UNIT_LIMITS = { MONTH: 12, SEMIMONTH: 1, WEEK: 52, DAY: 366 } as const
const PER_YEAR = { MONTH: 12, SEMIMONTH: 24, WEEK: 52, DAY: 365 } as const

/** Appendix J (b)(5): 12/k months, 24 semimonths, 52/k weeks, 365/k days. */
export const unitPeriodsPerYear = (unit: UnitPeriod): Ratio => ({ numerator: PER_YEAR[unit.kind], denominator: unit.count })

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b))
const isCount = (n: number, max: number): boolean => Number.isSafeInteger(n) && n >= 0 && n <= max

const loanProblem = (loan: ActuarialLoan): string | null => {
  const limit = UNIT_LIMITS[loan.unitPeriod.kind] as number | undefined
  if (limit === undefined || !isCount(loan.unitPeriod.count, limit) || loan.unitPeriod.count === 0) return 'unitPeriod is not an Appendix J unit-period'
  if (loan.amountFinanced <= 0n) return 'amountFinanced must be positive'
  if (loan.payments.length === 0) return 'there must be at least one payment'
  for (const p of loan.payments) {
    if (p.amount < 0n) return 'a payment amount is negative'
    if (!isCount(p.unitPeriods, MAX_UNIT_PERIODS)) return `unitPeriods must be an integer from 0 to ${MAX_UNIT_PERIODS}`
    if (!isCount(p.fraction.numerator, Number.MAX_SAFE_INTEGER) || !isCount(p.fraction.denominator, Number.MAX_SAFE_INTEGER) || p.fraction.denominator === 0) {
      return 'a fraction must be a non-negative integer over a positive integer'
    }
  }
  return null
}

/** Payments sharing one fraction f = fn/fd: amounts summed per whole-period count t, t ascending. */
type FractionGroup = { readonly fn: bigint; readonly fd: bigint; readonly amounts: readonly (readonly [t: number, amount: bigint])[] }

const groupByFraction = (payments: readonly TimedPayment[]): readonly FractionGroup[] => {
  const groups = new Map<string, { fn: bigint; fd: bigint; amounts: Map<number, bigint> }>()
  for (const p of payments) {
    const n = BigInt(p.fraction.numerator)
    const d = BigInt(p.fraction.denominator)
    const g = n === 0n ? d : gcd(n, d)
    const key = `${n / g}/${d / g}`
    const group = groups.get(key) ?? { fn: n / g, fd: d / g, amounts: new Map<number, bigint>() }
    group.amounts.set(p.unitPeriods, (group.amounts.get(p.unitPeriods) ?? 0n) + p.amount)
    groups.set(key, group)
  }
  return [...groups.values()].map((g) => ({ fn: g.fn, fd: g.fd, amounts: [...g.amounts].sort(([a], [b]) => a - b) }))
}

/** Whether the present value at unit-period rate `p/q` covers `amountFinanced`, with every denominator multiplied out. */
const presentValueCovers = (groups: readonly FractionGroup[], lastPeriod: number, amountFinanced: bigint, p: bigint, q: bigint): boolean => {
  const r = q + p
  let payments = 0n
  let denominators = 1n
  for (const g of groups) {
    let n = 0n
    let qPower = 1n
    let previous = 0
    for (const [t, amount] of g.amounts) {
      const gap = BigInt(t - previous)
      qPower *= q ** gap
      n = n * r ** gap + amount * qPower
      previous = t
    }
    n *= r ** BigInt(lastPeriod - previous)
    const d = g.fd * q + g.fn * p
    payments = payments * d + g.fd * q * n * denominators
    denominators *= d
  }
  return payments >= amountFinanced * r ** BigInt(lastPeriod) * denominators
}

/** The APR of `loan` in thousandths of a percent: a binary search over exact comparisons at each k − ½. */
export const annualPercentageRate = (loan: ActuarialLoan): E.Either<AprError, number> => {
  const problem = loanProblem(loan)
  if (problem !== null) return E.left(invalidAprInput(problem))
  const total = loan.payments.reduce((sum, p) => sum + p.amount, 0n)
  if (total < loan.amountFinanced) return E.left(rateBelowZero())
  const groups = groupByFraction(loan.payments)
  const lastPeriod = Math.max(...loan.payments.map((p) => p.unitPeriods))
  const perYear = unitPeriodsPerYear(loan.unitPeriod)
  // APR k − ½ thousandths is the unit-period rate (2k − 1)·wd / (200000·wn) for w = wn/wd per year.
  const q = 200_000n * BigInt(perYear.numerator)
  const coversBoundary = (k: number): boolean =>
    presentValueCovers(groups, lastPeriod, loan.amountFinanced, BigInt(2 * k - 1) * BigInt(perYear.denominator), q)
  if (coversBoundary(MAX_APR_THOUSANDTHS + 1)) return E.left(rateAboveLimit())
  let lo = 0
  let hi = MAX_APR_THOUSANDTHS + 1
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (coversBoundary(mid)) lo = mid
    else hi = mid
  }
  return E.right(lo)
}

/** An APR in thousandths of a percent as a percentage with three decimals: 12000 → "12.000". */
export const formatAprThousandths = (thousandths: number): string =>
  `${Math.floor(thousandths / 1000)}.${String(thousandths % 1000).padStart(3, '0')}`

type CalendarDate = { readonly y: number; readonly m: number; readonly d: number }

const parseDate = (text: string): CalendarDate | null => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return null
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  return m >= 1 && m <= 12 && d >= 1 && d <= lastDayOf(y, m) ? { y, m, d } : null
}

const lastDayOf = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate()
const dayNumber = (date: CalendarDate): number => Date.UTC(date.y, date.m - 1, date.d) / 86_400_000

/** Appendix J (b)(3)(iv): `months` before `due`, a month-end due date standing for `seriesDay`. */
const monthsBefore = (due: CalendarDate, months: number, seriesDay: number): CalendarDate => {
  const index = due.y * 12 + due.m - 1 - months
  const y = Math.floor(index / 12)
  const m = index - y * 12 + 1
  const day = due.d === lastDayOf(due.y, due.m) ? Math.max(due.d, seriesDay) : due.d
  return { y, m, d: Math.min(day, lastDayOf(y, m)) }
}

/** Full months from `advance` to `due` counted back from `due` (b)(5)(ii), and the odd days left before them. */
const monthsAndOddDays = (advance: CalendarDate, due: CalendarDate, seriesDay: number): { months: number; oddDays: number } => {
  const candidate = (due.y - advance.y) * 12 + due.m - advance.m
  const months = monthsBefore(due, candidate, seriesDay).d >= advance.d ? candidate : candidate - 1
  return { months, oddDays: dayNumber(monthsBefore(due, months, seriesDay)) - dayNumber(advance) }
}

const parseSchedule = (advanceDate: string, dueDates: readonly string[]): E.Either<InvalidAprInput, { advance: CalendarDate; dues: readonly CalendarDate[] }> => {
  const advance = parseDate(advanceDate)
  if (advance === null) return E.left(invalidAprInput(`advanceDate ${advanceDate} is not a YYYY-MM-DD date`))
  const dues: CalendarDate[] = []
  for (const text of dueDates) {
    const due = parseDate(text)
    if (due === null) return E.left(invalidAprInput(`dueDate ${text} is not a YYYY-MM-DD date`))
    if (dayNumber(due) <= dayNumber(dues.at(-1) ?? advance)) return E.left(invalidAprInput('due dates must follow the advance date and each other'))
    dues.push(due)
  }
  return dues.length === 0 ? E.left(invalidAprInput('there must be at least one payment')) : E.right({ advance, dues })
}

/**
 * Appendix J times of monthly payments: (b)(5)(ii) whole months counted back from each due date
 * and the odd days before them over 30; (b)(3)(iv) for a series on the 29th–31st.
 */
export const monthlyPaymentTimes = (advanceDate: string, dueDates: readonly string[]): E.Either<InvalidAprInput, readonly PaymentTime[]> => {
  const parsed = parseSchedule(advanceDate, dueDates)
  if (E.isLeft(parsed)) return parsed
  const { advance, dues } = parsed.right
  const seriesDay = Math.max(...dues.map((due) => due.d))
  const times = dues.map((due) => monthsAndOddDays(advance, due, seriesDay))
  if (times.some((time, j) => j > 0 && time.months <= times[j - 1]!.months)) {
    return E.left(invalidAprInput('two payments fall in the same monthly unit-period: the schedule is not monthly'))
  }
  return E.right(times.map(({ months, oddDays }) => ({ unitPeriods: months, fraction: { numerator: oddDays, denominator: 30 } })))
}

/** Appendix J (b)(4)(ii), (b)(5)(v)–(vii): a single payment's unit-period is its term, at most a year. */
const singlePaymentTiming = (advance: CalendarDate, due: CalendarDate): { unitPeriod: UnitPeriod; time: PaymentTime } => {
  const { months, oddDays } = monthsAndOddDays(advance, due, due.d)
  const once = { unitPeriods: 1, fraction: { numerator: 0, denominator: 1 } }
  if (months < 12) {
    return oddDays === 0
      ? { unitPeriod: { kind: 'MONTH', count: months }, time: once }
      : { unitPeriod: { kind: 'DAY', count: dayNumber(due) - dayNumber(advance) }, time: once }
  }
  const years = Math.floor(months / 12)
  const remaining = oddDays === 0
    ? { numerator: months - years * 12, denominator: 12 }
    : { numerator: dayNumber(monthsBefore(due, years * 12, due.d)) - dayNumber(advance), denominator: 365 }
  return { unitPeriod: { kind: 'MONTH', count: 12 }, time: { unitPeriods: years, fraction: remaining } }
}

export type ScheduledPayment = { readonly amount: bigint; readonly dueDate: string }

export type DisclosureTerms = {
  readonly amountFinanced: bigint
  readonly advanceDate: string
  /** In due-date order. */
  readonly payments: readonly ScheduledPayment[]
}

const MONTHLY: UnitPeriod = { kind: 'MONTH', count: 1 }

const timingOf = (terms: DisclosureTerms): E.Either<InvalidAprInput, { unitPeriod: UnitPeriod; times: readonly PaymentTime[] }> => {
  const dueDates = terms.payments.map((p) => p.dueDate)
  if (terms.payments.length !== 1) return E.map((times: readonly PaymentTime[]) => ({ unitPeriod: MONTHLY, times }))(monthlyPaymentTimes(terms.advanceDate, dueDates))
  return pipe(
    parseSchedule(terms.advanceDate, dueDates),
    E.map(({ advance, dues }) => {
      const single = singlePaymentTiming(advance, dues[0]!)
      return { unitPeriod: single.unitPeriod, times: [single.time] }
    }),
  )
}

/** The Truth in Lending figures of a schedule: amount financed, finance charge, total of payments, APR. */
export type Disclosure = {
  readonly amountFinanced: bigint
  readonly financeCharge: bigint
  readonly totalOfPayments: bigint
  readonly aprThousandths: number
}

/** Total of payments, finance charge (total − amount financed) and the Appendix J APR. */
export const disclosureFigures = (terms: DisclosureTerms): E.Either<AprError, Disclosure> => {
  const totalOfPayments = terms.payments.reduce((sum, p) => sum + p.amount, 0n)
  return pipe(
    timingOf(terms),
    E.chainW(({ unitPeriod, times }) =>
      annualPercentageRate({ amountFinanced: terms.amountFinanced, unitPeriod, payments: terms.payments.map((p, j) => ({ ...times[j]!, amount: p.amount })) }),
    ),
    E.map((aprThousandths) => ({ amountFinanced: terms.amountFinanced, financeCharge: totalOfPayments - terms.amountFinanced, totalOfPayments, aprThousandths })),
  )
}
