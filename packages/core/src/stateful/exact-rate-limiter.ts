import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { decide, windowOf } from '../domain/rate-limit.js'
import type { Clock } from '../ports/clock.js'
import type { RateLimitStore } from '../ports/rate-limit-store.js'
import type { RateLimiter } from '../ports/rate-limiter.js'

/** What `exactRateLimiter` needs. */
export type ExactRateLimiterDeps = {
  readonly store: Pick<RateLimitStore, 'takeIfBelow'>
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
