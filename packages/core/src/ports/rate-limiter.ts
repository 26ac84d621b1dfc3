import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { RateDecision, RatePolicy } from '../domain/keys/rate-limit.js'

/**
 * Decides whether one more request may go into a bucket (`key:<apiKeyId>`, `mint:<address>`,
 * …) under a policy, and counts it if so. A refused request is not counted. A Left means the
 * count could not be kept (the store is down); callers decide whether to fail open.
 *
 * @property take - The decision for one more request in `bucket` under `policy`, counted if allowed.
 */
export type RateLimiter = {
  readonly take: (bucket: string, policy: RatePolicy) => TE.TaskEither<StoreUnavailable, RateDecision>
}

/** What an `AttemptLimiter` did with one attempt: its decision, and what the attempt answered if it ran (none when refused). */
export type LimitedAttempt<F, A> = { readonly decision: RateDecision; readonly outcome: O.Option<E.Either<F, A>> }

/**
 * Limits failed attempts (a wrong secret, …) per bucket under a policy, where `RateLimiter`
 * limits requests. An attempt runs only while its bucket's failures in the window are below
 * the limit, and only a failed one (a Left) is counted: a bucket with failures left succeeds
 * any number of times, and a bucket without any refuses every attempt, a right one included,
 * until the window ends, so the limit bounds guessing however the attempts are timed. Attempts
 * in one bucket are decided one at a time. A Left means the count could not be kept (the store
 * is down); callers decide whether to fail open.
 *
 * @property attempt - Runs `check` (pure, synchronous) unless `bucket` has no failures left under `policy`; counts it if it answers a Left.
 */
export type AttemptLimiter = {
  readonly attempt: <F, A>(bucket: string, policy: RatePolicy, check: () => E.Either<F, A>) => TE.TaskEither<StoreUnavailable, LimitedAttempt<F, A>>
}
