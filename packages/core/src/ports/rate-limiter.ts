import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { RateDecision, RatePolicy } from '../domain/keys/rate-limit.js'

/** Decides and counts one more request in a bucket; a refused one is not counted. A Left: the store is down. */
export type RateLimiter = {
  /** Counted only if allowed. */
  readonly take: (bucket: string, policy: RatePolicy) => TE.TaskEither<StoreUnavailable, RateDecision>
}

/** The decision, and the attempt's answer when it ran. */
export type LimitedAttempt<F, A> = { readonly decision: RateDecision; readonly outcome: O.Option<E.Either<F, A>> }

/**
 * Limits failed attempts: an attempt runs only while the bucket's failures are below the limit,
 * and only a Left counts, so the limit bounds guessing however attempts are timed. `check` must be pure.
 */
export type AttemptLimiter = {
  /** Runs `check` unless the bucket has no failures left; counts a Left. */
  readonly attempt: <F, A>(bucket: string, policy: RatePolicy, check: () => E.Either<F, A>) => TE.TaskEither<StoreUnavailable, LimitedAttempt<F, A>>
}
