import { expect } from 'chai'
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from '../../ports/idempotency-store.js'
import { at, freshId, right, type Implementation } from './run.js'

/** The behaviour every `IdempotencyStore` must have. */
export const idempotencyStoreContract = (impl: Implementation<IdempotencyStore>): void => {
  describe(`IdempotencyStore contract: ${impl.name}`, () => {
    let store: IdempotencyStore
    before(async () => {
      store = await impl.make()
    })
    const t0 = at('2026-05-01T00:00:00.000Z')
    const later = (ms: number): Date => new Date(t0.getTime() + ms)
    const ref = () => ({ scope: freshId(), key: `key-${freshId()}` })

    it('claims a new key, then reports it in progress to the same request', async () => {
      const r = ref()
      expect(await right(store.claim(r, 'fp1', t0))).to.deep.equal({ _tag: 'Claimed' })
      expect(await right(store.claim(r, 'fp1', later(1000)))).to.deep.equal({ _tag: 'InProgress' })
    })

    it('reports a mismatch for another request under the same key, finished or not', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      expect(await right(store.claim(r, 'fp2', t0))).to.deep.equal({ _tag: 'Mismatch' })
      await right(store.complete(r, { status: 201, body: '{"a":1}' }, t0))
      expect(await right(store.claim(r, 'fp2', t0))).to.deep.equal({ _tag: 'Mismatch' })
    })

    it('replays the stored response once complete', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      await right(store.complete(r, { status: 201, body: '{"id":"x","n":[1,2]}' }, t0))
      expect(await right(store.claim(r, 'fp1', later(5000)))).to.deep.equal({
        _tag: 'Replay',
        response: { status: 201, body: '{"id":"x","n":[1,2]}' },
      })
    })

    it('keeps key spaces of different scopes apart', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      expect(await right(store.claim({ scope: freshId(), key: r.key }, 'fp9', t0))).to.deep.equal({ _tag: 'Claimed' })
    })

    it('lets a released claim be claimed again', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      await right(store.release(r))
      expect(await right(store.claim(r, 'fp1', t0))).to.deep.equal({ _tag: 'Claimed' })
    })

    it('does not release a completed key', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      await right(store.complete(r, { status: 200, body: '{}' }, t0))
      await right(store.release(r))
      expect(await right(store.claim(r, 'fp1', t0))).to.deep.equal({ _tag: 'Replay', response: { status: 200, body: '{}' } })
    })

    it('lets an abandoned claim be taken over after its lease', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      expect(await right(store.claim(r, 'fp1', later(IDEMPOTENCY_LEASE_MS + 1)))).to.deep.equal({ _tag: 'Claimed' })
    })

    it('forgets a key after the retention period', async () => {
      const r = ref()
      await right(store.claim(r, 'fp1', t0))
      await right(store.complete(r, { status: 201, body: '{}' }, t0))
      expect(await right(store.claim(r, 'fp2', later(IDEMPOTENCY_RETENTION_MS + 1)))).to.deep.equal({ _tag: 'Claimed' })
    })

    it('gives exactly one of many concurrent claims of a new key', async () => {
      const r = ref()
      const claims = await Promise.all(Array.from({ length: 12 }, () => right(store.claim(r, 'fp1', t0))))
      expect(claims.filter((c) => c._tag === 'Claimed')).to.have.length(1)
      expect(claims.filter((c) => c._tag === 'InProgress')).to.have.length(11)
    })

    it('purges keys past retention and keeps the rest', async () => {
      const old = ref()
      const fresh = ref()
      const far = at('2027-05-01T00:00:00.000Z')
      await right(store.claim(old, 'fp', new Date(far.getTime() - IDEMPOTENCY_RETENTION_MS - 10)))
      await right(store.claim(fresh, 'fp', far))
      expect(await right(store.purgeExpired(far))).to.be.at.least(1)
      expect(await right(store.claim(fresh, 'fp', far))).to.deep.equal({ _tag: 'InProgress' })
      expect(await right(store.claim(old, 'fp-new', far))).to.deep.equal({ _tag: 'Claimed' })
    })
  })
}
