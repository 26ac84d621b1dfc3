import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { JobLease, JobLeases } from '../../ports/job-leases.js'
import { at, freshId, right, type Implementation } from './run.js'

/** The behaviour every `JobLeases` must have. */
export const jobLeasesContract = (impl: Implementation<JobLeases>): void => {
  describe(`JobLeases contract: ${impl.name}`, () => {
    let leases: JobLeases
    before(async () => {
      leases = await impl.make()
    })
    const t0 = at('2026-11-26T00:15:00.000Z')
    const later = (ms: number) => new Date(t0.getTime() + ms)
    const LEASE = 30_000
    const job = () => `job-${freshId()}`
    const take = async (name: string, runKey: string, holder: string, now = t0): Promise<JobLease> => {
      const lease = await right(leases.acquire(name, runKey, holder, now, LEASE))
      if (O.isNone(lease)) throw new Error(`${holder} did not get the lease on ${name} ${runKey}`)
      return lease.value
    }

    it('gives a free run to one holder, and no one else until its lease ends', async () => {
      const name = job()
      expect(await take(name, '2026-11-26', 'a')).to.deep.equal({ job: name, runKey: '2026-11-26', holder: 'a', progress: null })
      expect(await right(leases.acquire(name, '2026-11-26', 'b', later(LEASE - 1), LEASE))).to.deep.equal(O.none)
      expect(await right(leases.acquire(name, '2026-11-27', 'b', later(LEASE - 1), LEASE))).to.deep.equal(O.none)
    })

    it('hands a run whose lease ran out to the next holder with the progress saved, and refuses the old holder after', async () => {
      const name = job()
      const first = await take(name, '2026-11-26', 'a')
      expect(await right(leases.renew(first, '{"after":7}', later(1_000), LEASE))).to.equal(true)
      // Renewed at 1 s: still held at 30 s, free from 31 s.
      expect(await right(leases.acquire(name, '2026-11-26', 'b', later(LEASE), LEASE))).to.deep.equal(O.none)
      const second = await take(name, '2026-11-26', 'b', later(LEASE + 1_000))
      expect(second.progress).to.equal('{"after":7}')
      expect(await right(leases.renew(first, '{"after":9}', later(LEASE + 2_000), LEASE))).to.equal(false)
      expect(await right(leases.complete(first, later(LEASE + 2_000)))).to.equal(false)
      expect(await right(leases.lastCompleted(name))).to.deep.equal(O.none)
      expect(await right(leases.renew(second, '{"after":8}', later(LEASE + 2_000), LEASE))).to.equal(true)
    })

    it('starts a later run from nothing, whatever an earlier unfinished run saved', async () => {
      const name = job()
      const first = await take(name, '2026-11-26', 'a')
      await right(leases.release(first, '{"after":7}'))
      expect((await take(name, '2026-11-27', 'b')).progress).to.equal(null)
    })

    it('lets another holder resume a released run at once', async () => {
      const name = job()
      const first = await take(name, '2026-11-26', 'a')
      await right(leases.release(first, '{"after":3}'))
      expect((await take(name, '2026-11-26', 'b', later(1))).progress).to.equal('{"after":3}')
    })

    it('records a completed run: it and earlier runs are no longer due, later ones are', async () => {
      const name = job()
      const lease = await take(name, '2026-11-26', 'a')
      expect(await right(leases.complete(lease, later(5_000)))).to.equal(true)
      expect(await right(leases.lastCompleted(name))).to.deep.equal(O.some({ runKey: '2026-11-26', finishedAt: later(5_000) }))
      expect(await right(leases.acquire(name, '2026-11-26', 'b', later(6_000), LEASE))).to.deep.equal(O.none)
      expect(await right(leases.acquire(name, '2026-11-25', 'b', later(6_000), LEASE))).to.deep.equal(O.none)
      expect((await take(name, '2026-11-27', 'b', later(6_000))).progress).to.equal(null)
      expect(await right(leases.lastCompleted(name))).to.deep.equal(O.some({ runKey: '2026-11-26', finishedAt: later(5_000) }))
    })

    it('gives a run to exactly one of many holders asking at once', async () => {
      const name = job()
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => right(leases.acquire(name, '2026-11-26', `h${i}`, t0, LEASE))))
      expect(answers.filter(O.isSome)).to.have.length(1)
    })
  })
}
