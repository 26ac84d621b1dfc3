import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { RateWindow } from '../../domain/keys/rate-limit.js'
import { HEARTBEAT_RETENTION_MS, type Heartbeat, type RateCount, type RateLimitStore } from '../../ports/rate-limit-store.js'
import { at, freshId, right, type Implementation } from './run.js'

/** The behaviour every `RateLimitStore` must have. */
export const rateLimitStoreContract = (impl: Implementation<RateLimitStore>): void => {
  describe(`RateLimitStore contract: ${impl.name}`, () => {
    let store: RateLimitStore
    before(async () => {
      store = await impl.make()
    })
    const minute = (iso: string): RateWindow => ({ start: at(iso), end: new Date(at(iso).getTime() + 60_000) })
    const w1 = minute('2026-06-01T12:00:00.000Z')
    const w2 = minute('2026-06-01T12:01:00.000Z')
    const bucket = () => `key:${freshId()}`
    /** Reads and adds counts as an instance whose heartbeat lies far from every other test's. */
    const reader: Heartbeat = { instance: 'contract-reader', at: new Date(0), ttlMs: 1 }
    const add = (counts: readonly RateCount[]) => TE.map((synced: { readonly totals: readonly RateCount[] }) => synced.totals)(store.add(counts, reader))
    const sorted = (counts: readonly RateCount[]) =>
      [...counts].sort((a, b) => a.bucket.localeCompare(b.bucket) || a.window.start.getTime() - b.window.start.getTime())

    it('adds counts per (bucket, window) in one call and returns the totals after', async () => {
      const [a, b] = [bucket(), bucket()].sort()
      expect(sorted(await right(add([{ bucket: a!, window: w1, count: 3 }, { bucket: b!, window: w1, count: 1 }, { bucket: a!, window: w2, count: 2 }])))).to.deep.equal([
        { bucket: a, window: w1, count: 3 },
        { bucket: a, window: w2, count: 2 },
        { bucket: b, window: w1, count: 1 },
      ])
      expect(await right(add([{ bucket: a!, window: w1, count: 4 }]))).to.deep.equal([{ bucket: a, window: w1, count: 7 }])
    })

    it('answers an empty batch with nothing', async () => {
      expect(await right(add([]))).to.deep.equal([])
    })

    it('sums concurrent adds of several writers without losing any', async () => {
      const b = bucket()
      await Promise.all(Array.from({ length: 10 }, () => right(add([{ bucket: b, window: w1, count: 5 }]))))
      expect(await right(add([{ bucket: b, window: w1, count: 0 }]))).to.deep.equal([{ bucket: b, window: w1, count: 50 }])
    })

    it('counts, at each add, the instances seen within its TTL either side, its own heartbeat included', async () => {
      const t = at('2026-07-01T00:00:00.000Z').getTime()
      const [a, b, c] = [freshId(), freshId(), freshId()]
      const beat = (instance: string, ms: number) => ({ instance, at: new Date(t + ms), ttlMs: 1_000 })
      const b1 = bucket()
      expect(await right(store.add([], beat(a, 0)))).to.deep.equal({ totals: [], instances: 1 })
      expect(await right(store.add([{ bucket: b1, window: w1, count: 2 }], beat(b, 100)))).to.deep.equal({ totals: [{ bucket: b1, window: w1, count: 2 }], instances: 2 })
      expect(await right(store.add([], beat(c, 200)))).to.deep.equal({ totals: [], instances: 3 })
      // a's own heartbeat moves on; at 1150 b's (at 100) is no longer within the TTL, c's is.
      expect(await right(store.add([], beat(a, 1_150)))).to.deep.equal({ totals: [], instances: 2 })
      // Seen from before them, the later heartbeats count too (a clock behind the others').
      expect(await right(store.add([], beat(freshId(), -300)))).to.deep.equal({ totals: [], instances: 3 })
    })

    it('no longer counts an instance that left', async () => {
      const t = at('2026-08-01T00:00:00.000Z')
      const [staying, leaving] = [freshId(), freshId()]
      await right(store.add([], { instance: leaving, at: t, ttlMs: 1_000 }))
      expect(await right(store.add([], { instance: staying, at: t, ttlMs: 1_000 }))).to.have.property('instances', 2)
      await right(store.leave(leaving))
      expect(await right(store.add([], { instance: staying, at: t, ttlMs: 1_000 }))).to.have.property('instances', 1)
    })

    it('forgets instances not seen for HEARTBEAT_RETENTION_MS when it purges', async () => {
      const t = at('2027-02-01T00:00:00.000Z').getTime()
      const [gone, kept] = [freshId(), freshId()]
      const ttlMs = 2 * HEARTBEAT_RETENTION_MS
      await right(store.add([], { instance: gone, at: new Date(t), ttlMs }))
      await right(store.add([], { instance: kept, at: new Date(t + 1), ttlMs }))
      expect(await right(store.add([], { instance: freshId(), at: new Date(t + HEARTBEAT_RETENTION_MS), ttlMs }))).to.have.property('instances', 3)
      await right(store.purgeEnded(new Date(t + HEARTBEAT_RETENTION_MS)))
      expect(await right(store.add([], { instance: freshId(), at: new Date(t + HEARTBEAT_RETENTION_MS), ttlMs }))).to.have.property('instances', 3)
    })

    it('takes one while below the limit, then refuses without counting', async () => {
      const b = bucket()
      expect(await right(store.takeIfBelow(b, w1, 2))).to.deep.equal(O.some(1))
      expect(await right(store.takeIfBelow(b, w1, 2))).to.deep.equal(O.some(2))
      expect(await right(store.takeIfBelow(b, w1, 2))).to.deep.equal(O.none)
      expect(await right(add([{ bucket: b, window: w1, count: 0 }]))).to.deep.equal([{ bucket: b, window: w1, count: 2 }])
      expect(await right(store.takeIfBelow(b, w2, 2))).to.deep.equal(O.some(1))
    })

    it('counts what `add` pushed when it takes', async () => {
      const b = bucket()
      await right(add([{ bucket: b, window: w1, count: 4 }]))
      expect(await right(store.takeIfBelow(b, w1, 5))).to.deep.equal(O.some(5))
      expect(await right(store.takeIfBelow(b, w1, 5))).to.deep.equal(O.none)
    })

    it('gives exactly `limit` of many concurrent takes', async () => {
      const b = bucket()
      const taken = await Promise.all(Array.from({ length: 12 }, () => right(store.takeIfBelow(b, w1, 5))))
      expect(taken.filter(O.isSome).map((t) => t.value).sort((x, y) => x - y)).to.deep.equal([1, 2, 3, 4, 5])
    })

    it('runs an attempt below the limit, counting it only when it fails, and refuses without running it at the limit', async () => {
      const b = bucket()
      const fails = () => E.left('wrong')
      const succeeds = () => E.right('right')
      expect(await right(store.attemptIfBelow(b, w1, 2, succeeds))).to.deep.equal(O.some({ outcome: E.right('right'), total: 0 }))
      expect(await right(store.attemptIfBelow(b, w1, 2, fails))).to.deep.equal(O.some({ outcome: E.left('wrong'), total: 1 }))
      expect(await right(store.attemptIfBelow(b, w1, 2, succeeds))).to.deep.equal(O.some({ outcome: E.right('right'), total: 1 }))
      expect(await right(store.attemptIfBelow(b, w1, 2, fails))).to.deep.equal(O.some({ outcome: E.left('wrong'), total: 2 }))
      let ran = 0
      const counted = () => {
        ran += 1
        return E.right('right')
      }
      expect(await right(store.attemptIfBelow(b, w1, 2, counted))).to.deep.equal(O.none)
      expect(ran).to.equal(0)
      expect(await right(store.attemptIfBelow(b, w2, 2, counted))).to.deep.equal(O.some({ outcome: E.right('right'), total: 0 }))
    })

    it('runs exactly `limit` of many concurrent failing attempts, and every succeeding one while failures are left', async () => {
      const b = bucket()
      let ran = 0
      const fails = () => {
        ran += 1
        return E.left('wrong')
      }
      const attempts = await Promise.all(Array.from({ length: 12 }, () => right(store.attemptIfBelow(b, w1, 5, fails))))
      expect([ran, attempts.filter(O.isSome).map((a) => a.value.total).sort((x, y) => x - y)]).to.deep.equal([5, [1, 2, 3, 4, 5]])
      const other = bucket()
      const successes = await Promise.all(Array.from({ length: 30 }, () => right(store.attemptIfBelow(other, w1, 5, () => E.right('right')))))
      expect(successes.filter(O.isSome)).to.have.length(30)
    })

    it('purges windows that ended and keeps the rest', async () => {
      const far = minute('2027-06-01T12:00:00.000Z')
      const later = { start: far.end, end: new Date(far.end.getTime() + 60_000) }
      const [old, open] = [bucket(), bucket()]
      await right(add([{ bucket: old, window: far, count: 3 }, { bucket: open, window: later, count: 2 }]))
      expect(await right(store.purgeEnded(far.end))).to.be.at.least(1)
      expect(await right(add([{ bucket: old, window: far, count: 0 }]))).to.deep.equal([{ bucket: old, window: far, count: 0 }])
      expect(await right(add([{ bucket: open, window: later, count: 0 }]))).to.deep.equal([{ bucket: open, window: later, count: 2 }])
    })
  })
}
