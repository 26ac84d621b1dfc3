/** Day counts (docs/servicing.md "Interest"): a stretch's interest is `principal × bps × days ÷ (10000 × year)`, rounded half up once. */

/** The conventions a product may name: 30/360 (every month 30 days) or Actual/365 Fixed. */
export const DAY_COUNTS = ['THIRTY_360', 'ACTUAL_365'] as const
/** One of `DAY_COUNTS`. */
export type DayCount = (typeof DAY_COUNTS)[number]

const MS_PER_DAY = 86_400_000

const partsOf = (date: string): readonly [number, number, number] => [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))]

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const lastDayOfMonth = (year: number, month: number): number => (month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!)
const dateText = (y: number, m: number, d: number): string => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`

/** Days since 1970-01-01 (Howard Hinnant's days-from-civil). */
const dayNumber = (y: number, m: number, d: number): number => {
  const year = m <= 2 ? y - 1 : y
  const era = Math.floor(year / 400)
  const yearOfEra = year - era * 400
  const dayOfYear = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

export const calendarDays = (from: string, to: string): number => dayNumber(...partsOf(to)) - dayNumber(...partsOf(from))

export const addDays = (date: string, days: number): string => {
  const [y, m, d] = partsOf(date)
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

/** `YYYY-MM-DD` plus `months`, clamped to the last day of the target month. */
export const addMonths = (date: string, months: number): string => {
  const [y, m, d] = partsOf(date)
  const index = y * 12 + (m - 1) + months
  const year = Math.floor(index / 12)
  const month = index - year * 12 + 1
  return dateText(year, month, Math.min(d, lastDayOfMonth(year, month)))
}

/**
 * `date` on a loan's 30/360 clock from `anchor`: 30 days per whole month since the anchor (counted
 * from its day, as due dates are), plus the calendar days since the last monthly date, at most 30.
 */
const thirty360Position = (anchor: string, date: string): number => {
  const [ya, ma, da] = partsOf(anchor)
  const [y, m, d] = partsOf(date)
  const monthly = (months: number): readonly [number, number, number] => {
    const index = ya * 12 + (ma - 1) + months
    const year = Math.floor(index / 12)
    const month = index - year * 12 + 1
    return [year, month, Math.min(da, lastDayOfMonth(year, month))]
  }
  let months = (y - ya) * 12 + (m - ma)
  if (d < monthly(months)[2]) months -= 1
  return 30 * months + Math.min(30, dayNumber(y, m, d) - dayNumber(...monthly(months)))
}

/** One loan's day count: `days(from, to)`, `from` counted and `to` not, and the days of its `year`. */
export type DayCounter = {
  readonly convention: DayCount
  readonly days: (from: string, to: string) => number
  readonly year: number
}

/** Actual/365: calendar days; 30/360: the loan's 30/360 clock from `anchor`. */
export const dayCounter = (convention: DayCount, anchor: string): DayCounter =>
  convention === 'THIRTY_360'
    ? { convention, days: (from, to) => thirty360Position(anchor, to) - thirty360Position(anchor, from), year: 360 }
    : { convention, days: calendarDays, year: 365 }

/** `numerator / denominator` rounded half up, for non-negative integers. */
export const divideHalfUp = (numerator: bigint, denominator: bigint): bigint => (numerator * 2n + denominator) / (denominator * 2n)

/** Interest on `principal` from `from` to `to`, exact and rounded half up (0 over no days). */
export const interestBetween = (counter: DayCounter, principal: number, annualRateBps: number, from: string, to: string): number => {
  const days = counter.days(from, to)
  if (days <= 0 || principal <= 0) return 0
  return Number(divideHalfUp(BigInt(principal) * BigInt(annualRateBps) * BigInt(days), 10_000n * BigInt(counter.year)))
}
