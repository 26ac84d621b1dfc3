import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { alreadyExists } from '../../domain/errors.js'
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

    it('returns none to another client and for an unknown id', async () => {
      const s = session(await owner())
      await right(repo.insert(s))
      expect(await right(repo.findForClient(await owner(), s.id))).to.deep.equal(O.none)
      expect(await right(repo.findForClient(s.clientId, freshId()))).to.deep.equal(O.none)
    })
  })
}
