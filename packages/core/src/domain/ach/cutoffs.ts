import { addDays } from '../../lending/index.js'
import { dateIn } from '../loans/servicing-terms.js'
import type { BankingCalendar } from './banking-days.js'

/** The ACH network's clock: cut-offs and banking days are told in New York time. */
export const ACH_TIME_ZONE = 'America/New_York'

const clocks = new Map<string, Intl.DateTimeFormat>()

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in milliseconds. */
const offsetAt = (timeZone: string, at: Date): number => {
  let clock = clocks.get(timeZone)
  if (clock === undefined) {
    clock = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    clocks.set(timeZone, clock)
  }
  const part = (type: Intl.DateTimeFormatPartTypes): number => Number(clock.formatToParts(at).find((p) => p.type === type)?.value)
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'))
  return wall - Math.floor(at.getTime() / 1000) * 1000
}

/**
 * The instant the wall clock of `timeZone` reads `time` (`HH:MM`) on `date` (`YYYY-MM-DD`). A
 * time skipped by a change to summer time is read with the offset before the change (so it falls
 * an hour later on the clock); a time the change back shows twice is its first showing.
 */
export const instantIn = (timeZone: string, date: string, time: string): Date => {
  const asUtc = Date.parse(`${date}T${time}:00.000Z`)
  const before = asUtc - offsetAt(timeZone, new Date(asUtc))
  const after = asUtc - offsetAt(timeZone, new Date(before))
  const readings = [before, after].filter((at) => timeIn(timeZone, new Date(at)) === time)
  return new Date(readings.length > 0 ? Math.min(...readings) : before)
}

/** `HH:MM` of the instant `at` in `timeZone`. */
export const timeIn = (timeZone: string, at: Date): string => new Date(at.getTime() + offsetAt(timeZone, at)).toISOString().slice(11, 16)

/** A cut-off: a banking day (`YYYY-MM-DD`) and a time (`HH:MM`), New York time. Its run key is `{date}T{time}`, ordered as text. */
export type Cutoff = { readonly date: string; readonly time: string }

/** The run key of `cutoff`: `YYYY-MM-DDTHH:MM`. */
export const cutoffRunKey = (cutoff: Cutoff): string => `${cutoff.date}T${cutoff.time}`

/** The cut-off of run key `runKey`, if it is one (`YYYY-MM-DDTHH:MM`). */
export const cutoffOf = (runKey: string): Cutoff | undefined => {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})$/.exec(runKey)
  return match === null ? undefined : { date: match[1]!, time: match[2]! }
}

/** A time of day `HH:MM` (00:00 to 23:59). */
export const isTimeOfDay = (value: string): boolean => /^([01]\d|2[0-3]):[0-5]\d$/.test(value)

/** When runs at fixed New York times of each banking day are due. */
export type CutoffSchedule = {
  /** The latest cut-off at or before `now`. */
  readonly latest: (now: Date) => Cutoff
  /** The cut-off after `cutoff` (an operator's run on a day that is not a banking day included). */
  readonly after: (cutoff: Cutoff) => Cutoff
  /** The instant of `cutoff`. */
  readonly instant: (cutoff: Cutoff) => Date
}

/** Runs at each of `times` (`HH:MM`, New York time; at least one) of every banking day of `calendar`. */
export const cutoffSchedule = (calendar: BankingCalendar, times: readonly string[]): CutoffSchedule => {
  const sorted = [...new Set(times)].sort()
  if (sorted.length === 0 || !sorted.every(isTimeOfDay)) throw new Error(`cutoffSchedule: ${JSON.stringify(times)} are not times of day (HH:MM)`)
  const instant = (cutoff: Cutoff): Date => instantIn(ACH_TIME_ZONE, cutoff.date, cutoff.time)
  const previousBankingDay = (date: string): string => {
    let at = addDays(date, -1)
    while (!calendar.isBankingDay(at)) at = addDays(at, -1)
    return at
  }
  return {
    latest: (now) => {
      const today = dateIn(ACH_TIME_ZONE, now)
      if (calendar.isBankingDay(today)) {
        const time = timeIn(ACH_TIME_ZONE, now)
        const passed = sorted.filter((t) => t <= time)
        if (passed.length > 0) return { date: today, time: passed[passed.length - 1]! }
      }
      return { date: previousBankingDay(today), time: sorted[sorted.length - 1]! }
    },
    after: (cutoff) => {
      if (!calendar.isBankingDay(cutoff.date)) return { date: calendar.nextBankingDay(cutoff.date), time: sorted[0]! }
      const later = sorted.find((t) => t > cutoff.time)
      return later === undefined ? { date: calendar.nextBankingDay(cutoff.date), time: sorted[0]! } : { date: cutoff.date, time: later }
    },
    instant,
  }
}
