import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { decide, windowOf, type RateDecision, type RatePolicy, type RateWindow } from '../domain/keys/rate-limit.js'
import type { Clock } from '../ports/clock.js'
import type { RateCount, RateLimitStore } from '../ports/rate-limit-store.js'
import type { RateLimiter } from '../ports/rate-limiter.js'

/** What `syncedRateLimiter` needs. */
export type SyncedRateLimiterDeps = {
  readonly store: Pick<RateLimitStore, 'add' | 'leave'>
  readonly clock: Clock
  /**
   * The fewest instances assumed to share the store (`RATE_LIMIT_INSTANCES`, at least 1): until
   * its first sync, an instance takes this many; after, the larger of this and the count its last
   * sync learned. Between two of its syncs, an instance admits into a bucket at most its share of
   * what the bucket had left when it last learned the total (`shareOf`).
   */
  readonly instances: number
  /** This instance's id in the store's heartbeats: random per process, so a restart is a new instance. */
  readonly instanceId: string
  /** How long a sync counts an instance among those sharing the store (several sync periods). */
  readonly instanceTtlMs: number
  /**
   * At most about this many buckets are kept in memory; the least recently used go first (their
   * unsynced counts are still pushed). It can be exceeded only by buckets first seen since the
   * last sync, which the next sync lets go.
   */
  readonly maxBuckets: number
  /** Called with the store's error when a sync fails; the counts are kept for the next one. */
  readonly onSyncError: (error: unknown) => void
}

/** The limiter `syncedRateLimiter` returns: a `RateLimiter` whose owner calls `sync` on a timer and at shutdown. */
export type SyncedRateLimiter = RateLimiter & {
  /**
   * Pushes every count not yet in the store, in one `add` that also records this instance's
   * heartbeat, and learns the totals of those buckets from every instance and how many instances
   * share the store. Called on a timer (`RATE_LIMIT_SYNC_MS`) and at shutdown. If a
   * push is under way, the returned promise waits for it and for one more push after it.
   */
  readonly sync: () => Promise<void>
  /** Takes this instance out of the others' count at once, at shutdown after the last `sync` (else it leaves `instanceTtlMs` after it). */
  readonly leave: () => Promise<void>
  /** Buckets held in memory. */
  readonly size: () => number
  /** How many instances this one takes to share the store, its share being one of them. */
  readonly instances: () => number
}

/**
 * One bucket's current window as this instance knows it: `known` is the total the store last
 * reported (every instance's pushed counts), `pending` what this instance admitted since its
 * last push, `inFlight` what the push under way carries.
 */
type Counter = { readonly window: RateWindow; readonly startMs: number; readonly endMs: number; known: number; pending: number; inFlight: number }

const pairKey = (bucket: string, window: RateWindow): string => `${window.start.getTime()}\u0000${bucket}`

/**
 * What one of `instances` instances may admit into a bucket on its own, beyond the total `known`
 * it last learned: its share of what the limit leaves, rounded up so that the last request of a
 * window can still be admitted somewhere. With one instance, all that is left.
 */
export const shareOf = (limit: number, known: number, instances: number): number => Math.max(0, Math.ceil((limit - known) / instances))

/**
 * The hot-path limiter (issue 9): decides from memory, never waiting for the store. Each
 * instance counts what it admits and, on every sync, pushes those counts to the shared store
 * in one statement and learns the totals, and how many instances synced within `instanceTtlMs`.
 * It admits a request while its own count since the total it last learned (`known`) is below
 * its share of what that total left (`shareOf`): all of it when it is alone, a third of it each
 * between two syncs when three instances share.
 *
 * Bound (decision 112): one instance alone is exact. Once every instance serving a bucket has
 * synced since the last one started, a burst reaching all of them at once gets the limit (within
 * `instances - 1`, the rounding) before any of them syncs, each its share; whatever the timing,
 * a window admits at most `limit + (instances - 1) * ceil(limit / instances)`, under twice the
 * limit, the worst case being instances that had not yet seen the bucket in the window each
 * admitting their share of the whole limit after the others used it up. An instance that started
 * since another's last sync is not yet in that one's count: for one sync period, that one admits
 * the larger share of a smaller fleet. A request refused for its instance's share, while the
 * window still has room, is told to retry after one second (the share is renewed at the next
 * sync). If the store is down, each instance keeps enforcing its shares, of the fleet it last
 * counted, on its own traffic, learning nothing new, and pushes its counts when it is back.
 */
export const syncedRateLimiter = (deps: SyncedRateLimiterDeps): SyncedRateLimiter => {
  const counters = new Map<string, Counter>()
  /** How many instances the last successful sync counted (none before the first). */
  let counted = 0
  const instances = () => Math.max(deps.instances, counted)
  /** Unpushed counts of buckets evicted from memory while their window was still open. */
  let evicted: RateCount[] = []

  const evictBeyondCap = () => {
    while (counters.size > deps.maxBuckets) {
      const oldest = counters.entries().next()
      if (oldest.done === true) return
      const [bucket, counter] = oldest.value
      counters.delete(bucket)
      if (counter.pending > 0) evicted.push({ bucket, window: counter.window, count: counter.pending })
    }
  }

  /** The counter last put at the end of `counters`, or one since removed. */
  let newest: Counter | undefined

  /** The bucket's counter for the window of `now`, made the most recently used (every request calls this). */
  const counterFor = (bucket: string, windowSeconds: number, now: Date): Counter => {
    const nowMs = now.getTime()
    const current = counters.get(bucket)
    if (current !== undefined && nowMs >= current.startMs && nowMs < current.endMs) {
      // A busy bucket is usually the last one used already: then the Map is left as it is.
      if (current !== newest) {
        counters.delete(bucket)
        counters.set(bucket, current)
        newest = current
      }
      return current
    }
    // A window that ended takes its unpushed count with it: nobody needs it any more.
    if (current !== undefined) counters.delete(bucket)
    const window = windowOf(bucket, windowSeconds, now)
    const fresh: Counter = { window, startMs: window.start.getTime(), endMs: window.end.getTime(), known: 0, pending: 0, inFlight: 0 }
    counters.set(bucket, fresh)
    newest = fresh
    evictBeyondCap()
    return fresh
  }

  const pushOnce = async (): Promise<void> => {
    const now = deps.clock.now()
    const batch = new Map<string, RateCount>()
    const include = (bucket: string, window: RateWindow, count: number) => {
      const key = pairKey(bucket, window)
      batch.set(key, { bucket, window, count: (batch.get(key)?.count ?? 0) + count })
    }
    const fromEvicted = evicted.filter((c) => now < c.window.end)
    evicted = []
    for (const c of fromEvicted) include(c.bucket, c.window, c.count)
    const flying: { readonly bucket: string; readonly counter: Counter; readonly count: number }[] = []
    for (const [bucket, counter] of counters) {
      if (now >= counter.window.end) {
        counters.delete(bucket)
        continue
      }
      if (counter.pending === 0) continue
      include(bucket, counter.window, counter.pending)
      flying.push({ bucket, counter, count: counter.pending })
      counter.inFlight += counter.pending
      counter.pending = 0
    }
    // An idle instance syncs too: its heartbeat keeps it counted by the others.
    const result = await deps.store.add([...batch.values()], { instance: deps.instanceId, at: now, ttlMs: deps.instanceTtlMs })()
    for (const f of flying) f.counter.inFlight -= f.count
    if (E.isLeft(result)) {
      // Keep every count for the next sync: on its counter if that is still the bucket's
      // current one, else with the evicted counts.
      for (const f of flying) {
        if (counters.get(f.bucket) === f.counter) f.counter.pending += f.count
        else evicted.push({ bucket: f.bucket, window: f.counter.window, count: f.count })
      }
      evicted.push(...fromEvicted)
      deps.onSyncError(result.left.cause)
      return
    }
    counted = result.right.instances
    for (const total of result.right.totals) {
      const counter = counters.get(total.bucket)
      if (counter !== undefined && counter.window.start.getTime() === total.window.start.getTime()) {
        counter.known = Math.max(counter.known, total.count)
      }
    }
  }

  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const sync = (): Promise<void> => {
    if (running === undefined) {
      running = pushOnce().finally(() => {
        running = undefined
      })
      return running
    }
    queued ??= running.then(() => {
      queued = undefined
      return sync()
    })
    return queued
  }

  /** Decides from memory: the count is pushed to the store by the next sync. */
  const takeNow = (bucket: string, policy: RatePolicy): RateDecision => {
    const now = deps.clock.now()
    const counter = counterFor(bucket, policy.windowSeconds, now)
    const local = counter.pending + counter.inFlight
    const decision = decide(policy, counter.known + local, counter.window, now)
    if (!decision.allowed) return decision
    if (local >= shareOf(policy.limit, counter.known, instances())) return { ...decision, allowed: false, remaining: 0, resetSeconds: 1 }
    counter.pending += 1
    return decision
  }

  return {
    take: (bucket, policy) => TE.right(takeNow(bucket, policy)),
    sync,
    leave: async () => {
      const left = await deps.store.leave(deps.instanceId)()
      if (E.isLeft(left)) deps.onSyncError(left.left.cause)
    },
    size: () => counters.size,
    instances,
  }
}
