/** Two digits of a date field. */
const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`)

/** Three digits of a millisecond. */
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)

/**
 * An instant as the API writes it (RFC 3339 in UTC, milliseconds: `2026-11-25T04:43:41.123Z`),
 * the text of `Date.prototype.toISOString`, built from the date's UTC fields. A year outside
 * 0000 to 9999 and an invalid date take `toISOString` itself (its expanded year, its error).
 */
export const instantText = (at: Date): string => {
  const year = at.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return at.toISOString()
  const yyyy = year >= 1000 ? `${year}` : `${year}`.padStart(4, '0')
  return `${yyyy}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())}T${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}.${three(at.getUTCMilliseconds())}Z`
}

/** `instantText` of a moment that may not have happened (yet): null for none. */
export const instantTextOrNull = (at: Date | null | undefined): string | null => (at === null || at === undefined ? null : instantText(at))

/** The UTC calendar date of `at`, `YYYY-MM-DD` (the first ten characters of its `instantText`). */
export const utcDate = (at: Date): string => instantText(at).slice(0, 10)
