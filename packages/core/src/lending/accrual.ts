import { interestBetween, type DayCounter } from './day-count.js'
import type { ReplayState, Rules } from './replay-state.js'

/** The most a loan is charged in all, paid or not: 2^53 − 1 minor units; interest and late fees stop accruing there (decisions 119, 126). */
export const MAX_OWED = Number.MAX_SAFE_INTEGER

export const headroom = (charged: number): number => Math.max(0, MAX_OWED - charged)

/** Interest on `principal` from `from` to `to`, rounded once for the stretch, at most up to `MAX_OWED`. */
export const accrue = (counter: DayCounter, principal: number, rateBps: number, from: string, to: string, charged: number): number =>
  Math.min(interestBetween(counter, principal, rateBps, from, to), headroom(charged))

/** Closes the stretch from the cursor to `date`: its interest goes to the open installment. */
export const accrueTo = (state: ReplayState, rules: Rules, date: string): void => {
  if (date <= state.cursor) return
  const interest = accrue(rules.counter, state.principal, rules.rateBps, state.cursor, date, state.charged)
  state.installments[state.open]!.interest += interest
  state.charged += interest
  state.cursor = date
}
