import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { World } from '../../core-deps.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import type { PartyId } from '../../domain/foundations/ids.js'
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
