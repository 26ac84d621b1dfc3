import * as E from 'fp-ts/lib/Either.js'
import { boundedString, Instant, strictObject } from '../foundations/codecs.js'
import { invalidRequest, invalidState, type InvalidRequest, type InvalidState } from '../foundations/errors.js'
import type { PartyId, TestClockId } from '../foundations/ids.js'

/**
 * A test clock (decision 131): the time of one test-world party, frozen until the partner
 * advances it. The party's requests read it as their now, and advancing it services the party's
 * loans day by day as the daily job would, so a partner watches a loan go 90 days past due in
 * seconds. The live world has none.
 */
export type TestClock = {
  readonly id: TestClockId
  readonly partyId: PartyId
  readonly name: string | null
  /** The party's now. */
  readonly frozenTime: Date
  /** Where the advance under way goes; null when the clock is ready. */
  readonly advancingTo: Date | null
  readonly createdAt: Date
}

/** A clock is `advancing` while an advance is under way, `ready` otherwise. */
export type TestClockStatus = 'ready' | 'advancing'

/** `clock`'s status. */
export const clockStatus = (clock: TestClock): TestClockStatus => (clock.advancingTo === null ? 'ready' : 'advancing')

const DAY_MS = 86_400_000

/** How far one advance may go: two years (731 days, a leap day included). */
export const MAX_ADVANCE_DAYS = 731

/** How far ahead of now a new clock may start. */
export const MAX_START_AHEAD_DAYS = 366

/** A new clock: `frozen_time` (default now: not in the past, at most `MAX_START_AHEAD_DAYS` ahead) and an optional `name`. */
export const CreateTestClockInput = strictObject('CreateTestClockInput', {}, { frozen_time: Instant, name: boundedString('Name', 1, 100) })

/** An advance: the new `frozen_time`, after the clock's and at most `MAX_ADVANCE_DAYS` later. */
export const AdvanceTestClockInput = strictObject('AdvanceTestClockInput', { frozen_time: Instant }, {})

/**
 * A new clock of `partyId`, frozen at `input.frozen_time` or `now`. A time before now would put
 * the party's new loans behind what is already posted, so the clock starts now or later.
 */
export const newTestClock = (
  input: { readonly frozen_time?: Date; readonly name?: string },
  id: TestClockId,
  partyId: PartyId,
  now: Date,
): E.Either<InvalidRequest, TestClock> => {
  const frozenTime = input.frozen_time ?? now
  if (frozenTime.getTime() < now.getTime() - 1_000) return E.left(invalidRequest('frozen_time must not be in the past.', 'frozen_time'))
  if (frozenTime.getTime() > now.getTime() + MAX_START_AHEAD_DAYS * DAY_MS) {
    return E.left(invalidRequest(`frozen_time must be at most ${MAX_START_AHEAD_DAYS} days ahead.`, 'frozen_time'))
  }
  return E.right({ id, partyId, name: input.name ?? null, frozenTime, advancingTo: null, createdAt: now })
}

/**
 * The clock sent on its way to `to`. Asking again for the advance under way, or for where a ready
 * clock already is, changes nothing (a retried request); anything else while advancing is refused.
 */
export const advanceTo = (clock: TestClock, to: Date): E.Either<InvalidRequest | InvalidState, TestClock> => {
  if (clock.advancingTo !== null) return clock.advancingTo.getTime() === to.getTime() ? E.right(clock) : E.left(invalidState('test_clock', 'ADVANCING', 'advance'))
  if (to.getTime() === clock.frozenTime.getTime()) return E.right(clock)
  if (to.getTime() < clock.frozenTime.getTime()) return E.left(invalidRequest("frozen_time must be after the clock's frozen_time: a clock only moves forward.", 'frozen_time'))
  if (to.getTime() - clock.frozenTime.getTime() > MAX_ADVANCE_DAYS * DAY_MS) {
    return E.left(invalidRequest(`frozen_time must be at most ${MAX_ADVANCE_DAYS} days after the clock's frozen_time: advance in steps.`, 'frozen_time'))
  }
  return E.right({ ...clock, advancingTo: to })
}

/** The instant an advancing clock reaches next: a day on, or its destination if nearer. */
export const nextStep = (clock: TestClock & { readonly advancingTo: Date }): Date =>
  new Date(Math.min(clock.frozenTime.getTime() + DAY_MS, clock.advancingTo.getTime()))
