/**
 * Day-count conventions: how many days of interest lie between two dates, and how many days make
 * a year (docs/servicing.md "Interest"). Interest for a stretch of days on a constant principal
 * is `principal × rate × days ÷ (10000 × year)`, rounded half up once per stretch.
 */

/** The conventions a product may name: 30/360 (every month 30 days) or Actual/365 Fixed. */
export const DAY_COUNTS = ['THIRTY_360', 'ACTUAL_365'] as const
/** One of `DAY_COUNTS`. */
export type DayCount = (typeof DAY_COUNTS)[number]

const MS_PER_DAY = 86_400_000

/** Year, month (1–12) and day of a `YYYY-MM-DD` date. */
const partsOf = (date: string): readonly [number, number, number] => [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))]

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const lastDayOfMonth = (year: number, month: number): number => (month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!)
const dateText = (y: number, m: number, d: number): string => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`

/** Days since 1970-01-01 of a calendar date (Howard Hinnant's days-from-civil algorithm, in integers). */
const dayNumber = (y: number, m: number, d: number): number => {
  const year = m <= 2 ? y - 1 : y
  const era = Math.floor(year / 400)
  const yearOfEra = year - era * 400
  const dayOfYear = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/** Days from `from` to `to` on the calendar (`to` after `from` is positive). */
export const calendarDays = (from: string, to: string): number => dayNumber(...partsOf(to)) - dayNumber(...partsOf(from))

/** `YYYY-MM-DD` plus `days` calendar days. */
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
 * Where `date` stands on a loan's 30/360 clock started on `anchor`: 30 days for each whole month
 * since the anchor (months counted from the anchor's day, as due dates are), plus the days since
 * the last such monthly date, at most 30. So every month between two due dates is exactly 30 days
 * (February's included) and a part of one counts its calendar days, the 31st not counting.
 */
const thirty360Position = (anchor: string, date: string): number => {
  const [ya, ma, da] = partsOf(anchor)
  const [y, m, d] = partsOf(date)
  // The monthly date `months` after the anchor: the anchor's day, or the month's last day.
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

/**
 * Counts days of interest for one loan: `days(from, to)` from `from` (counted) to `to` (not
 * counted), and the days of its `year`. Under `ACTUAL_365` days are calendar days of a 365-day
 * year; under `THIRTY_360` they are read off the loan's 30/360 clock (started on `anchor`, the
 * loan's start date), of a 360-day year.
 */
export type DayCounter = {
  /** The convention it counts by. */
  readonly convention: DayCount
  /** Days of interest from `from` (counted) to `to` (not counted). */
  readonly days: (from: string, to: string) => number
  /** Days in its year: 360 or 365. */
  readonly year: number
}

/** The `DayCounter` of a loan started on `anchor` under `convention`. */
export const dayCounter = (convention: DayCount, anchor: string): DayCounter =>
  convention === 'THIRTY_360'
    ? { convention, days: (from, to) => thirty360Position(anchor, to) - thirty360Position(anchor, from), year: 360 }
    : { convention, days: calendarDays, year: 365 }

/** `numerator / denominator` rounded half up, for non-negative integers. */
export const divideHalfUp = (numerator: bigint, denominator: bigint): bigint => (numerator * 2n + denominator) / (denominator * 2n)

/**
 * Interest on `principal` at `annualRateBps` from `from` to `to` counted by `counter`, exact and
 * rounded half up to a whole minor unit (0 when `to` is not after `from`).
 */
export const interestBetween = (counter: DayCounter, principal: number, annualRateBps: number, from: string, to: string): number => {
  const days = counter.days(from, to)
  if (days <= 0 || principal <= 0) return 0
  return Number(divideHalfUp(BigInt(principal) * BigInt(annualRateBps) * BigInt(days), 10_000n * BigInt(counter.year)))
}
