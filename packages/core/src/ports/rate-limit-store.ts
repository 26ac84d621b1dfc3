import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { RateWindow } from '../domain/rate-limit.js'

/** A count of requests in one window of one bucket. */
export type RateCount = { readonly bucket: string; readonly window: RateWindow; readonly count: number }

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
  /** Forgets windows that ended before `now`; returns how many. */
  readonly purgeEnded: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}
