import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { RateWindow } from '../domain/rate-limit.js'

/** A count of requests in one window of one bucket. */
export type RateCount = { readonly bucket: string; readonly window: RateWindow; readonly count: number }

/** An attempt `attemptIfBelow` ran: what it answered, and the window's total after it. */
export type CountedAttempt<F, A> = { readonly outcome: E.Either<F, A>; readonly total: number }

/**
 * Request counts per (bucket, window), shared by every instance (PostgreSQL, or memory for
 * tests). Windows are identified by their start; a window's row may be forgotten once it ended.
 */
export type RateLimitStore = {
  /**
   * Adds each count to its window's total (creating it) in one step and returns the totals
   * after, one per input, in any order. Inputs name distinct (bucket, window) pairs.
   */
  readonly add: (counts: readonly RateCount[]) => TE.TaskEither<StoreUnavailable, readonly RateCount[]>
  /**
   * Adds one to the window's total only if the total is below `limit`, atomically even under
   * concurrent calls: some(total after) when it did, none when the window was already full.
   */
  readonly takeIfBelow: (bucket: string, window: RateWindow, limit: number) => TE.TaskEither<StoreUnavailable, O.Option<number>>
  /**
   * Load, decide, commit, one call at a time per (bucket, window) even under concurrent calls:
   * if the window's total is below `limit`, runs `attempt` and adds one to the total only if it
   * answered a Left; some(what it answered, the total after). If the total had reached the
   * limit, `attempt` is not run: none. However many calls arrive at once, at most `limit` of
   * them run and answer a Left in a window, and a Right never adds to the total. `attempt` runs
   * while the window's count is held (a row lock), so it must be pure and synchronous: no I/O.
   */
  readonly attemptIfBelow: <F, A>(bucket: string, window: RateWindow, limit: number, attempt: () => E.Either<F, A>) => TE.TaskEither<StoreUnavailable, O.Option<CountedAttempt<F, A>>>
  /** Forgets windows that ended before `now`; returns how many. */
  readonly purgeEnded: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}
