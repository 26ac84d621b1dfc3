import type { Clock } from '../ports/clock.js'

/** A clock that stands still until a test moves it. */
export type TestClock = Clock & { readonly set: (at: Date) => void; readonly advance: (ms: number) => void }

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
