import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/foundations/errors.js'
import type { PartyId, TestClockId } from '../domain/foundations/ids.js'
import type { PartyTime } from '../domain/loans/book-time.js'
import type { TestClock } from '../domain/testing/test-clock.js'

/**
 * A world's test clocks (decision 131), one a party at most. An advance is worked by whichever
 * process claims it: a claim leases the clock until `leaseUntil`, and a lease that ran out (its
 * process died) lets another process resume from the clock's `frozenTime`.
 */
export type TestClockRepository = {
  /** `AlreadyExists` when the party has a clock. */
  readonly insert: (clock: TestClock) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** The party's clock, if it has one. */
  readonly findForParty: (partyId: PartyId) => TE.TaskEither<StoreUnavailable, O.Option<TestClock>>
  /** Every clock's party and frozen time, in no order: the times of a read across the world's parties. */
  readonly partyTimes: () => TE.TaskEither<StoreUnavailable, readonly PartyTime[]>
  /** Sets `advancingTo` on the clock if it is still ready (or already going there); none when it is not, or does not exist. */
  readonly startAdvance: (id: TestClockId, to: Date) => TE.TaskEither<StoreUnavailable, O.Option<TestClock>>
  /** An advancing clock whose lease is free or ran out by `now`, leased until `leaseUntil`; none when there is no such clock. */
  readonly claimAdvancing: (now: Date, leaseUntil: Date) => TE.TaskEither<StoreUnavailable, O.Option<TestClock>>
  /** Moves a claimed clock to `frozenTime`, keeping its lease until `leaseUntil`; there, it is ready again and its lease released. None when the clock is gone (its test data was wiped). */
  readonly moveTo: (id: TestClockId, frozenTime: Date, leaseUntil: Date) => TE.TaskEither<StoreUnavailable, O.Option<TestClock>>
}
