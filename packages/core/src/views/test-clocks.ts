import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'
import { clockStatus, type TestClock, type TestClockStatus } from '../domain/testing/test-clock.js'

/** A test clock as the API answers it (decision 131). */
export type TestClockView = {
  readonly test_clock_id: string
  readonly party_id: string
  readonly name: string | null
  readonly frozen_time: string
  readonly status: TestClockStatus
  readonly advancing_to: string | null
  readonly created_at: string
}

/** `clock` as the API answers it. */
export const testClockView = (clock: TestClock): TestClockView => ({
  test_clock_id: clock.id,
  party_id: clock.partyId,
  name: clock.name,
  frozen_time: instantText(clock.frozenTime),
  status: clockStatus(clock),
  advancing_to: instantTextOrNull(clock.advancingTo),
  created_at: instantText(clock.createdAt),
})
