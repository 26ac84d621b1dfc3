import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { RateWindow } from '../domain/keys/rate-limit.js'

/** Requests in one window of one bucket. */
export type RateCount = { readonly bucket: string; readonly window: RateWindow; readonly count: number }

/** An instance's id, when it synced, and how long that counts. */
export type Heartbeat = { readonly instance: string; readonly at: Date; readonly ttlMs: number }

/** Far longer than any `ttlMs` it could matter to. */
export const HEARTBEAT_RETENTION_MS = 3_600_000

/** Totals after an `add`, and the instances sharing the store. */
export type Synced = { readonly totals: readonly RateCount[]; readonly instances: number }

/** What `attemptIfBelow`'s attempt answered, and the total after. */
export type CountedAttempt<F, A> = { readonly outcome: E.Either<F, A>; readonly total: number }

/** Request counts per (bucket, window start), shared by every instance; an ended window may be forgotten. */
export type RateLimitStore = {
  /** Records `heartbeat`, adds each count and returns the totals after, with the instances seen within `ttlMs` of `at`. */
  readonly add: (counts: readonly RateCount[], heartbeat: Heartbeat) => TE.TaskEither<StoreUnavailable, Synced>
  /** The next `add`s no longer count the instance. */
  readonly leave: (instance: string) => TE.TaskEither<StoreUnavailable, void>
  /** Adds one only if the total is below `limit`, atomically; none when the window was full. */
  readonly takeIfBelow: (bucket: string, window: RateWindow, limit: number) => TE.TaskEither<StoreUnavailable, O.Option<number>>
  /**
   * Runs `attempt` while the window's total is below `limit` and held (a row lock), adding one
   * only if it answered a Left; none when full. `attempt` must be pure and synchronous.
   */
  readonly attemptIfBelow: <F, A>(bucket: string, window: RateWindow, limit: number, attempt: () => E.Either<F, A>) => TE.TaskEither<StoreUnavailable, O.Option<CountedAttempt<F, A>>>
  /** Forgets ended windows and instances unseen for `HEARTBEAT_RETENTION_MS`; returns how many windows. */
  readonly purgeEnded: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}
