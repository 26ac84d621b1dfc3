import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { ApiClient, ApiKey, KeyEnvironment } from '../../domain/keys/api-key.js'
import { keyMintedEvent, keyRevokedEvent, OPERATOR_CONTEXT, type AuditEvent } from '../../domain/audit/audit-event.js'
import type { ApiKeyRepository, KeyOwner, MintRecord } from '../../ports/api-key-repository.js'
import { at, freshId, right, type Implementation } from './run.js'
import type { ClientId, PartyId } from '../../domain/foundations/ids.js'

const segment = (): string => freshId().replace(/-/g, '').slice(0, 16)

/** The live keys of `clientId`. */
const live = (clientId: ClientId): KeyOwner => ({ clientId, environment: 'live' })

const record = (overrides: { partyId?: PartyId; name?: string; createdAt?: Date; environment?: KeyEnvironment } = {}): MintRecord => {
  const partyId = overrides.partyId ?? freshId()
  const createdAt = overrides.createdAt ?? at('2026-03-01T12:00:00.123Z')
  const idSegment = segment()
  return {
    client: { id: freshId(), partyId, name: overrides.name ?? 'default', createdAt },
    key: {
      id: freshId(),
      partyId,
      idSegment,
      prefix: `lgk_${overrides.environment ?? 'live'}_${idSegment}`,
      hash: 'a'.repeat(64),
      environment: overrides.environment ?? 'live',
      scopes: ['partner:api', 'keys:manage'],
      status: 'active',
      createdAt,
      revokedAt: null,
      lastUsedAt: null,
    },
  }
}

/** The audit events of a mint and a revocation, as the use cases make them. */
const auditMint = ({ client, key }: { readonly client: ApiClient; readonly key: ApiKey }): AuditEvent => keyMintedEvent(freshId(), OPERATOR_CONTEXT, client, key)
const auditRevoke = (key: ApiKey): AuditEvent => keyRevokedEvent(freshId(), OPERATOR_CONTEXT, key, key.revokedAt ?? new Date(0))

/** The behaviour every `ApiKeyRepository` must have. */
export const apiKeyRepositoryContract = (impl: Implementation<ApiKeyRepository>): void => {
  describe(`ApiKeyRepository contract: ${impl.name}`, () => {
    let repo: ApiKeyRepository
    before(async () => {
      repo = await impl.make()
    })

    it('mints a key under a new client and finds it by id segment, field for field', async () => {
      const r = record()
      const minted = await right(repo.mint(r, auditMint))
      const expectedKey: ApiKey = { ...r.key, clientId: r.client.id }
      expect(minted).to.deep.equal({ client: r.client, key: expectedKey })
      expect(await right(repo.findByIdSegment(r.key.idSegment))).to.deep.equal(O.some(expectedKey))
    })

    it('adds a second key to the existing client of the same party and name (rotation)', async () => {
      const first = record({ name: 'backend' })
      await right(repo.mint(first, auditMint))
      const second = record({ partyId: first.client.partyId, name: 'backend' })
      const minted = await right(repo.mint(second, auditMint))
      expect(minted.client).to.deep.equal(first.client)
      expect(minted.key.clientId).to.equal(first.client.id)
    })

    it('creates a separate client for another name of the same party', async () => {
      const first = record({ name: 'one' })
      await right(repo.mint(first, auditMint))
      const other = record({ partyId: first.client.partyId, name: 'two' })
      const minted = await right(repo.mint(other, auditMint))
      expect(minted.client.id).to.equal(other.client.id)
    })

    it('creates exactly one client when mints for a new client race', async () => {
      const partyId = freshId()
      const results = await Promise.all(Array.from({ length: 8 }, () => right(repo.mint(record({ partyId, name: 'race' }), auditMint))))
      expect(new Set(results.map((r) => r.client.id)).size).to.equal(1)
      const listed = await right(repo.listForClient(live(results[0]!.client.id), { limit: 100, after: O.none }))
      expect(listed.map((k) => k.id).sort()).to.deep.equal(results.map((r) => r.key.id).sort())
    })

    it('returns none for an unknown id segment', async () => {
      expect(await right(repo.findByIdSegment(segment()))).to.deep.equal(O.none)
    })

    it("finds a key for its own client only", async () => {
      const r = await right(repo.mint(record(), auditMint))
      expect(await right(repo.findForClient(live(r.client.id), r.key.id))).to.deep.equal(O.some(r.key))
      expect(await right(repo.findForClient(live(freshId()), r.key.id))).to.deep.equal(O.none)
    })

    it('lists a client\'s keys in (created_at, id) order, page after page', async () => {
      const first = record({ name: 'paged', createdAt: at('2026-03-01T00:00:00.001Z') })
      const client: ApiClient = first.client
      await right(repo.mint(first, auditMint))
      const later = [at('2026-03-01T00:00:00.003Z'), at('2026-03-01T00:00:00.002Z'), at('2026-03-01T00:00:00.002Z')]
      for (const createdAt of later) await right(repo.mint(record({ partyId: client.partyId, name: 'paged', createdAt }), auditMint))
      const all = await right(repo.listForClient(live(client.id), { limit: 100, after: O.none }))
      const order = [...all].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      expect(all.map((k) => k.id)).to.deep.equal(order.map((k) => k.id))
      expect(all).to.have.length(4)
      const page1 = await right(repo.listForClient(live(client.id), { limit: 2, after: O.none }))
      expect(page1.map((k) => k.id)).to.deep.equal(order.slice(0, 3).map((k) => k.id))
      const last = order[1]!
      const page2 = await right(repo.listForClient(live(client.id), { limit: 2, after: O.some({ createdAt: last.createdAt, id: last.id }) }))
      expect(page2.map((k) => k.id)).to.deep.equal(order.slice(2).map((k) => k.id))
    })

    it('revokes a key once and keeps the first revocation time', async () => {
      const r = await right(repo.mint(record(), auditMint))
      const t1 = at('2026-03-02T00:00:00.000Z')
      const revoked = await right(repo.revoke(live(r.client.id), r.key.id, t1, auditRevoke))
      expect(revoked).to.deep.equal(O.some({ ...r.key, status: 'revoked', revokedAt: t1 }))
      const again = await right(repo.revoke(live(r.client.id), r.key.id, at('2026-03-03T00:00:00.000Z'), auditRevoke))
      expect(again).to.deep.equal(O.some({ ...r.key, status: 'revoked', revokedAt: t1 }))
      expect(await right(repo.findByIdSegment(r.key.idSegment))).to.deep.equal(O.some({ ...r.key, status: 'revoked', revokedAt: t1 }))
    })

    it("keeps each environment's keys apart: the client's test keys neither find, list nor revoke its live ones", async () => {
      const liveKey = await right(repo.mint(record({ name: 'both' }), auditMint))
      const testKey = await right(repo.mint(record({ partyId: liveKey.client.partyId, name: 'both', environment: 'test' }), auditMint))
      expect(testKey.client.id).to.equal(liveKey.client.id)
      const asTest: KeyOwner = { clientId: liveKey.client.id, environment: 'test' }
      expect((await right(repo.listForClient(asTest, { limit: 100, after: O.none }))).map((k) => k.id)).to.deep.equal([testKey.key.id])
      expect(await right(repo.findForClient(asTest, liveKey.key.id))).to.deep.equal(O.none)
      expect(await right(repo.revoke(asTest, liveKey.key.id, at('2026-03-02T00:00:00.000Z'), auditRevoke))).to.deep.equal(O.none)
      expect(await right(repo.findByIdSegment(liveKey.key.idSegment))).to.deep.equal(O.some(liveKey.key))
    })

    it("does not revoke another client's key", async () => {
      const r = await right(repo.mint(record(), auditMint))
      expect(await right(repo.revoke(live(freshId()), r.key.id, at('2026-03-02T00:00:00.000Z'), auditRevoke))).to.deep.equal(O.none)
      expect(await right(repo.findByIdSegment(r.key.idSegment))).to.deep.equal(O.some(r.key))
    })

    it('records usage as the latest time seen per key', async () => {
      const a = await right(repo.mint(record(), auditMint))
      const b = await right(repo.mint(record(), auditMint))
      const t1 = at('2026-03-05T00:00:00.500Z')
      const t2 = at('2026-03-05T00:00:01.500Z')
      await right(repo.recordUsage(new Map([[a.key.id, t2], [b.key.id, t1]])))
      await right(repo.recordUsage(new Map([[a.key.id, t1]])))
      expect(await right(repo.findByIdSegment(a.key.idSegment))).to.deep.equal(O.some({ ...a.key, lastUsedAt: t2 }))
      expect(await right(repo.findByIdSegment(b.key.idSegment))).to.deep.equal(O.some({ ...b.key, lastUsedAt: t1 }))
    })
  })
}
