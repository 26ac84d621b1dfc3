import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { RateWindow } from '../domain/keys/rate-limit.js'

/** A count of requests in one window of one bucket. */
export type RateCount = { readonly bucket: string; readonly window: RateWindow; readonly count: number }

/** An instance that syncs: its id (random per process), when it synced, and for how long a sync counts it. */
export type Heartbeat = { readonly instance: string; readonly at: Date; readonly ttlMs: number }

/** How long `purgeEnded` keeps an instance's last heartbeat: far longer than any `ttlMs` it could matter to. */
export const HEARTBEAT_RETENTION_MS = 3_600_000

/** What one `add` learned: the totals after it, and how many instances share the store now (at least 1). */
export type Synced = { readonly totals: readonly RateCount[]; readonly instances: number }

/** An attempt `attemptIfBelow` ran: what it answered, and the window's total after it. */
export type CountedAttempt<F, A> = { readonly outcome: E.Either<F, A>; readonly total: number }

/**
 * Request counts per (bucket, window), shared by every instance (PostgreSQL, or memory for
 * tests). Windows are identified by their start; a window's row may be forgotten once it ended.
 */
export type RateLimitStore = {
  /**
   * One sync of an instance, in one step: records `heartbeat` (the instance seen at `at`), adds
   * each count to its window's total (creating it) and returns the totals after, one per input,
   * in any order, with how many instances were seen within `ttlMs` of `at` (either side),
   * `heartbeat`'s own included. Inputs name distinct (bucket, window) pairs; none is a heartbeat.
   */
  readonly add: (counts: readonly RateCount[], heartbeat: Heartbeat) => TE.TaskEither<StoreUnavailable, Synced>
  /** Forgets the instance's heartbeat (it is stopping): the next `add`s no longer count it. */
  readonly leave: (instance: string) => TE.TaskEither<StoreUnavailable, void>
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
  /** Forgets windows that ended before `now`, and instances not seen for `HEARTBEAT_RETENTION_MS`; returns how many windows. */
  readonly purgeEnded: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}
