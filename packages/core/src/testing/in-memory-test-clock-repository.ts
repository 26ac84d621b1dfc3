import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists } from '../domain/foundations/errors.js'
import type { PartyId } from '../domain/foundations/ids.js'
import type { TestClock } from '../domain/testing/test-clock.js'
import type { TestClockRepository } from '../ports/test-clock-repository.js'

/** Test clocks in memory, and which parties they move (`onTestClock`, for the loans' `activeLoanIds`). */
export type InMemoryTestClockRepository = TestClockRepository & {
  /** Whether `partyId` has a clock. */
  readonly onTestClock: (partyId: PartyId) => boolean
  /** Deletes the clocks of parties `partyIds` (a wipe of the test world); how many went. */
  readonly forgetParties: (partyIds: ReadonlySet<PartyId>) => number
}

/** The PostgreSQL repository's semantics, for use-case tests and embedders running one process. */
export const inMemoryTestClockRepository = (): InMemoryTestClockRepository => {
  const clocks = new Map<string, { clock: TestClock; leasedUntil: number | null }>()
  return {
    onTestClock: (partyId) => [...clocks.values()].some((row) => row.clock.partyId === partyId),
    forgetParties: (partyIds) => {
      const gone = [...clocks.values()].filter((row) => partyIds.has(row.clock.partyId))
      for (const row of gone) clocks.delete(row.clock.id)
      return gone.length
    },
    insert: (clock) => async () => {
      if ([...clocks.values()].some((row) => row.clock.partyId === clock.partyId)) return E.left(alreadyExists('test_clock'))
      clocks.set(clock.id, { clock, leasedUntil: null })
      return E.right(undefined)
    },
    partyTimes: () => TE.fromIO(() => [...clocks.values()].map(({ clock }) => ({ partyId: clock.partyId, now: clock.frozenTime }))),
    findForParty: (partyId) => TE.fromIO(() => O.fromNullable([...clocks.values()].find((row) => row.clock.partyId === partyId)?.clock)),
    startAdvance: (id, to) =>
      TE.fromIO(() => {
        const row = clocks.get(id)
        if (row === undefined || (row.clock.advancingTo !== null && row.clock.advancingTo.getTime() !== to.getTime())) return O.none
        row.clock = { ...row.clock, advancingTo: to }
        return O.some(row.clock)
      }),
    claimAdvancing: (now, leaseUntil) =>
      TE.fromIO(() => {
        const row = [...clocks.values()].find((r) => r.clock.advancingTo !== null && (r.leasedUntil === null || r.leasedUntil <= now.getTime()))
        if (row === undefined) return O.none
        row.leasedUntil = leaseUntil.getTime()
        return O.some(row.clock)
      }),
    moveTo: (id, frozenTime, leaseUntil) =>
      TE.fromIO(() => {
        const row = clocks.get(id)
        if (row === undefined) return O.none
        const arrived = row.clock.advancingTo === null || frozenTime.getTime() >= row.clock.advancingTo.getTime()
        row.clock = { ...row.clock, frozenTime, advancingTo: arrived ? null : row.clock.advancingTo }
        row.leasedUntil = arrived ? null : leaseUntil.getTime()
        return O.some(row.clock)
      }),
  }
}
