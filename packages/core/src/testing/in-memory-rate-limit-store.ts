import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { RateWindow } from '../domain/keys/rate-limit.js'
import { HEARTBEAT_RETENTION_MS, type RateLimitStore } from '../ports/rate-limit-store.js'

type Row = { readonly bucket: string; readonly window: RateWindow; count: number }

const rowKey = (bucket: string, window: RateWindow): string => `${window.start.getTime()}\u0000${bucket}`

/** Same semantics as the PostgreSQL store, for use-case tests, the in-memory test server and embedders. */
export const inMemoryRateLimitStore = (): RateLimitStore => {
  const rows = new Map<string, Row>()
  /** When each instance last synced. */
  const seen = new Map<string, number>()
  const rowOf = (bucket: string, window: RateWindow): Row => {
    const key = rowKey(bucket, window)
    let row = rows.get(key)
    if (row === undefined) {
      row = { bucket, window, count: 0 }
      rows.set(key, row)
    }
    return row
  }
  return {
    add: (counts, heartbeat) =>
      TE.fromIO(() => {
        const at = heartbeat.at.getTime()
        seen.set(heartbeat.instance, Math.max(seen.get(heartbeat.instance) ?? at, at))
        const totals = counts.map((c) => {
          const row = rowOf(c.bucket, c.window)
          row.count += c.count
          return { bucket: row.bucket, window: row.window, count: row.count }
        })
        const others = [...seen].filter(([instance, t]) => instance !== heartbeat.instance && Math.abs(t - at) < heartbeat.ttlMs)
        return { totals, instances: others.length + 1 }
      }),
    leave: (instance) =>
      TE.fromIO(() => {
        seen.delete(instance)
      }),
    takeIfBelow: (bucket, window, limit) =>
      TE.fromIO(() => {
        const row = rowOf(bucket, window)
        if (row.count >= limit) return O.none
        row.count += 1
        return O.some(row.count)
      }),
    // The calls run one at a time (JavaScript's single thread), which is the store's lock here.
    attemptIfBelow: (bucket, window, limit, attempt) =>
      TE.fromIO(() => {
        const row = rowOf(bucket, window)
        if (row.count >= limit) return O.none
        const outcome = attempt()
        if (E.isLeft(outcome)) row.count += 1
        return O.some({ outcome, total: row.count })
      }),
    purgeEnded: (now) =>
      TE.fromIO(() => {
        let purged = 0
        for (const [key, row] of rows) {
          if (row.window.end.getTime() <= now.getTime()) {
            rows.delete(key)
            purged += 1
          }
        }
        for (const [instance, t] of seen) if (t <= now.getTime() - HEARTBEAT_RETENTION_MS) seen.delete(instance)
        return purged
      }),
  }
}
