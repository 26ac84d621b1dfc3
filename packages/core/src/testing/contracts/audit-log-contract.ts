import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { AuditEvent } from '../../domain/audit/audit-event.js'
import type { PageRequest } from '../../domain/foundations/pagination.js'
import type { AuditEventFilter, AuditLog } from '../../ports/audit-log.js'
import { at, freshId, right, type Implementation } from './run.js'

/**
 * The behaviour every `AuditLog` must have. A database may already hold other tests' events:
 * every listing here is narrowed to a party (or client, or subject) of its own.
 */
export const auditLogContract = (impl: Implementation<AuditLog>): void => {
  describe(`AuditLog contract: ${impl.name}`, () => {
    let log: AuditLog
    before(async () => {
      log = await impl.make()
    })

    const event = (overrides: Partial<AuditEvent> = {}): AuditEvent => ({
      id: freshId(),
      occurredAt: at('2026-03-01T10:00:00.123Z'),
      actor: { type: 'operator' },
      action: 'loan_application.declined',
      subject: { type: 'loan_application', id: freshId() },
      apiClientId: freshId(),
      partyId: freshId(),
      requestId: 'req-0001',
      details: { decided_by: 'credit@lendgate', reason: 'Thin file', nested: { list: [1, 'two', true, null] } },
      ...overrides,
    })
    const page = (limit: number, after: PageRequest['after'] = O.none): PageRequest => ({ limit, after })
    const list = (filter: AuditEventFilter, p: PageRequest = page(100)) => right(log.list(filter, p))

    it('gives back what it recorded, field for field, whatever the actor', async () => {
      const partyId = freshId()
      const byOperator = event({ partyId })
      const byKey = event({ partyId, actor: { type: 'api_key', id: freshId() }, occurredAt: at('2026-03-01T10:00:01.000Z'), apiClientId: null, requestId: null, details: {} })
      const bySystem = event({ partyId, actor: { type: 'system' }, occurredAt: at('2026-03-01T10:00:02.000Z') })
      for (const e of [byOperator, byKey, bySystem]) await right(log.record(e))
      expect(await list({ partyId })).to.deep.equal([bySystem, byKey, byOperator])
    })

    it('lists newest first, ties by id descending, in pages strictly after the cursor', async () => {
      const partyId = freshId()
      const ids = [freshId(), freshId(), freshId()].sort()
      const older = event({ partyId, occurredAt: at('2026-03-01T09:00:00.000Z') })
      const tiedLow = event({ partyId, id: ids[0]!, occurredAt: at('2026-03-01T10:00:00.000Z') })
      const tiedHigh = event({ partyId, id: ids[2]!, occurredAt: at('2026-03-01T10:00:00.000Z') })
      const newer = event({ partyId, occurredAt: at('2026-03-01T11:00:00.000Z') })
      for (const e of [tiedLow, newer, older, tiedHigh]) await right(log.record(e))
      expect(await list({ partyId })).to.deep.equal([newer, tiedHigh, tiedLow, older])
      expect(await list({ partyId }, page(2))).to.deep.equal([newer, tiedHigh, tiedLow])
      const after = (e: AuditEvent) => O.some({ createdAt: e.occurredAt, id: e.id })
      expect(await list({ partyId }, page(2, after(tiedHigh)))).to.deep.equal([tiedLow, older])
      expect(await list({ partyId }, page(2, after(older)))).to.deep.equal([])
    })

    it('narrows to an action, a subject, an API client and a party, each and together', async () => {
      const partyId = freshId()
      const clientId = freshId()
      const subject = { type: 'api_key' as const, id: freshId() }
      const minted = event({ partyId, apiClientId: clientId, subject, action: 'api_key.minted', occurredAt: at('2026-03-01T10:00:00.000Z') })
      const revoked = event({ partyId, apiClientId: clientId, subject, action: 'api_key.revoked', occurredAt: at('2026-03-01T10:00:01.000Z') })
      const otherClient = event({ partyId, action: 'api_key.minted', occurredAt: at('2026-03-01T10:00:02.000Z') })
      const noParty = event({ partyId: null, apiClientId: clientId, action: 'api_key.minted', occurredAt: at('2026-03-01T10:00:03.000Z') })
      for (const e of [minted, revoked, otherClient, noParty]) await right(log.record(e))
      expect(await list({ partyId })).to.deep.equal([otherClient, revoked, minted])
      expect(await list({ apiClientId: clientId })).to.deep.equal([noParty, revoked, minted])
      expect(await list({ subjectId: subject.id })).to.deep.equal([revoked, minted])
      expect(await list({ partyId, action: 'api_key.minted' })).to.deep.equal([otherClient, minted])
      expect(await list({ partyId, apiClientId: clientId, action: 'api_key.revoked', subjectId: subject.id })).to.deep.equal([revoked])
      expect(await list({ partyId, action: 'payment.reversed' })).to.deep.equal([])
    })
  })
}
