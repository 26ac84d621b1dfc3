import * as t from 'io-ts'
import { withSchema } from '../foundations/codecs.js'
import { DAY_COUNTS, DEFAULT_SERVICING_TERMS, PREPAYMENT_MODES, type DayCount, type LateFee, type PrepaymentMode, type ServicingTerms } from '../../lending/index.js'

/** A product's servicing terms (lending/servicing-terms.ts), their business time zone and how the API shows them. */

export { DAY_COUNTS, DEFAULT_SERVICING_TERMS, PREPAYMENT_MODES, type DayCount, type LateFee, type PrepaymentMode, type ServicingTerms }

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

// One calendar per time zone, kept (docs/benchmarks.md "Reads on a large book"); only valid `TimeZone`s reach it.
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
