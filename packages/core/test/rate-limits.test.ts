import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { storeUnavailable } from '../src/domain/foundations/errors.js'
import { decide, secondsUntilReset, windowOf, type RateDecision, type RatePolicy } from '../src/domain/keys/rate-limit.js'
import type { Heartbeat, RateCount, RateLimitStore } from '../src/ports/rate-limit-store.js'
import type { RateLimiter } from '../src/ports/rate-limiter.js'
import { testClock } from '../src/testing/fixed-clock.js'
import { inMemoryRateLimitStore } from '../src/testing/in-memory-rate-limit-store.js'
import { exactRateLimiter } from '../src/stateful/exact-rate-limiter.js'
import { syncedRateLimiter } from '../src/stateful/synced-rate-limiter.js'

/** Rate limiting (issue 9): the window arithmetic, and both limiters over the in-memory store. */

const policy: RatePolicy = { name: 'default', limit: 3, windowSeconds: 60 }
const T0 = new Date('2026-03-01T12:00:00.000Z')
const INSTANCE_TTL_MS = 2_000

const take = async (limiter: RateLimiter, bucket: string, p: RatePolicy = policy): Promise<RateDecision> => {
  const result = await limiter.take(bucket, p)()
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left))
  return result.right
}
const allowedOf = async (limiter: RateLimiter, bucket: string, n: number): Promise<boolean[]> => {
  const out: boolean[] = []
  for (let i = 0; i < n; i += 1) out.push((await take(limiter, bucket)).allowed)
  return out
}

/** The in-memory store, recording each `add` and failing while `down` is set. */
const observedStore = () => {
  const inner = inMemoryRateLimitStore()
  const adds: (readonly RateCount[])[] = []
  let down = false
  const store: RateLimitStore = {
    ...inner,
    add: (counts, heartbeat) => {
      adds.push(counts)
      return down ? TE.left(storeUnavailable(new Error('connection refused'))) : inner.add(counts, heartbeat)
    },
  }
  return { store, adds, setDown: (value: boolean) => (down = value) }
}

/** A test reading totals through `add`: its heartbeat lies far from every test's clock, so no limiter counts it. */
const READER: Heartbeat = { instance: 'reader', at: new Date(0), ttlMs: 1 }

const totalIn = async (store: RateLimitStore, bucket: string, now: Date): Promise<number> => {
  const result = await store.add([{ bucket, window: windowOf(bucket, policy.windowSeconds, now), count: 0 }], READER)()
  if (E.isLeft(result)) throw new Error('store down')
  return result.right.totals[0]?.count ?? -1
}

describe('rate limit windows and decisions', () => {
  it('puts every instant of a window in the same window, `windowSeconds` long, starting on a whole second', () => {
    const w = windowOf('key:a', 60, T0)
    expect(w.end.getTime() - w.start.getTime()).to.equal(60_000)
    expect(w.start.getTime() % 1000).to.equal(0)
    expect(w.start.getTime()).to.be.at.most(T0.getTime())
    expect(w.end.getTime()).to.be.above(T0.getTime())
    expect(windowOf('key:a', 60, w.start)).to.deep.equal(w)
    expect(windowOf('key:a', 60, new Date(w.end.getTime() - 1))).to.deep.equal(w)
    expect(windowOf('key:a', 60, w.end)).to.deep.equal({ start: w.end, end: new Date(w.end.getTime() + 60_000) })
  })

  it('staggers windows by bucket, the same way on every call', () => {
    const starts = new Set(['key:a', 'key:b', 'key:c', 'key:d', 'key:e'].map((b) => windowOf(b, 60, T0).start.getTime()))
    expect(starts.size).to.be.above(1)
    expect(windowOf('key:b', 60, T0)).to.deep.equal(windowOf('key:b', 60, new Date(T0)))
  })

  it('counts the seconds until reset rounded up, at least 1, at most the window', () => {
    const w = { start: T0, end: new Date(T0.getTime() + 60_000) }
    expect(secondsUntilReset(w, T0)).to.equal(60)
    expect(secondsUntilReset(w, new Date(T0.getTime() + 17_001))).to.equal(43)
    expect(secondsUntilReset(w, new Date(T0.getTime() + 59_999))).to.equal(1)
  })

  it('admits while the used count is below the limit and says what remains', () => {
    const w = { start: T0, end: new Date(T0.getTime() + 60_000) }
    const at = new Date(T0.getTime() + 18_000)
    expect(decide(policy, 0, w, at)).to.deep.equal({ allowed: true, limit: 3, remaining: 2, resetSeconds: 42 })
    expect(decide(policy, 2, w, at)).to.deep.equal({ allowed: true, limit: 3, remaining: 0, resetSeconds: 42 })
    expect(decide(policy, 3, w, at)).to.deep.equal({ allowed: false, limit: 3, remaining: 0, resetSeconds: 42 })
    expect(decide(policy, 7, w, at)).to.deep.equal({ allowed: false, limit: 3, remaining: 0, resetSeconds: 42 })
  })
})

describe('exactRateLimiter', () => {
  it('admits the limit, refuses the next until the window resets', async () => {
    const clock = testClock(T0)
    const limiter = exactRateLimiter({ store: inMemoryRateLimitStore(), clock })
    const first = await take(limiter, 'mint:10.0.0.1')
    expect(first).to.include({ allowed: true, limit: 3, remaining: 2 })
    expect(await allowedOf(limiter, 'mint:10.0.0.1', 3)).to.deep.equal([true, true, false])
    const refused = await take(limiter, 'mint:10.0.0.1')
    expect(refused).to.deep.equal({ allowed: false, limit: 3, remaining: 0, resetSeconds: first.resetSeconds })
    expect(await take(limiter, 'mint:10.0.0.2')).to.include({ allowed: true, remaining: 2 })
    clock.advance(refused.resetSeconds * 1000)
    expect(await take(limiter, 'mint:10.0.0.1')).to.deep.equal({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 })
  })

  it('answers the store failure as a Left, for the caller to decide', async () => {
    const failing: RateLimitStore = { ...inMemoryRateLimitStore(), takeIfBelow: () => TE.left(storeUnavailable('down')) }
    expect(await exactRateLimiter({ store: failing, clock: testClock(T0) }).take('mint:x', policy)()).to.deep.equal(E.left(storeUnavailable('down')))
  })
})

describe('syncedRateLimiter', () => {
  let made = 0
  const make = (store: RateLimitStore, clock = testClock(T0), options: { maxBuckets?: number; errors?: unknown[]; instances?: number } = {}) =>
    syncedRateLimiter({
      store,
      clock,
      instances: options.instances ?? 1,
      instanceId: `instance-${(made += 1)}`,
      instanceTtlMs: INSTANCE_TTL_MS,
      maxBuckets: options.maxBuckets ?? 1000,
      onSyncError: (e) => options.errors?.push(e),
    })

  it('alone, is exact: admits the limit and refuses the rest without counting them', async () => {
    const { store, adds } = observedStore()
    const limiter = make(store)
    expect(await allowedOf(limiter, 'key:a', 5)).to.deep.equal([true, true, true, false, false])
    expect(adds).to.deep.equal([])
    await limiter.sync()
    expect(adds.map((batch) => batch.map((c) => [c.bucket, c.count]))).to.deep.equal([[['key:a', 3]]])
    expect(await take(limiter, 'key:a')).to.include({ allowed: false, remaining: 0 })
  })


  it('decides from memory: no store call per request, one add per sync for every touched bucket (an idle sync carries none)', async () => {
    const { store, adds } = observedStore()
    const limiter = make(store)
    await allowedOf(limiter, 'key:a', 2)
    await allowedOf(limiter, 'key:b', 1)
    await limiter.sync()
    await limiter.sync()
    expect(adds.map((batch) => batch.map((c) => [c.bucket, c.count]).sort())).to.deep.equal([[['key:a', 2], ['key:b', 1]], []])
  })

  it('shares the limit between instances: each learns the others’ counts at its sync', async () => {
    const { store } = observedStore()
    const clock = testClock(T0)
    const [a, b] = [make(store, clock), make(store, clock)]
    expect(await allowedOf(a, 'key:k', 2)).to.deep.equal([true, true])
    await a.sync()
    // b first sees the bucket: it starts from zero (the documented bound), then learns.
    expect(await take(b, 'key:k')).to.include({ allowed: true, remaining: 2 })
    await b.sync()
    expect(await take(b, 'key:k')).to.include({ allowed: false, remaining: 0 })
    expect(await totalIn(store, 'key:k', clock.now())).to.equal(3)
  })

  it('over-admits at most what an instance takes between two syncs', async () => {
    const { store } = observedStore()
    const clock = testClock(T0)
    const limit10: RatePolicy = { name: 'default', limit: 10, windowSeconds: 60 }
    const instances = [make(store, clock), make(store, clock), make(store, clock)]
    let admitted = 0
    for (let round = 0; round < 10; round += 1) {
      for (const instance of instances) if ((await take(instance, 'key:busy', limit10)).allowed) admitted += 1
      await Promise.all(instances.map((i) => i.sync()))
    }
    // Three instances, one request each per sync interval: at most one extra per other instance.
    expect(admitted).to.be.within(10, 12)
  })

  describe('counting the instances that share the store (decision 112)', () => {
    const limit9: RatePolicy = { name: 'default', limit: 9, windowSeconds: 60 }
    const admittedOf = async (limiter: RateLimiter, n: number): Promise<number> => {
      let admitted = 0
      for (let i = 0; i < n; i += 1) if ((await take(limiter, 'key:burst', limit9)).allowed) admitted += 1
      return admitted
    }

    it('learns at each sync how many instances synced recently, its own heartbeat included', async () => {
      const { store } = observedStore()
      const instances = [make(store), make(store), make(store)]
      expect(instances.map((i) => i.instances())).to.deep.equal([1, 1, 1])
      for (const instance of instances) await instance.sync()
      // The first to sync saw only itself: the others count it, and it counts them at its next sync.
      expect(instances.map((i) => i.instances())).to.deep.equal([1, 2, 3])
      for (const instance of instances) await instance.sync()
      expect(instances.map((i) => i.instances())).to.deep.equal([3, 3, 3])
    })

    it('admits a burst over three instances up to the limit once each has synced twice, without RATE_LIMIT_INSTANCES', async () => {
      const { store } = observedStore()
      const instances = [make(store), make(store), make(store)]
      for (let round = 0; round < 2; round += 1) for (const instance of instances) await instance.sync()
      expect(await Promise.all(instances.map((i) => admittedOf(i, 10)))).to.deep.equal([3, 3, 3])
    })

    it('counts the others at its first sync (made before it serves), and is counted at their next', async () => {
      const { store } = observedStore()
      const clock = testClock(T0)
      const [a, b] = [make(store, clock), make(store, clock)]
      for (let round = 0; round < 2; round += 1) for (const instance of [a!, b!]) await instance.sync()
      const c = make(store, clock)
      await c.sync()
      expect([a!.instances(), b!.instances(), c.instances()]).to.deep.equal([2, 2, 3])
      await a!.sync()
      expect(a!.instances()).to.equal(3)
    })

    it('keeps counting an idle instance, whose syncs carry its heartbeat, and stops counting a stopped one after the TTL', async () => {
      const { store } = observedStore()
      const clock = testClock(T0)
      const [busy, idle, stopped] = [make(store, clock), make(store, clock), make(store, clock)]
      for (const instance of [busy, idle, stopped]) await instance.sync()
      clock.advance(INSTANCE_TTL_MS / 2)
      await idle.sync()
      await busy.sync()
      expect(busy.instances()).to.equal(3)
      clock.advance(INSTANCE_TTL_MS / 2)
      await idle.sync()
      await busy.sync()
      expect(busy.instances()).to.equal(2)
    })

    it('stops counting an instance that left, at the next sync', async () => {
      const { store } = observedStore()
      const [a, b] = [make(store), make(store)]
      for (let round = 0; round < 2; round += 1) for (const instance of [a, b]) await instance.sync()
      expect(a.instances()).to.equal(2)
      await b.leave()
      await a.sync()
      expect(a.instances()).to.equal(1)
    })

    it('never counts fewer than RATE_LIMIT_INSTANCES, and keeps the count it learned while the store is down', async () => {
      const { store, setDown } = observedStore()
      const [a, b] = [make(store, testClock(T0), { instances: 3 }), make(store)]
      await b.sync()
      await a.sync()
      await b.sync()
      expect([a.instances(), b.instances()]).to.deep.equal([3, 2])
      setDown(true)
      await b.sync()
      expect(b.instances()).to.equal(2)
    })
  })

  describe('when RATE_LIMIT_INSTANCES says three instances share the store (decision 112)', () => {
    const limit9: RatePolicy = { name: 'default', limit: 9, windowSeconds: 60 }
    const three = (store: RateLimitStore, clock = testClock(T0)) => [0, 1, 2].map(() => make(store, clock, { instances: 3 }))
    const admittedOf = async (limiter: RateLimiter, n: number, bucket = 'key:burst'): Promise<number> => {
      let admitted = 0
      for (let i = 0; i < n; i += 1) if ((await take(limiter, bucket, limit9)).allowed) admitted += 1
      return admitted
    }

    it('admits a burst that reaches every instance at once up to the limit before any sync: each its share', async () => {
      const { store } = observedStore()
      const instances = three(store)
      expect(await Promise.all(instances.map((i) => admittedOf(i, 10)))).to.deep.equal([3, 3, 3])
      // Refused for its share while the window has room: retry after the next sync, not the window.
      expect(await take(instances[0]!, 'key:burst', limit9)).to.deep.equal({ allowed: false, limit: 9, remaining: 0, resetSeconds: 1 })
      // Each learns the total at its own sync: the first to sync knows less and takes a share of
      // more; the next sync settles it, within the bound.
      for (const instance of instances) await instance.sync()
      expect(await Promise.all(instances.map((i) => admittedOf(i, 10)))).to.deep.equal([2, 1, 0])
      for (const instance of instances) await instance.sync()
      expect(await Promise.all(instances.map((i) => admittedOf(i, 10)))).to.deep.equal([0, 0, 0])
      expect(await totalIn(store, 'key:burst', T0)).to.equal(12)
      expect((await take(instances[1]!, 'key:burst', limit9)).resetSeconds).to.be.above(1)
    })

    it('lets one busy instance reach the limit sync by sync, a share of what is left each time', async () => {
      const { store } = observedStore()
      const [a] = three(store)
      const perSync: number[] = []
      for (let round = 0; round < 6; round += 1) {
        perSync.push(await admittedOf(a!, 10))
        await a!.sync()
      }
      expect(perSync).to.deep.equal([3, 2, 2, 1, 1, 0])
    })

    it('over-admits at most (instances - 1) shares of the limit, by instances that had not yet seen the bucket', async () => {
      const { store } = observedStore()
      const [a, b, c] = three(store)
      for (let round = 0; round < 6; round += 1) {
        await admittedOf(a!, 10)
        await a!.sync()
      }
      // b and c learn the total only at their first sync: each admits its share of the whole limit.
      expect([await admittedOf(b!, 10), await admittedOf(c!, 10)]).to.deep.equal([3, 3])
      await Promise.all([b!.sync(), c!.sync()])
      expect(await totalIn(store, 'key:burst', T0)).to.equal(9 + 2 * 3)
      expect(await Promise.all([a!, b!, c!].map((i) => admittedOf(i, 10)))).to.deep.equal([0, 0, 0])
    })

    it('never admits more than limit + (instances - 1) * ceil(limit / instances), however requests, syncs and their round trips interleave', async () => {
      let seed = 53
      const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
      for (const limit of [1, 2, 5, 9, 10, 31]) {
        for (let trial = 0; trial < 40; trial += 1) {
          const inner = inMemoryRateLimitStore()
          // Each add waits until the schedule lets it through, so pushes overlap requests.
          const held: (() => void)[] = []
          const store: RateLimitStore = { ...inner, add: (counts, heartbeat) => () => new Promise((resolve) => held.push(() => void inner.add(counts, heartbeat)().then(resolve))) }
          const instances = three(store)
          const policy: RatePolicy = { name: 'default', limit, windowSeconds: 60 }
          let admitted = 0
          for (let step = 0; step < 20 * limit + 40; step += 1) {
            const r = random()
            const instance = instances[Math.floor(random() * 3)]!
            if (r < 0.6) admitted += (await take(instance, 'key:k', policy)).allowed ? 1 : 0
            else if (r < 0.8) void instance.sync()
            else if (held.length > 0) {
              held.splice(Math.floor(random() * held.length), 1)[0]!()
              await new Promise((resolve) => setImmediate(resolve))
            }
          }
          expect(admitted, `limit ${limit}, trial ${trial}`).to.be.at.most(limit + 2 * Math.ceil(limit / 3))
        }
      }
    })
  })

  it('keeps counting locally while the store is down, reports it, and pushes the counts when it is back', async () => {
    const { store, setDown } = observedStore()
    const errors: unknown[] = []
    const clock = testClock(T0)
    const limiter = make(store, clock, { errors })
    setDown(true)
    expect(await allowedOf(limiter, 'key:a', 2)).to.deep.equal([true, true])
    await limiter.sync()
    expect(errors).to.have.length(1)
    expect(await allowedOf(limiter, 'key:a', 2)).to.deep.equal([true, false])
    setDown(false)
    await limiter.sync()
    expect(await totalIn(store, 'key:a', clock.now())).to.equal(3)
  })

  it('starts a new count when the window ends and forgets ended windows at sync', async () => {
    const { store } = observedStore()
    const clock = testClock(T0)
    const limiter = make(store, clock)
    await allowedOf(limiter, 'key:a', 3)
    const refused = await take(limiter, 'key:a')
    expect(refused.allowed).to.equal(false)
    clock.advance(refused.resetSeconds * 1000)
    expect(await take(limiter, 'key:a')).to.deep.equal({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 })
    await allowedOf(limiter, 'key:b', 1)
    clock.advance(60_000)
    await limiter.sync()
    expect(limiter.size()).to.equal(0)
  })

  it('holds at most `maxBuckets` buckets, pushing the counts of those it lets go', async () => {
    const { store } = observedStore()
    const clock = testClock(T0)
    const limiter = make(store, clock, { maxBuckets: 2 })
    for (const bucket of ['key:a', 'key:b', 'key:c', 'key:d']) await allowedOf(limiter, bucket, 2)
    expect(limiter.size()).to.equal(2)
    await limiter.sync()
    for (const bucket of ['key:a', 'key:b', 'key:c', 'key:d']) expect(await totalIn(store, bucket, clock.now())).to.equal(2)
  })

  it('lets go of the least recently used bucket, a bucket used again counting as recent', async () => {
    const { store } = observedStore()
    const limiter = make(store, testClock(T0), { maxBuckets: 2 })
    expect(await allowedOf(limiter, 'key:a', 2)).to.deep.equal([true, true]) // a, already the most recent the second time
    await take(limiter, 'key:b') // b is now the most recent
    await take(limiter, 'key:a') // a is again: its third request
    await take(limiter, 'key:c') // b goes, not a
    expect(limiter.size()).to.equal(2)
    // a kept its count (a bucket let go would start again from zero until the next sync).
    expect(await take(limiter, 'key:a')).to.include({ allowed: false, remaining: 0 })
  })

  it('runs one push at a time; a sync asked for meanwhile pushes after it', async () => {
    const inner = inMemoryRateLimitStore()
    const batches: number[][] = []
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const store: RateLimitStore = {
      ...inner,
      add: (counts, heartbeat) => async () => {
        batches.push(counts.map((c) => c.count))
        if (batches.length === 1) await gate
        return inner.add(counts, heartbeat)()
      },
    }
    const limiter = make(store)
    await take(limiter, 'key:a')
    const first = limiter.sync()
    await take(limiter, 'key:a')
    // While the first push is in flight, its count still counts against the limit.
    expect(await take(limiter, 'key:a')).to.include({ remaining: 0 })
    const second = limiter.sync()
    const third = limiter.sync()
    release()
    await Promise.all([first, second, third])
    expect(batches).to.deep.equal([[1], [2]])
  })
})
