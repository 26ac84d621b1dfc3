import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { alreadyExists, invalidRequest, notFound, storeUnavailable } from '../src/domain/foundations/errors.js'
import type { OnboardingSession } from '../src/domain/onboarding/onboarding-session.js'
import { onboardingSessionView } from '../src/views/onboarding.js'
import { inMemoryOnboardingSessionRepository, sequentialIds, testClock } from '../src/testing/index.js'
import { createOnboardingSession } from '../src/use-cases/onboarding/create-onboarding-session.js'
import { getOnboardingSession } from '../src/use-cases/onboarding/get-onboarding-session.js'
import { testId } from '../src/testing/test-ids.js'

const PARTY = testId('9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a')
const CLIENT = testId('11111111-1111-4111-8111-111111111111')
const OTHER_CLIENT = testId('22222222-2222-4222-8222-222222222222')
const NOW = new Date('2026-01-15T10:00:00.000Z')
const FIRST_ID = testId('00000000-0000-4000-8000-000000000001')

const caller: Caller = { keyId: testId('33333333-3333-4333-8333-333333333333'), clientId: CLIENT, partyId: PARTY, environment: 'live', scopes: ['partner:api'] }
const otherCaller: Caller = { ...caller, keyId: testId('44444444-4444-4444-8444-444444444444'), clientId: OTHER_CLIENT }

const VALID = { country_of_incorporation: 'US', locale: 'en-US' }

const setup = (start: Date = NOW) => {
  const sessions = inMemoryOnboardingSessionRepository()
  return { sessions, deps: { sessions, ids: sequentialIds(), clock: testClock(start) } }
}

/** A new session as `createOnboardingSession` builds it, with `changes` applied. */
const newSession = (changes: Partial<OnboardingSession> = {}): OnboardingSession => ({
  id: FIRST_ID,
  clientId: CLIENT,
  type: 'business',
  countryOfIncorporation: 'US',
  entryChannel: 'partner_portal',
  locale: 'en-US',
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
  createdAt: NOW,
  updatedAt: NOW,
  ...changes,
})

describe('createOnboardingSession', () => {
  describe('when only the required fields are given', () => {
    it("returns an IN_PROGRESS session at PHONE_VERIFICATION owned by the caller's client, with the defaults, and stores it", async () => {
      const { deps, sessions } = setup()
      expect(await createOnboardingSession(deps)(caller, VALID)()).to.deep.equal(E.right(newSession()))
      expect(sessions.all()).to.deep.equal([newSession()])
    })
  })

  it('keeps an explicit type and entry channel and treats null optionals as absent', async () => {
    const { deps } = setup()
    expect(
      await createOnboardingSession(deps)(caller, { country_of_incorporation: 'GB', locale: 'en-GB', type: 'business', entry_channel: 'partner_api' })(),
    ).to.deep.equal(E.right(newSession({ countryOfIncorporation: 'GB', locale: 'en-GB', entryChannel: 'partner_api' })))
    expect(await createOnboardingSession(deps)(caller, { ...VALID, type: null, entry_channel: null })()).to.deep.equal(
      E.right(newSession({ id: testId('00000000-0000-4000-8000-000000000002') })),
    )
  })

  it('takes its timestamps from the clock', async () => {
    const later = new Date('2026-03-01T08:30:15.250Z')
    const { deps } = setup(later)
    expect(await createOnboardingSession(deps)(caller, VALID)()).to.deep.equal(E.right(newSession({ createdAt: later, updatedAt: later })))
  })

  describe('when the input is invalid', () => {
    const COUNTRY = 'must be an ISO 3166-1 alpha-2 country code in upper case, such as US'
    const LOCALE = 'must be a language-region tag such as en-US'
    const cases: ReadonlyArray<readonly [string, unknown, ReturnType<typeof invalidRequest>]> = [
      ['country_of_incorporation is missing', { locale: 'en-US' }, invalidRequest('country_of_incorporation is required', 'country_of_incorporation')],
      ['locale is missing', { country_of_incorporation: 'US' }, invalidRequest('locale is required', 'locale')],
      ['the country is lower case', { ...VALID, country_of_incorporation: 'us' }, invalidRequest(`country_of_incorporation ${COUNTRY}`, 'country_of_incorporation')],
      ['the country is unassigned', { ...VALID, country_of_incorporation: 'ZZ' }, invalidRequest(`country_of_incorporation ${COUNTRY}`, 'country_of_incorporation')],
      ['the country is alpha-3', { ...VALID, country_of_incorporation: 'USA' }, invalidRequest(`country_of_incorporation ${COUNTRY}`, 'country_of_incorporation')],
      ['the locale has no region', { ...VALID, locale: 'en' }, invalidRequest(`locale ${LOCALE}`, 'locale')],
      ['the locale uses an underscore', { ...VALID, locale: 'en_US' }, invalidRequest(`locale ${LOCALE}`, 'locale')],
      ["the locale's region is unassigned", { ...VALID, locale: 'en-ZZ' }, invalidRequest(`locale ${LOCALE}`, 'locale')],
      ['a field is unknown', { ...VALID, country: 'US' }, invalidRequest('country is not a known field', 'country')],
      ['the type is unknown', { ...VALID, type: 'individual' }, invalidRequest('type must be one of: business', 'type')],
      [
        'the entry channel is unknown',
        { ...VALID, entry_channel: 'fax' },
        invalidRequest('entry_channel must be one of: partner_portal, partner_api, partner_mobile_app, assisted', 'entry_channel'),
      ],
    ]
    for (const [when, input, error] of cases) {
      it(`returns InvalidRequest with param when ${when}, and stores nothing`, async () => {
        const { deps, sessions } = setup()
        expect(await createOnboardingSession(deps)(caller, input)()).to.deep.equal(E.left(error))
        expect(sessions.all()).to.deep.equal([])
      })
    }

    it('returns InvalidRequest without param when the body is not an object, and stores nothing', async () => {
      const { deps, sessions } = setup()
      expect(await createOnboardingSession(deps)(caller, 'US')()).to.deep.equal(
        E.left({ _tag: 'InvalidRequest', detail: 'The request body must be a JSON object' }),
      )
      expect(sessions.all()).to.deep.equal([])
    })
  })

  describe('when the store fails', () => {
    it('returns StoreUnavailable', async () => {
      const { deps } = setup()
      const cause = new Error('connection reset')
      const sessions = { ...deps.sessions, insert: () => TE.left(storeUnavailable(cause)) }
      expect(await createOnboardingSession({ ...deps, sessions })(caller, VALID)()).to.deep.equal(E.left(storeUnavailable(cause)))
    })
  })

  describe('when the id is taken already', () => {
    it('returns AlreadyExists and keeps the first session', async () => {
      const { deps, sessions } = setup()
      const ids = { next: () => FIRST_ID }
      await createOnboardingSession({ ...deps, ids })(caller, VALID)()
      expect(await createOnboardingSession({ ...deps, ids })(otherCaller, VALID)()).to.deep.equal(E.left(alreadyExists('onboarding_session')))
      expect(sessions.all()).to.deep.equal([newSession()])
    })
  })
})

describe('getOnboardingSession', () => {
  const created = async () => {
    const { deps } = setup()
    const result = await createOnboardingSession(deps)(caller, VALID)()
    if (E.isLeft(result)) throw new Error(`create failed: ${JSON.stringify(result.left)}`)
    return { deps, session: result.right }
  }

  describe("when the session is the caller's client's", () => {
    it('returns it', async () => {
      const { deps, session } = await created()
      expect(await getOnboardingSession(deps)(caller, { sessionId: session.id })()).to.deep.equal(E.right(newSession()))
    })

    it('finds it by an upper-case id and ignores other fields (a read of one record)', async () => {
      const { deps, session } = await created()
      expect(await getOnboardingSession(deps)(caller, { sessionId: session.id.toUpperCase(), partyId: PARTY })()).to.deep.equal(
        E.right(newSession()),
      )
    })
  })

  describe("when the session is another client's", () => {
    it('returns NotFound', async () => {
      const { deps, session } = await created()
      expect(await getOnboardingSession(deps)(otherCaller, { sessionId: session.id })()).to.deep.equal(E.left(notFound('onboarding_session')))
    })
  })

  describe('when no session has that id', () => {
    it('returns NotFound', async () => {
      const { deps } = await created()
      expect(await getOnboardingSession(deps)(caller, { sessionId: '00000000-0000-4000-8000-0000000003e7' })()).to.deep.equal(
        E.left(notFound('onboarding_session')),
      )
    })
  })

  describe('when the id is malformed', () => {
    it('returns InvalidRequest naming sessionId', async () => {
      const { deps } = await created()
      for (const params of [{ sessionId: 'abc' }, { sessionId: 42 }, {}]) {
        expect(await getOnboardingSession(deps)(caller, params)(), JSON.stringify(params)).to.deep.equal(
          E.left(invalidRequest('sessionId must be a UUID', 'sessionId')),
        )
      }
    })
  })

  describe('when the store fails', () => {
    it('returns StoreUnavailable', async () => {
      const sessions = { findForClient: () => TE.left(storeUnavailable('timeout')) }
      expect(await getOnboardingSession({ sessions })(caller, { sessionId: FIRST_ID })()).to.deep.equal(E.left(storeUnavailable('timeout')))
    })
  })
})

describe('onboardingSessionView', () => {
  it('shows the session with ISO 8601 UTC timestamps with milliseconds', () => {
    expect(onboardingSessionView(newSession())).to.deep.equal({
      session_id: FIRST_ID,
      type: 'business',
      country_of_incorporation: 'US',
      entry_channel: 'partner_portal',
      locale: 'en-US',
      status: 'IN_PROGRESS',
      current_step: 'PHONE_VERIFICATION',
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: '2026-01-15T10:00:00.000Z',
    })
  })

  it('keeps sub-second precision and distinguishes created from updated', () => {
    const view = onboardingSessionView(
      newSession({ createdAt: new Date(Date.UTC(2026, 2, 1, 8, 30, 15, 250)), updatedAt: new Date(Date.UTC(2026, 2, 1, 9, 0, 0, 7)) }),
    )
    expect({ created_at: view.created_at, updated_at: view.updated_at }).to.deep.equal({
      created_at: '2026-03-01T08:30:15.250Z',
      updated_at: '2026-03-01T09:00:00.007Z',
    })
  })
})
