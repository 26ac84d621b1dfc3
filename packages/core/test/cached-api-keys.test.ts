import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { ApiKey } from '../src/domain/keys/api-key.js'
import { keyMintedEvent, keyRevokedEvent, OPERATOR_CONTEXT } from '../src/domain/audit/audit-event.js'
import type { ApiKeyRepository } from '../src/ports/api-key-repository.js'
import type { KeyRevocationEvent, KeyRevocations } from '../src/ports/key-revocations.js'
import { inMemoryApiKeyRepository } from '../src/testing/in-memory-api-key-repository.js'
import { testClock } from '../src/testing/fixed-clock.js'
import { cachedApiKeys } from '../src/stateful/cached-api-keys.js'
import { testId } from '../src/testing/test-ids.js'

/** The in-process key cache (issue 8): no read for a cached key, never a stale revoked one. */

const fakeRevocations = (): KeyRevocations & { readonly emit: (event: KeyRevocationEvent) => void; readonly listeners: () => number } => {
  const listeners = new Set<(event: KeyRevocationEvent) => void>()
  return {
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    emit: (event) => listeners.forEach((l) => l(event)),
    listeners: () => listeners.size,
  }
}

const run = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await task()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

const setup = async (options: { maxEntries?: number; ttlMs?: number } = {}) => {
  const inner = inMemoryApiKeyRepository()
  let reads = 0
  const counted: ApiKeyRepository = {
    ...inner,
    findByIdSegment: (segment) => {
      reads += 1
      return inner.findByIdSegment(segment)
    },
  }
  const clock = testClock(new Date('2026-03-01T00:00:00.000Z'))
  const revocations = fakeRevocations()
  const cache = cachedApiKeys(counted, revocations, { maxEntries: options.maxEntries ?? 100, ttlMs: options.ttlMs ?? 60_000, clock })
  const mint = async (n: number): Promise<ApiKey> => {
    const segment = `segment${String(n).padStart(9, '0')}`
    const now = clock.now()
    const minted = await run(
      inner.mint({
        client: { id: testId(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`), partyId: testId('00000000-0000-4000-8000-00000000000p'), name: `c${n}`, createdAt: now },
        key: {
          id: testId(`00000000-0000-4000-9000-${String(n).padStart(12, '0')}`),
          partyId: testId('00000000-0000-4000-8000-00000000000p'),
          idSegment: segment,
          prefix: `lgk_test_${segment}`,
          hash: 'hash',
          environment: 'test',
          scopes: ['*'],
          status: 'active',
          createdAt: now,
          revokedAt: null,
          lastUsedAt: null,
        },
      }, ({ client, key }) => keyMintedEvent(`00000000-0000-4000-8000-a${String(n).padStart(11, '0')}`, OPERATOR_CONTEXT, client, key)),
    )
    return minted.key
  }
  return { cache, clock, revocations, mint, reads: () => reads }
}

describe('cachedApiKeys', () => {
  it('reads a key once, then serves it from memory', async () => {
    const { cache, mint, reads } = await setup()
    const key = await mint(1)
    expect(await run(cache.findByIdSegment(key.idSegment))).to.deep.equal(O.some(key))
    expect(await run(cache.findByIdSegment(key.idSegment))).to.deep.equal(O.some(key))
    expect(reads()).to.equal(1)
  })

  it('never caches an unknown segment, so a key minted elsewhere works at once', async () => {
    const { cache, mint, reads } = await setup()
    expect(await run(cache.findByIdSegment('segment000000007'))).to.deep.equal(O.none)
    const key = await mint(7)
    expect(await run(cache.findByIdSegment(key.idSegment))).to.deep.equal(O.some(key))
    expect(reads()).to.equal(2)
  })

  it('evicts a key it revokes, so the next request sees it revoked', async () => {
    const { cache, mint } = await setup()
    const key = await mint(2)
    await run(cache.findByIdSegment(key.idSegment))
    await run(cache.revoke(key, key.id, new Date('2026-03-01T00:00:01.000Z'), (revoked) => keyRevokedEvent('00000000-0000-4000-8000-b00000000001', OPERATOR_CONTEXT, revoked, new Date('2026-03-01T00:00:01.000Z'))))
    const after = await run(cache.findByIdSegment(key.idSegment))
    expect(O.map((k: ApiKey) => k.status)(after)).to.deep.equal(O.some('revoked'))
  })

  it('evicts a key revoked on another instance when the news arrives, and drops everything on a reset', async () => {
    const { cache, mint, revocations, reads } = await setup()
    const [a, b] = [await mint(3), await mint(4)]
    await run(cache.findByIdSegment(a.idSegment))
    await run(cache.findByIdSegment(b.idSegment))
    revocations.emit({ kind: 'revoked', idSegment: a.idSegment })
    expect(cache.size()).to.equal(1)
    revocations.emit({ kind: 'reset' })
    expect(cache.size()).to.equal(0)
    await run(cache.findByIdSegment(b.idSegment))
    expect(reads()).to.equal(3)
  })

  it('reads again once an entry is older than the safety-net TTL', async () => {
    const { cache, mint, clock, reads } = await setup({ ttlMs: 1_000 })
    const key = await mint(5)
    await run(cache.findByIdSegment(key.idSegment))
    clock.advance(999)
    await run(cache.findByIdSegment(key.idSegment))
    expect(reads()).to.equal(1)
    clock.advance(1)
    await run(cache.findByIdSegment(key.idSegment))
    expect(reads()).to.equal(2)
  })

  it('says which keys it holds, with the answer: read, not revoked since, not older than the TTL, and never an unknown one', async () => {
    const { cache, mint, clock, revocations, reads } = await setup({ ttlMs: 1_000 })
    const holds = (idSegment: string): boolean => cache.held(idSegment) !== undefined
    const [a, b] = [await mint(20), await mint(21)]
    expect([holds(a.idSegment), holds('segment000000099')]).to.deep.equal([false, false])
    await run(cache.findByIdSegment(a.idSegment))
    await run(cache.findByIdSegment(b.idSegment))
    await run(cache.findByIdSegment('segment000000099'))
    expect([holds(a.idSegment), holds(b.idSegment), holds('segment000000099')]).to.deep.equal([true, true, false])
    revocations.emit({ kind: 'revoked', idSegment: a.idSegment })
    expect([holds(a.idSegment), holds(b.idSegment)]).to.deep.equal([false, true])
    // What it holds is the answer a lookup would give.
    expect(cache.held(b.idSegment)).to.deep.equal(b)
    clock.advance(1_000)
    expect(holds(b.idSegment)).to.equal(false)
    expect(reads()).to.equal(3)
  })

  it('keeps at most maxEntries keys, dropping the least recently used', async () => {
    const { cache, mint, reads } = await setup({ maxEntries: 2 })
    const [a, b, c] = [await mint(10), await mint(11), await mint(12)]
    await run(cache.findByIdSegment(a.idSegment))
    await run(cache.findByIdSegment(b.idSegment))
    await run(cache.findByIdSegment(a.idSegment)) // a is now the most recent
    await run(cache.findByIdSegment(c.idSegment)) // b goes
    expect(cache.size()).to.equal(2)
    expect(reads()).to.equal(3)
    await run(cache.findByIdSegment(a.idSegment))
    expect(reads()).to.equal(3)
    await run(cache.findByIdSegment(b.idSegment))
    expect(reads()).to.equal(4)
  })

  it('moves a key used again to the most recent place even when it was the last used before another was read', async () => {
    const { cache, mint, reads } = await setup({ maxEntries: 2 })
    const [a, b, c] = [await mint(10), await mint(11), await mint(12)]
    await run(cache.findByIdSegment(a.idSegment))
    await run(cache.findByIdSegment(a.idSegment)) // already the most recent: stays
    await run(cache.findByIdSegment(b.idSegment)) // read: b is now the most recent
    await run(cache.findByIdSegment(a.idSegment)) // a is the most recent again
    await run(cache.findByIdSegment(c.idSegment)) // b goes, not a
    expect(reads()).to.equal(3)
    await run(cache.findByIdSegment(a.idSegment))
    expect(reads()).to.equal(3)
    await run(cache.findByIdSegment(b.idSegment))
    expect(reads()).to.equal(4)
  })

  it('stops listening when closed', async () => {
    const { cache, revocations } = await setup()
    expect(revocations.listeners()).to.equal(1)
    cache.close()
    expect(revocations.listeners()).to.equal(0)
  })
})
