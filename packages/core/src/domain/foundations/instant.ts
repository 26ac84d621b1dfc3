const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`)

const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)

/** RFC 3339 UTC with milliseconds, as `toISOString` writes it, from the UTC fields; years outside 0000-9999 take `toISOString`. */
export const instantText = (at: Date): string => {
  const year = at.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return at.toISOString()
  const yyyy = year >= 1000 ? `${year}` : `${year}`.padStart(4, '0')
  return `${yyyy}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())}T${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}.${three(at.getUTCMilliseconds())}Z`
}

export const instantTextOrNull = (at: Date | null | undefined): string | null => (at === null || at === undefined ? null : instantText(at))

/** `YYYY-MM-DD` in UTC. */
export const utcDate = (at: Date): string => instantText(at).slice(0, 10)
