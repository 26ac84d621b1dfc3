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
  /** Fewest instances assumed to share the store (`RATE_LIMIT_INSTANCES`); the last sync's count when larger. */
  readonly instances: number
  /** Random per process: a restart is a new instance. */
  readonly instanceId: string
  /** How long a sync counts an instance among those sharing the store (several sync periods). */
  readonly instanceTtlMs: number
  /** About this many buckets are kept; the least recently used go first, their counts still pushed. */
  readonly maxBuckets: number
  /** Called with the store's error when a sync fails; the counts are kept for the next one. */
  readonly onSyncError: (error: unknown) => void
}

/** The limiter `syncedRateLimiter` returns: a `RateLimiter` whose owner calls `sync` on a timer and at shutdown. */
export type SyncedRateLimiter = RateLimiter & {
  /** Pushes unpushed counts with a heartbeat, learns totals and the instance count; a call during a push waits for one more. */
  readonly sync: () => Promise<void>
  /** Takes this instance out of the others' count at once (at shutdown, after the last `sync`). */
  readonly leave: () => Promise<void>
  /** Buckets held in memory. */
  readonly size: () => number
  /** How many instances this one takes to share the store. */
  readonly instances: () => number
}

/** `known`: the store's last total; `pending`: admitted since the last push; `inFlight`: in the push under way. */
type Counter = { readonly window: RateWindow; readonly startMs: number; readonly endMs: number; known: number; pending: number; inFlight: number }

const pairKey = (bucket: string, window: RateWindow): string => `${window.start.getTime()}\u0000${bucket}`

/** One instance's share of what `limit` leaves beyond `known`, rounded up; all of it when alone. */
export const shareOf = (limit: number, known: number, instances: number): number => Math.max(0, Math.ceil((limit - known) / instances))

/** Decides from memory within its `shareOf` (bound: decision 112); with the store down, enforces its shares alone. */
export const syncedRateLimiter = (deps: SyncedRateLimiterDeps): SyncedRateLimiter => {
  const counters = new Map<string, Counter>()
  let counted = 0
  const instances = () => Math.max(deps.instances, counted)
  /** Unpushed counts of buckets evicted while their window was open. */
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

  let newest: Counter | undefined

  /** The bucket's counter for the window of `now`, made the most recently used. */
  const counterFor = (bucket: string, windowSeconds: number, now: Date): Counter => {
    const nowMs = now.getTime()
    const current = counters.get(bucket)
    if (current !== undefined && nowMs >= current.startMs && nowMs < current.endMs) {
      if (current !== newest) {
        counters.delete(bucket)
        counters.set(bucket, current)
        newest = current
      }
      return current
    }
    // An ended window's unpushed count is dropped with it.
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
      // Keep every count for the next sync, on its counter if still current, else as evicted.
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
