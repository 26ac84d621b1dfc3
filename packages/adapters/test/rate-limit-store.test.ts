import { exactRateLimiter, syncedRateLimiter, windowOf, type RatePolicy } from '@lendgate/core'
import { inMemoryRateLimitStore, testClock } from '@lendgate/core/testing'
import { freshId, rateLimitStoreContract, right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import { postgresRateLimitStore } from '../src/postgres/rate-limit-store.js'
import { testDatabases } from '../src/testing/test-databases.js'

/** The rate-limit store (issue 9): its contract over every implementation, and both limiters on PostgreSQL. */

rateLimitStoreContract({ name: 'in memory', make: async () => inMemoryRateLimitStore() })

for (const database of testDatabases()) {
  rateLimitStoreContract({ name: database.name, make: async () => postgresRateLimitStore((await database.open()).db) })

  describe(`rate limiters on ${database.name}`, () => {
    const policy: RatePolicy = { name: 'default', limit: 5, windowSeconds: 60 }

    it('two synced instances share one limit through the store', async () => {
      const store = postgresRateLimitStore((await database.open()).db)
      const clock = testClock(new Date('2031-03-01T08:00:00.000Z'))
      const make = () =>
        syncedRateLimiter({ store, clock, instances: 1, instanceId: freshId(), instanceTtlMs: 1_000, maxBuckets: 100, onSyncError: (e) => expect.fail(String(e)) })
      const [a, b] = [make(), make()]
      const bucket = `key:${freshId()}`
      for (let i = 0; i < 4; i += 1) expect((await right(a.take(bucket, policy))).allowed).to.equal(true)
      await a.sync()
      // b has not seen the bucket: it starts from zero and learns the total at its first sync.
      expect(await right(b.take(bucket, policy))).to.include({ allowed: true })
      await b.sync()
      expect(await right(b.take(bucket, policy))).to.include({ allowed: false, remaining: 0 })
      // a last learned the total before b's request: it admits until its next sync, no longer.
      expect(await right(a.take(bucket, policy))).to.include({ allowed: true })
      await a.sync()
      expect(await right(a.take(bucket, policy))).to.include({ allowed: false, remaining: 0 })
      const reader = { instance: freshId(), at: new Date(0), ttlMs: 1 }
      expect(await right(store.add([{ bucket, window: windowOf(bucket, 60, clock.now()), count: 0 }], reader))).to.have.nested.property('totals[0].count', 6)
    })

    it('the exact limiter admits exactly the limit of concurrent requests', async () => {
      const store = postgresRateLimitStore((await database.open()).db)
      const limiter = exactRateLimiter({ store, clock: testClock(new Date('2031-03-01T08:00:00.000Z')) })
      const bucket = `mint:${freshId()}`
      const decisions = await Promise.all(Array.from({ length: 9 }, () => right(limiter.take(bucket, policy))))
      expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort()).to.deep.equal([0, 1, 2, 3, 4])
      expect(decisions.filter((d) => !d.allowed)).to.have.length(4)
    })
  })
}
