import * as t from 'io-ts'
import { withSchema } from '../foundations/codecs.js'
import { DAY_COUNTS, type DayCount } from '../../lending/index.js'

/**
 * How a product's loans are serviced (docs/servicing.md): the day-count convention interest
 * accrues by, what a prepayment does to the rest of the schedule, and the late fee. A product
 * names them; a loan keeps the ones its product had when it was booked.
 */

export { DAY_COUNTS, type DayCount }

/**
 * What a prepayment does: `REDUCE_TERM` keeps the installment and ends the loan sooner;
 * `REDUCE_INSTALLMENT` keeps the term and lowers the installments left.
 */
export const PREPAYMENT_MODES = ['REDUCE_TERM', 'REDUCE_INSTALLMENT'] as const
/** One of `PREPAYMENT_MODES`. */
export type PrepaymentMode = (typeof PREPAYMENT_MODES)[number]

/**
 * The late fee assessed once on an installment still unpaid when `graceDays` days after its due
 * date have passed: `flat` minor units plus `bps` basis points of what it still owes.
 */
export type LateFee = { readonly flat: number; readonly bps: number; readonly graceDays: number }

/**
 * The servicing rules of a product, and of a loan booked on it. `timeZone` (IANA) is the
 * business time zone: the loan's dates (start, due, posting, "today") are calendar dates there.
 */
export type ServicingTerms = { readonly dayCount: DayCount; readonly prepayment: PrepaymentMode; readonly lateFee: LateFee; readonly timeZone: string }

/** The terms of a product that names none: 30/360, a prepayment shortens the term, no late fee, UTC. */
export const DEFAULT_SERVICING_TERMS: ServicingTerms = { dayCount: 'THIRTY_360', prepayment: 'REDUCE_TERM', lateFee: { flat: 0, bps: 0, graceDays: 0 }, timeZone: 'UTC' }

/** The runtime's name for the IANA time zone `name` (its canonical spelling), or null if it knows none by that name. */
const knownTimeZone = (name: string): string | null => {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return null
  }
}

/**
 * An IANA time zone name, such as `America/New_York`, `Asia/Kolkata` or `UTC`: any name the
 * runtime's time-zone data resolves (aliases included), kept as it was given.
 */
export const TimeZone = withSchema(
  new t.Type<string, string, unknown>(
    'TimeZone',
    (u): u is string => typeof u === 'string' && u.length <= 64 && knownTimeZone(u) !== null,
    (u, c) =>
      typeof u === 'string' && u.length <= 64 && knownTimeZone(u) !== null ? t.success(u) : t.failure(u, c, 'must be an IANA time zone name, such as America/New_York, or UTC'),
    t.identity,
  ),
  { type: 'string', maxLength: 64, description: 'an IANA time zone name, such as America/New_York, or UTC', examples: ['America/New_York'] },
)

/**
 * The calendar of each time zone `dateIn` has been asked about, made on first use: making an
 * `Intl.DateTimeFormat` costs far more than formatting with it does (docs/benchmarks.md,
 * "Reads on a large book"), and a list of loans asks for every loan's today. Bounded by the IANA
 * zones, a few hundred, and only valid names reach it (`TimeZone`).
 */
const calendars = new Map<string, Intl.DateTimeFormat>()

/** The calendar date (`YYYY-MM-DD`, the `en-CA` format) of the instant `at` in the time zone `timeZone`. */
export const dateIn = (timeZone: string, at: Date): string => {
  let calendar = calendars.get(timeZone)
  if (calendar === undefined) {
    calendar = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    calendars.set(timeZone, calendar)
  }
  return calendar.format(at)
}
