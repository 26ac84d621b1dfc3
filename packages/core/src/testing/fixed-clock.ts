import type { Clock } from '../ports/clock.js'

/** A clock that stands still until a test moves it. */
export type TestClock = Clock & {
  /** Moves the clock to `at`. */
  readonly set: (at: Date) => void
  /** Moves the clock `ms` forward. */
  readonly advance: (ms: number) => void
}

/** Stands at `start` (2026-01-15T10:00:00.000Z by default) until the test moves it. */
export const testClock = (start: Date = new Date('2026-01-15T10:00:00.000Z')): TestClock => {
  let current = start.getTime()
  return {
    now: () => new Date(current),
    set: (at) => {
      current = at.getTime()
    },
    advance: (ms) => {
      current += ms
    },
  }
}
