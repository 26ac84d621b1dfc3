import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { NOT_AUDITED, OPERATOR_CONTEXT, sessionApprovedEvent } from '../../domain/audit/audit-event.js'
import { alreadyExists, concurrentUpdate } from '../../domain/foundations/errors.js'
import type { OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import type { Party } from '../../domain/onboarding/party.js'
import { partyView } from '../../views/onboarding.js'
import { partyReady } from '../../views/events.js'
import type { WebhookEventRepository } from '../../ports/webhook-event-repository.js'
import type { PartyRepository } from '../../ports/party-repository.js'
import { at, freshId, right, type Implementation } from './run.js'
import type { ClientId } from '../../domain/foundations/ids.js'

/**
 * The behaviour every `OnboardingSessionRepository` must have. `owner` returns the id of an
 * API client that exists in the store (sessions reference their client).
 */
export const onboardingSessionRepositoryContract = (
  impl: Implementation<{
    readonly repo: OnboardingSessionRepository
    readonly parties: PartyRepository
    readonly events: WebhookEventRepository
    readonly owner: () => Promise<ClientId>
  }>,
): void => {
  describe(`OnboardingSessionRepository contract: ${impl.name}`, () => {
    let repo: OnboardingSessionRepository
    let owner: () => Promise<ClientId>
    let parties: PartyRepository
    let events: WebhookEventRepository
    before(async () => {
      ;({ repo, owner, parties, events } = await impl.make())
    })

    const session = (clientId: ClientId): OnboardingSession => ({
      id: freshId(),
      clientId,
      type: 'business',
      countryOfIncorporation: 'DE',
      entryChannel: 'partner_portal',
      locale: 'de-DE',
      status: 'IN_PROGRESS',
      currentStep: 'PHONE_VERIFICATION',
      phone: null,
      email: null,
      profile: null,
      addresses: [],
      submittedAt: null,
      review: null,
      partyId: null,
      version: 1,
      createdAt: at('2026-04-01T08:30:00.250Z'),
      updatedAt: at('2026-04-01T08:30:00.250Z'),
    })

    it('stores a session and returns it to its client, field for field', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(s))
    })

    it('stores a session given with its addresses, and returns them with it', async () => {
      const s = session(await owner())
      const address = {
        id: freshId(), type: 'registered' as const, line1: '1 Main St', line2: null, city: 'Springfield', region: 'IL',
        postalCode: '62701', country: 'US', createdAt: at('2026-04-01T08:30:00.250Z'), updatedAt: at('2026-04-01T08:30:00.250Z'),
      }
      const withAddress = { ...s, addresses: [address] }
      await right(repo.insert(withAddress))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(withAddress))
    })

    it('returns every timestamp to the millisecond, before 1970 and up to the year 9999', async () => {
      const s = session(await owner())
      const address = {
        id: freshId(), type: 'operating' as const, line1: '2 Main St', line2: null, city: 'Springfield', region: null,
        postalCode: '62701', country: 'US', createdAt: at('0001-01-01T00:00:00.001Z'), updatedAt: at('9999-12-31T23:59:59.999Z'),
      }
      const edges: OnboardingSession = {
        ...s,
        phone: { value: '+14155550123', verifiedAt: at('1969-12-31T23:59:59.999Z') },
        email: { value: 'jane@example.com', verifiedAt: at('1970-01-01T00:00:00.001Z') },
        submittedAt: at('9999-12-31T23:59:59.999Z'),
        addresses: [address],
        createdAt: at('0001-01-01T00:00:00.001Z'),
        updatedAt: at('2026-04-01T08:30:00.999Z'),
      }
      await right(repo.insert(edges))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(edges))
    })

    it('refuses a second session with the same id as AlreadyExists and keeps the first', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      expect(await repo.insert({ ...s, locale: 'en-GB' })()).to.deep.equal(E.left(alreadyExists('onboarding_session')))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(s))
    })

    it('saves contacts, profile and addresses, bumping the version, field for field', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      const changed: OnboardingSession = {
        ...s,
        currentStep: 'APPLICANT_PROFILE',
        phone: { value: '+14155550123', verifiedAt: at('2026-04-01T08:31:00.000Z') },
        email: { value: 'jane@example.com', verifiedAt: null },
        profile: {
          legalName: 'Acme Widgets LLC',
          tradingName: null,
          legalForm: 'llc',
          registrationNumber: 'R-1',
          incorporationDate: '2019-04-30',
          industryCode: '332510',
          website: null,
          taxId: '12-3456789',
          updatedAt: at('2026-04-01T08:32:00.000Z'),
        },
        addresses: [
          {
            id: freshId(), type: 'registered', line1: '1 Main St', line2: null, city: 'Springfield', region: 'IL',
            postalCode: '62701', country: 'US', createdAt: at('2026-04-01T08:33:00.000Z'), updatedAt: at('2026-04-01T08:33:00.000Z'),
          },
          {
            id: freshId(), type: 'mailing', line1: 'PO Box 9', line2: 'Attn: Jane', city: 'Springfield', region: null,
            postalCode: '62702', country: 'US', createdAt: at('2026-04-01T08:34:00.000Z'), updatedAt: at('2026-04-01T08:35:00.000Z'),
          },
        ],
        updatedAt: at('2026-04-01T08:35:00.000Z'),
      }
      const saved = await right(repo.save(changed, NOT_AUDITED))
      expect(saved).to.deep.equal({ ...changed, version: 2 })
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(saved))
      const edited = { ...saved, addresses: [{ ...saved.addresses[0]!, city: 'Chicago' }, saved.addresses[1]!] }
      expect(await right(repo.save(edited, NOT_AUDITED))).to.deep.equal({ ...edited, version: 3 })
    })

    it('refuses a save based on a stale version and writes nothing', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      const first = await right(repo.save({ ...s, locale: 'fr-FR' }, NOT_AUDITED))
      expect(await repo.save({ ...s, locale: 'it-IT' }, NOT_AUDITED)()).to.deep.equal(E.left(concurrentUpdate('onboarding_session')))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(first))
    })

    it('approves in one step: the session and its party with copied addresses, readable back', async () => {
      const s = session(await owner())
      const address = {
        id: freshId(), type: 'registered' as const, line1: '1 Main St', line2: null, city: 'Springfield', region: null,
        postalCode: '62701', country: 'US', createdAt: at('2026-04-01T08:33:00.000Z'), updatedAt: at('2026-04-01T08:33:00.000Z'),
      }
      await right(repo.insert({ ...s, addresses: [address], status: 'SUBMITTED' }))
      const stored = await right(repo.findById(s.id))
      if (O.isNone(stored)) throw new Error('expected the session')
      const now = at('2026-04-02T09:00:00.000Z')
      const party: Party = {
        id: freshId(), sessionId: s.id, clientId: s.clientId, type: 'business', legalName: 'Acme', tradingName: null, legalForm: null,
        registrationNumber: null, incorporationDate: null, industryCode: null, website: null, taxId: '12-3456789',
        countryOfIncorporation: 'DE', email: 'a@b.co', phone: '+14155550123',
        addresses: [{ ...address, id: freshId(), createdAt: now, updatedAt: now }], createdAt: now,
      }
      const approved: OnboardingSession = {
        ...stored.value,
        status: 'APPROVED',
        partyId: party.id,
        review: { decision: 'APPROVED', reviewedBy: 'ops', reason: null, decidedAt: now },
        updatedAt: now,
      }
      const ready = partyReady(freshId(), s.id, partyView(party), now, 'live')
      const event = ready.queued
      const saved = await right(repo.saveApproved(approved, party, ready, sessionApprovedEvent(freshId(), OPERATOR_CONTEXT, approved, event.id, event.createdAt)))
      expect(saved).to.deep.equal({ ...approved, version: stored.value.version + 1 })
      expect(await right(repo.findById(s.id))).to.deep.equal(O.some(saved))
      expect(await right(parties.findById(party.id))).to.deep.equal(O.some(party))
      expect(await right(events.listForSession(s.id, { limit: 10, after: O.none }))).to.deep.equal([event])
      const later = at('2026-04-03T00:00:00.000Z')
      await right(events.hurryPending(s.id, now))
      await right(events.hurryPending(s.id, later))
      expect(await right(events.listForSession(s.id, { limit: 10, after: O.none }))).to.deep.equal([event])
      const earlier = at('2026-04-01T00:00:00.000Z')
      await right(events.hurryPending(s.id, earlier))
      expect(await right(events.listForSession(s.id, { limit: 10, after: O.none }))).to.deep.equal([{ ...event, nextAttemptAt: earlier }])
      expect(await right(events.listDeliveries(s.id, { limit: 10, after: O.none }))).to.deep.equal([{ ...event, nextAttemptAt: earlier, attemptLog: [] }])
      const retryAt = at('2026-04-05T00:00:00.000Z')
      expect(await right(events.retryNow(s.id, event.id, retryAt))).to.deep.equal(O.some({ ...event, nextAttemptAt: retryAt }))
      expect(await right(events.retryNow(freshId(), event.id, retryAt))).to.deep.equal(O.none)
    })

    it('stores no party when the approval is based on a stale version', async () => {
      const s = session(await owner())
      await right(repo.insert({ ...s, status: 'SUBMITTED' }))
      await right(repo.save({ ...s, status: 'SUBMITTED' }, NOT_AUDITED))
      const party: Party = {
        id: freshId(), sessionId: s.id, clientId: s.clientId, type: 'business', legalName: 'Acme', tradingName: null, legalForm: null,
        registrationNumber: null, incorporationDate: null, industryCode: null, website: null, taxId: null,
        countryOfIncorporation: 'DE', email: null, phone: null, addresses: [], createdAt: at('2026-04-02T09:00:00.000Z'),
      }
      const ready = partyReady(freshId(), s.id, partyView(party), party.createdAt, 'live')
      const event = ready.queued
      expect(await repo.saveApproved({ ...s, status: 'APPROVED', partyId: party.id }, party, ready, sessionApprovedEvent(freshId(), OPERATOR_CONTEXT, { ...s, status: 'APPROVED', partyId: party.id }, event.id, event.createdAt))()).to.deep.equal(
        E.left(concurrentUpdate('onboarding_session')),
      )
      expect(await right(parties.findById(party.id))).to.deep.equal(O.none)
      expect(await right(events.listForSession(s.id, { limit: 10, after: O.none }))).to.deep.equal([])
    })

    it('lists sessions of every client by status, in (created_at, id) order, page after page', async () => {
      const base = Date.parse('2030-01-01T00:00:00.000Z') + Math.floor(Math.random() * 1e9)
      const made: OnboardingSession[] = []
      for (let i = 0; i < 3; i += 1) {
        const s = { ...session(await owner()), status: 'REJECTED' as const, createdAt: new Date(base + i), updatedAt: new Date(base + i) }
        await right(repo.insert(s))
        made.push(s)
      }
      const after = { createdAt: new Date(base - 1), id: '00000000-0000-0000-0000-000000000000' }
      const page1 = await right(repo.list('REJECTED', { limit: 2, after: O.some(after) }))
      expect(page1.slice(0, 3).map((x) => x.id)).to.deep.equal(made.map((x) => x.id))
      const page2 = await right(repo.list('REJECTED', { limit: 2, after: O.some({ createdAt: made[1]!.createdAt, id: made[1]!.id }) }))
      expect(page2[0]!.id).to.equal(made[2]!.id)
      const others = await right(repo.list('APPROVED', { limit: 100, after: O.some(after) }))
      expect(others.map((x) => x.id)).not.to.include(made[0]!.id)
    })

    it('returns none to another client and for an unknown id', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      expect(await right(repo.findForClient(await owner(), s.id))).to.deep.equal(O.none)
      expect(await right(repo.findForClient(s.clientId, freshId()))).to.deep.equal(O.none)
    })
  })
}
