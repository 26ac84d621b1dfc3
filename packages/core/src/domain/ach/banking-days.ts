import { addDays, calendarDays } from '../../lending/day-count.js'

/** Banking days of the ACH network: the days the Federal Reserve Banks settle (docs/ach.md "Banking days"). Dates are `YYYY-MM-DD` in `America/New_York`. */

/** A day the Reserve Banks are closed for a holiday. */
export type BankClosure = { readonly date: string; readonly name: string }

/** 0 for a Sunday … 6 for a Saturday (1970-01-01 was a Thursday). */
const weekday = (date: string): number => (((calendarDays('1970-01-01', date) + 4) % 7) + 7) % 7

const dateOf = (year: number, month: number, day: number): string => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`

/** The `nth` (1-based; -1 the last) `day` of the week (0 Sunday … 6 Saturday) of `month` in `year`. */
const nthWeekday = (year: number, month: number, day: number, nth: number): string => {
  if (nth > 0) {
    const first = dateOf(year, month, 1)
    return addDays(first, ((day - weekday(first) + 7) % 7) + 7 * (nth - 1))
  }
  const last = addDays(dateOf(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1), -1)
  return addDays(last, -((weekday(last) - day + 7) % 7))
}

/** Holidays on a fixed date: `[month, day, name, first year]`. */
const FIXED: readonly (readonly [number, number, string, number])[] = [
  [1, 1, "New Year's Day", 0],
  [6, 19, 'Juneteenth National Independence Day', 2021],
  [7, 4, 'Independence Day', 0],
  [11, 11, 'Veterans Day', 0],
  [12, 25, 'Christmas Day', 0],
]

/** Holidays on a weekday of a month: `[month, weekday, nth (-1 the last), name]`. */
const FLOATING: readonly (readonly [number, number, number, string])[] = [
  [1, 1, 3, 'Birthday of Martin Luther King, Jr.'],
  [2, 1, 3, "Washington's Birthday"],
  [5, 1, -1, 'Memorial Day'],
  [9, 1, 1, 'Labor Day'],
  [10, 1, 2, 'Columbus Day'],
  [11, 4, 4, 'Thanksgiving Day'],
]

/**
 * The days of `year` the Reserve Banks close for a holiday, in date order: each holiday on its
 * date; one falling on a Sunday closes the Monday after; one falling on a Saturday closes nothing
 * (the Reserve Banks open the Friday before, so 31 December 2027 is a banking day although
 * 1 January 2028 is a holiday).
 */
export const federalReserveClosures = (year: number): readonly BankClosure[] => {
  const fixed = FIXED.filter(([, , , since]) => year >= since).flatMap(([month, day, name]): BankClosure[] => {
    const date = dateOf(year, month, day)
    const dow = weekday(date)
    return dow === 6 ? [] : [{ date: dow === 0 ? addDays(date, 1) : date, name }]
  })
  const floating = FLOATING.map(([month, day, nth, name]): BankClosure => ({ date: nthWeekday(year, month, day, nth), name }))
  return [...fixed, ...floating].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
}

/** Banking days: weekdays that are neither a Federal Reserve closure nor one of the operator's `extraClosures`. */
export type BankingCalendar = {
  /** Whether the ACH network settles on `date`. */
  readonly isBankingDay: (date: string) => boolean
  /** The first banking day after `date`. */
  readonly nextBankingDay: (date: string) => string
  /** `date` moved forward by `days` banking days (`date` itself when 0): the second banking day after a Friday is the Tuesday. */
  readonly addBankingDays: (date: string, days: number) => string
}

/**
 * The ACH calendar: Monday to Friday, less the Reserve Banks' holiday closures
 * (`federalReserveClosures`) and `extraClosures` (`YYYY-MM-DD`: a closure declared at short notice,
 * such as a national day of mourning).
 */
export const bankingCalendar = (extraClosures: readonly string[] = []): BankingCalendar => {
  const extra = new Set(extraClosures)
  const closuresByYear = new Map<number, ReadonlySet<string>>()
  const closedOn = (year: number): ReadonlySet<string> => {
    let closed = closuresByYear.get(year)
    if (closed === undefined) {
      closed = new Set(federalReserveClosures(year).map((c) => c.date))
      closuresByYear.set(year, closed)
    }
    return closed
  }
  const isBankingDay = (date: string): boolean => {
    const dow = weekday(date)
    return dow !== 0 && dow !== 6 && !extra.has(date) && !closedOn(Number(date.slice(0, 4))).has(date)
  }
  const nextBankingDay = (date: string): string => {
    let next = addDays(date, 1)
    while (!isBankingDay(next)) next = addDays(next, 1)
    return next
  }
  const addBankingDays = (date: string, days: number): string => {
    if (!Number.isInteger(days) || days < 0) throw new Error(`addBankingDays: ${days} is not a whole number of days ahead`)
    let at = date
    for (let k = 0; k < days; k += 1) at = nextBankingDay(at)
    return at
  }
  return { isBankingDay, nextBankingDay, addBankingDays }
}
