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

/** Asks the store on every request (one atomic conditional increment): exact across instances, for rare routes. */
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

/** Failed attempts limited exactly, each decided under the store's lock on its window (decision 109). */
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
