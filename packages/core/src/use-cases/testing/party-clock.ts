import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { World } from '../../core-deps.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import type { PartyId } from '../../domain/foundations/ids.js'
import type { BookTime } from '../../domain/loans/book-time.js'
import type { Clock } from '../../ports/clock.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'

/** What `partyClock` needs: the world, its parties' test clocks, and the service's clock. */
export type PartyClockDeps = { readonly world: World; readonly testClocks: Pick<TestClockRepository, 'findForParty'>; readonly clock: Clock }

/**
 * The clock a party's records are read and changed by (decision 131): in the test world its test
 * clock's time, when it is on one; else `clock`. A partner request gets it from the router; an
 * operator's, which names no party, from here.
 */
export const partyClock =
  (deps: PartyClockDeps) =>
  (partyId: PartyId): TE.TaskEither<StoreUnavailable, Clock> =>
    deps.world === 'live'
      ? TE.right(deps.clock)
      : pipe(
          deps.testClocks.findForParty(partyId),
          TE.map(O.match((): Clock => deps.clock, (testClock): Clock => ({ now: () => testClock.frozenTime }))),
        )

/** What `bookTime` needs: the world, its parties' test clocks, and the service's clock. */
export type BookTimeDeps = { readonly world: World; readonly testClocks: Pick<TestClockRepository, 'partyTimes'>; readonly clock: Clock }

/**
 * The instant each party's loans are judged at in a read across parties (decision 131): the
 * service's now, and in the test world each test clock's time for its party, read in one query.
 */
export const bookTime = (deps: BookTimeDeps): TE.TaskEither<StoreUnavailable, BookTime> => {
  const now = deps.clock.now()
  return deps.world === 'live' ? TE.right({ now, partyTimes: [] }) : pipe(deps.testClocks.partyTimes(), TE.map((partyTimes) => ({ now, partyTimes })))
}
