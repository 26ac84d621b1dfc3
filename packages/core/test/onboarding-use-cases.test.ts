import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { invalidRequest, notFound } from '../src/domain/foundations/errors.js'
import { newOnboardingSession, type OnboardingSession } from '../src/domain/onboarding/onboarding-session.js'
import { invalidState } from '../src/domain/foundations/errors.js'
import { partyView } from '../src/views/onboarding.js'
import { eventView } from '../src/domain/events/event.js'
import type { Party } from '../src/domain/onboarding/party.js'
import { inMemoryAuditLog, inMemoryEventLog } from '../src/testing/index.js'
import { createOnboardingAddress, updateOnboardingAddress, listOnboardingAddresses } from '../src/use-cases/onboarding/onboarding-addresses.js'
import { submitContact, retryContactVerification, verifyContact } from '../src/use-cases/onboarding/contact-verification.js'
import { createOnboardingDocumentMetadata, listDocumentsForOnboardingSession } from '../src/use-cases/onboarding/onboarding-documents.js'
import { listPendingOnboardingRequirements } from '../src/use-cases/onboarding/list-pending-onboarding-requirements.js'
import {
  approveOnboardingSession,
  getPartyBySessionId,
  listOnboardingSessionsForReview,
  rejectOnboardingSession,
  submitOnboardingForReview,
} from '../src/use-cases/onboarding/review.js'
import { upsertApplicantProfile } from '../src/use-cases/onboarding/upsert-applicant-profile.js'
import {
  fakeOneTimeCodes,
  inMemoryDocumentRepository,
  inMemoryOnboardingSessionRepository,
  inMemoryVerificationChallengeRepository,
  recordingCodeSender,
  sequentialIds,
  testClock,
} from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'

const caller: Caller = { keyId: testId('k'), clientId: testId('client-1'), partyId: testId('p'), environment: 'live', scopes: ['partner:api'] }
const stranger: Caller = { ...caller, clientId: testId('client-2') }
const REGISTERED = { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }

const setup = async () => {
  const parties = new Map<string, Party>()
  const eventLog = inMemoryEventLog((partyId) => parties.get(partyId)?.clientId ?? null)
  const sessions = inMemoryOnboardingSessionRepository(parties, inMemoryAuditLog(), eventLog)
  const sender = recordingCodeSender()
  const challenges = inMemoryVerificationChallengeRepository()
  const deps = {
    world: 'live' as const,
    sessions,
    eventLog,
    parties: sessions.parties,
    challenges,
    codes: fakeOneTimeCodes(),
    sender,
    documents: inMemoryDocumentRepository(),
    ids: sequentialIds(),
    clock: testClock(),
  }
  const session = newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, caller.clientId, testId('11111111-1111-4111-8111-111111111111'), deps.clock.now())
  await sessions.insert(session)()
  const params = { sessionId: session.id }
  const run = async <A>(te: () => Promise<E.Either<unknown, A>>): Promise<A> => {
    const r = await te()
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    return r.right
  }
  const stored = async (): Promise<OnboardingSession> => {
    const found = await sessions.findById(session.id)()
    if (E.isLeft(found) || O.isNone(found.right)) throw new Error('session missing')
    return found.right.value
  }
  /** Verified contacts, a profile and a registered address. */
  const complete = async () => {
    for (const [channel, input] of [['phone', { phone: '+14155550123' }], ['email', { email: 'a@b.co' }]] as const) {
      await run(submitContact(channel)(deps)(caller, { ...params, ...input }))
      await run(verifyContact(channel)(deps)(caller, { ...params, code: sender.sent()[sender.sent().length - 1]!.code }))
    }
    await run(upsertApplicantProfile(deps)(caller, { ...params, legal_name: 'Acme', tax_id: '12-3456789' }))
    await run(createOnboardingAddress(deps)(caller, { ...params, ...REGISTERED }))
  }
  return { deps, params, run, stored, complete, sender, challenges }
}

describe('onboarding use cases (in memory)', () => {
  it('moves current_step with every change and empties the requirements when complete', async () => {
    const { deps, params, stored, complete, run } = await setup()
    expect((await stored()).currentStep).to.equal('PHONE_VERIFICATION')
    await complete()
    expect((await stored()).currentStep).to.equal('REVIEW')
    expect(await run(listPendingOnboardingRequirements(deps)(caller, params))).to.deep.equal([])
  })

  it('sends codes through the sender; a wrong code counts an attempt', async () => {
    const { deps, params, sender, challenges } = await setup()
    await submitContact('phone')(deps)(caller, { ...params, phone: '+14155550123' })()
    expect(sender.sent()).to.deep.equal([
      { sessionId: params.sessionId, channel: 'phone', destination: '+14155550123', code: '100000', expiresAt: new Date(deps.clock.now().getTime() + 600_000) },
    ])
    expect(await verifyContact('phone')(deps)(caller, { ...params, code: '999999' })()).to.deep.equal(E.left({ _tag: 'InvalidCode', attemptsRemaining: 4 }))
    expect(challenges.all()[0]!.attempts).to.equal(1)
  })

  it('refuses to verify or resend for a contact already verified, whatever the code, and changes nothing', async () => {
    const { deps, params, sender, challenges, stored, run } = await setup()
    await run(submitContact('phone')(deps)(caller, { ...params, phone: '+14155550123' }))
    const code = sender.sent()[0]!.code
    await run(verifyContact('phone')(deps)(caller, { ...params, code }))
    const [session, attempts] = [await stored(), challenges.all()]
    const alreadyVerified = E.left({ _tag: 'NoPendingVerification', channel: 'phone', alreadyVerified: true })
    expect(await verifyContact('phone')(deps)(caller, { ...params, code })()).to.deep.equal(alreadyVerified)
    expect(await verifyContact('phone')(deps)(caller, { ...params, code: '999999' })()).to.deep.equal(alreadyVerified)
    expect(await retryContactVerification('phone')(deps)(caller, params)()).to.deep.equal(alreadyVerified)
    expect([await stored(), challenges.all(), sender.sent().length]).to.deep.equal([session, attempts, 1])
  })

  it('stores nothing and starts no cooldown when delivery fails', async () => {
    const { deps, params, sender, challenges, stored } = await setup()
    sender.failNext()
    const failed = await submitContact('email')(deps)(caller, { ...params, email: 'a@b.co' })()
    expect(E.isLeft(failed) && failed.left._tag).to.equal('VerificationDeliveryFailed')
    expect(challenges.all()).to.deep.equal([])
    expect((await stored()).email).to.equal(null)
    expect(E.isRight(await submitContact('email')(deps)(caller, { ...params, email: 'a@b.co' })())).to.equal(true)
  })

  it('refuses a retry within the cooldown and without a pending contact', async () => {
    const { deps, params } = await setup()
    expect(await retryContactVerification('phone')(deps)(caller, params)()).to.deep.equal(E.left({ _tag: 'NoPendingVerification', channel: 'phone', alreadyVerified: false }))
    await submitContact('phone')(deps)(caller, { ...params, phone: '+14155550123' })()
    expect(await retryContactVerification('phone')(deps)(caller, params)()).to.deep.equal(E.left({ _tag: 'RateLimited', retryAfterSeconds: 30 }))
  })

  it("keeps sessions, addresses and documents to their own client", async () => {
    const { deps, params } = await setup()
    for (const result of [
      await upsertApplicantProfile(deps)(stranger, { ...params, legal_name: 'X' })(),
      await createOnboardingAddress(deps)(stranger, { ...params, ...REGISTERED })(),
      await listOnboardingAddresses(deps)(stranger, params)(),
      await createOnboardingDocumentMetadata(deps)(stranger, { ...params, type: 'other', storage_ref: 'x' })(),
      await listDocumentsForOnboardingSession(deps)(stranger, params)(),
      await submitOnboardingForReview(deps)(stranger, params)(),
      await getPartyBySessionId(deps)(stranger, params)(),
    ]) {
      expect(result).to.deep.equal(E.left(notFound('onboarding_session')))
    }
  })

  it('refuses an unknown address and an empty patch', async () => {
    const { deps, params, run } = await setup()
    const address = await run(createOnboardingAddress(deps)(caller, { ...params, ...REGISTERED }))
    expect(await updateOnboardingAddress(deps)(caller, { ...params, addressId: '22222222-2222-4222-8222-222222222222', city: 'X' })()).to.deep.equal(
      E.left(notFound('onboarding_address')),
    )
    expect(await updateOnboardingAddress(deps)(caller, { ...params, addressId: address.id })()).to.deep.equal(
      E.left(invalidRequest('Send at least one field to update.')),
    )
  })

  it('submits a complete session, then refuses every edit and a second submission with InvalidState', async () => {
    const { deps, params, complete, run, stored } = await setup()
    await complete()
    const submitted = await run(submitOnboardingForReview(deps)(caller, params))
    expect(submitted).to.deep.include({ status: 'SUBMITTED', currentStep: 'REVIEW', submittedAt: deps.clock.now() })
    const before = await stored()
    for (const result of [
      await upsertApplicantProfile(deps)(caller, { ...params, legal_name: 'X' })(),
      await createOnboardingAddress(deps)(caller, { ...params, ...REGISTERED, type: 'mailing' })(),
      await submitContact('phone')(deps)(caller, { ...params, phone: '+14155550199' })(),
      await createOnboardingDocumentMetadata(deps)(caller, { ...params, type: 'other', storage_ref: 'x' })(),
    ]) {
      expect(E.isLeft(result) && result.left).to.deep.include({ _tag: 'InvalidState', status: 'SUBMITTED' })
    }
    expect(await submitOnboardingForReview(deps)(caller, params)()).to.deep.equal(E.left(invalidState('onboarding_session', 'SUBMITTED', 'submit')))
    expect(await stored()).to.deep.equal(before)
  })

  it('approves into a party built from the session, readable by its client only', async () => {
    const { deps, params, complete, run } = await setup()
    await complete()
    await run(submitOnboardingForReview(deps)(caller, params))
    const { session, party } = await run(approveOnboardingSession(deps)({ ...params, reviewed_by: 'ops' }))
    expect(session).to.deep.include({ status: 'APPROVED', partyId: party.id })
    expect(session.review).to.deep.equal({ decision: 'APPROVED', reviewedBy: 'ops', reason: null, decidedAt: deps.clock.now() })
    expect(party).to.deep.include({ sessionId: params.sessionId, legalName: 'Acme', taxId: '12-3456789', email: 'a@b.co', phone: '+14155550123' })
    expect(party.addresses.map((a) => a.type)).to.deep.equal(['registered'])
    expect(await run(getPartyBySessionId(deps)(caller, params))).to.deep.equal(party)
    // The party.ready event was queued with the approval, carrying the party as of then.
    const [event] = deps.sessions.events.all()
    expect(event).to.deep.include({ sessionId: params.sessionId, type: 'party.ready', status: 'pending', attempts: 0, nextAttemptAt: deps.clock.now() })
    expect(event!.id).to.match(/^evt_[0-9a-f]{32}$/)
    const at = deps.clock.now().toISOString()
    expect(JSON.parse(event!.body)).to.deep.equal({ id: event!.id, type: 'party.ready', livemode: true, timestamp: at, occurred_at: at, data: { ...partyView(party), livemode: true } })
    // The same event, with the same id and body, is in the event log.
    const logged = deps.eventLog.all()
    expect(logged.map((e) => [e.id, e.type, e.partyId, e.resourceId, e.sequence])).to.deep.equal([[event!.id, 'party.ready', party.id, party.id, null]])
    expect(JSON.stringify(eventView(logged[0]!, 'live'))).to.equal(event!.body)
    expect(await rejectOnboardingSession(deps)({ ...params, reason: 'x' })()).to.deep.equal(E.left(invalidState('onboarding_session', 'APPROVED', 'reject')))
  })

  it('rejects with a reason, lists for review by status, and has no party before approval', async () => {
    const { deps, params, complete, run } = await setup()
    expect(await getPartyBySessionId(deps)(caller, params)()).to.deep.equal(E.left(notFound('party')))
    await complete()
    await run(submitOnboardingForReview(deps)(caller, params))
    const queue = await run(listOnboardingSessionsForReview(deps)({ status: 'SUBMITTED' }))
    expect(queue.items.map((s) => s.id)).to.deep.equal([params.sessionId])
    expect(await rejectOnboardingSession(deps)(params)()).to.deep.equal(E.left(invalidRequest('reason is required', 'reason')))
    const rejected = await run(rejectOnboardingSession(deps)({ ...params, reason: 'Unverifiable' }))
    expect(rejected.review).to.deep.equal({ decision: 'REJECTED', reviewedBy: 'internal', reason: 'Unverifiable', decidedAt: deps.clock.now() })
    expect((await run(listOnboardingSessionsForReview(deps)({ status: 'SUBMITTED' }))).items).to.deep.equal([])
  })
})
