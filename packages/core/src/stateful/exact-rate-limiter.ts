import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { attemptAdmitted, decide, windowOf } from '../domain/keys/rate-limit.js'
import type { Clock } from '../ports/clock.js'
import type { RateLimitStore } from '../ports/rate-limit-store.js'
import type { AttemptLimiter, RateLimiter } from '../ports/rate-limiter.js'

/** What `exactRateLimiter` needs. */
export type ExactRateLimiterDeps = {
  readonly store: Pick<RateLimitStore, 'takeIfBelow' | 'attemptIfBelow'>
  readonly clock: Clock
}

/**
 * A limiter that asks the shared store on every request (one atomic conditional increment), so
 * the limit holds exactly across every instance. For rare, expensive routes (key minting,
 * verification codes); the hot path uses `syncedRateLimiter`.
 */
export const exactRateLimiter = (deps: ExactRateLimiterDeps): RateLimiter => ({
  take: (bucket, policy) => {
    const now = deps.clock.now()
    const window = windowOf(bucket, policy.windowSeconds, now)
    return pipe(
      deps.store.takeIfBelow(bucket, window, policy.limit),
      TE.map(
        O.match(
          () => decide(policy, policy.limit, window, now),
          (total) => decide(policy, total - 1, window, now),
        ),
      ),
    )
  },
})

/**
 * Failed attempts limited exactly across every instance (`AttemptLimiter`): each attempt is
 * decided under the shared store's lock on its bucket's window (`attemptIfBelow`), so however
 * many arrive at once, at most `policy.limit` failures are checked in a window, and a success
 * never counts. For the mint secret (decision 109).
 */
export const exactAttemptLimiter = (deps: ExactRateLimiterDeps): AttemptLimiter => ({
  attempt: (bucket, policy, check) => {
    const now = deps.clock.now()
    const window = windowOf(bucket, policy.windowSeconds, now)
    return pipe(
      deps.store.attemptIfBelow(bucket, window, policy.limit, check),
      TE.map(
        O.match(
          () => ({ decision: decide(policy, policy.limit, window, now), outcome: O.none }),
          ({ outcome, total }) => ({ decision: attemptAdmitted(policy, total, window, now), outcome: O.some(outcome) }),
        ),
      ),
    )
  },
})
