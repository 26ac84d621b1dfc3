import { interestBetween, type DayCounter } from './day-count.js'
import type { ReplayState, Rules } from './replay-state.js'

/**
 * The most a loan owes in all, principal, interest and fees together: 2^53 − 1 minor units, the
 * largest amount the API states exactly (docs/servicing.md "Interest"). Interest and late fees
 * stop accruing there.
 */
export const MAX_OWED = Number.MAX_SAFE_INTEGER

/** What may still accrue on a loan that owes `owed`. */
export const headroom = (owed: number): number => Math.max(0, MAX_OWED - owed)

/**
 * Interest on `principal` from `from` to `to`, exact and rounded half up once for the stretch,
 * and no more than what brings `owed` to `MAX_OWED`.
 */
export const accrue = (counter: DayCounter, principal: number, rateBps: number, from: string, to: string, owed: number): number =>
  Math.min(interestBetween(counter, principal, rateBps, from, to), headroom(owed))

/** Closes the stretch from the cursor to `date`: its interest goes to the open installment. */
export const accrueTo = (state: ReplayState, rules: Rules, date: string): void => {
  if (date <= state.cursor) return
  const interest = accrue(rules.counter, state.principal, rules.rateBps, state.cursor, date, state.owed)
  state.installments[state.open]!.interest += interest
  state.owed += interest
  state.cursor = date
}
