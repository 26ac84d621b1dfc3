import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { alreadyExists, concurrentUpdate } from '../../domain/errors.js'
import type { OnboardingSession } from '../../domain/onboarding-session.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { at, freshId, right, type Implementation } from './run.js'

/**
 * The behaviour every `OnboardingSessionRepository` must have. `owner` returns the id of an
 * API client that exists in the store (sessions reference their client).
 */
export const onboardingSessionRepositoryContract = (
  impl: Implementation<{ readonly repo: OnboardingSessionRepository; readonly owner: () => Promise<string> }>,
): void => {
  describe(`OnboardingSessionRepository contract: ${impl.name}`, () => {
    let repo: OnboardingSessionRepository
    let owner: () => Promise<string>
    before(async () => {
      ;({ repo, owner } = await impl.make())
    })

    const session = (clientId: string): OnboardingSession => ({
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
      version: 1,
      createdAt: at('2026-04-01T08:30:00.250Z'),
      updatedAt: at('2026-04-01T08:30:00.250Z'),
    })

    it('stores a session and returns it to its client, field for field', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(s))
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
      const saved = await right(repo.save(changed))
      expect(saved).to.deep.equal({ ...changed, version: 2 })
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(saved))
      const edited = { ...saved, addresses: [{ ...saved.addresses[0]!, city: 'Chicago' }, saved.addresses[1]!] }
      expect(await right(repo.save(edited))).to.deep.equal({ ...edited, version: 3 })
    })

    it('refuses a save based on a stale version and writes nothing', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      const first = await right(repo.save({ ...s, locale: 'fr-FR' }))
      expect(await repo.save({ ...s, locale: 'it-IT' })()).to.deep.equal(E.left(concurrentUpdate('onboarding_session')))
      expect(await right(repo.findForClient(s.clientId, s.id))).to.deep.equal(O.some(first))
    })

    it('returns none to another client and for an unknown id', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      expect(await right(repo.findForClient(await owner(), s.id))).to.deep.equal(O.none)
      expect(await right(repo.findForClient(s.clientId, freshId()))).to.deep.equal(O.none)
    })
  })
}
