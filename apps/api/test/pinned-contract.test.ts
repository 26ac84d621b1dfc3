import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { operation, OPERATIONS } from '../src/routes/operations.js'
import { bookLoan, DEFAULT_LOAN_TERMS, WORKING_CAPITAL, type BookedLoan } from './support/booked-loan.js'
import { BORROWER_REGISTERED_ADDRESS, onboardBorrower, submittedSession, type Borrower, type CodeReceiver } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { deliveredCode, deliveredMessage, expectPinned, sendPinned, type PinnedCall } from './support/pinned-requests.js'
import { INTERNAL_TOKEN, MINT_SECRET, startTestServer, type TestServer } from './support/test-server.js'

/**
 * CONTRACT.md pins a minimum request for each of these operations: a partner who sends exactly
 * that, and nothing more, must get the pinned answer.
 */
const PINNED_OPERATIONS = [
  'mintApiKey',
  'listApiKeys',
  'revokeApiKey',
  'createOnboardingSession',
  'submitOnboardingPhone',
  'submitOnboardingEmail',
  'verifyOnboardingPhone',
  'verifyOnboardingEmail',
  'upsertApplicantProfile',
  'createOnboardingAddress',
  'createOnboardingDocumentMetadata',
  'registerOnboardingSessionWebhook',
  'listOnboardingSessionWebhookDeliveries',
  'getPartyBySessionId',
  'approveOnboardingSession',
  'rejectOnboardingSession',
  'createPartyAddress',
  'listAvailableLoanProductsForParty',
  'createLoanApplication',
  'submitLoanApplication',
  'approveLoanApplication',
  'declineLoanApplication',
  'createPaymentMethodForPartyLoan',
  'createPaymentIntentForPartyLoan',
] as const
type PinnedOperation = (typeof PINNED_OPERATIONS)[number]

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const SESSION_KEYS = ['country_of_incorporation', 'locale']
const SESSION = { country_of_incorporation: 'US', locale: 'en-US' }
const PHONE = '+14155550123'
const EMAIL = 'jane@acme.example'
const PROFILE_KEYS = ['legal_name']
const PROFILE = { legal_name: 'Acme Widgets LLC' }
const ADDRESS_KEYS = ['line1', 'city', 'postal_code', 'country']
const ADDRESS = { line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }
const SECOND_ADDRESS = { line1: '200 Factory Rd', city: 'Springfield', postal_code: '62702', country: 'US' }
const DOCUMENT_KEYS = ['type', 'storage_ref']
const DOCUMENT = { type: 'certificate_of_incorporation', storage_ref: 's3://acme/coi.pdf' }
/** A public address literal: accepted as a webhook target without DNS and without the test-only settings. */
const WEBHOOK_URL = 'https://93.184.216.34/hooks/lendgate'
const APPLICATION_KEYS = ['product_id', 'amount', 'currency', 'term_months']
const { product_id, amount, currency, term_months } = DEFAULT_LOAN_TERMS
const APPLICATION = { product_id, amount, currency, term_months }
const BANK_ACCOUNT_KEYS = ['type', 'account_holder_name', 'routing_number', 'account_number']
/** A valid ABA routing number (Federal Reserve Bank of Boston) and an account number to keep out of every answer. */
const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }
const PAYMENT_KEYS = ['amount', 'currency', 'payment_method_id']

const MINT_FIELDS = ['api_key', 'api_key_id', 'key_prefix', 'party_id', 'client_id', 'client_name', 'environment', 'livemode', 'scopes', 'status', 'created_at']
const LISTING_FIELDS = ['api_key_id', 'key_prefix', 'status', 'created_at', 'revoked_at', 'last_used_at', 'scopes', 'environment', 'livemode']
const PRODUCT_FIELDS = ['product_id', 'name', 'currency', 'min_amount', 'max_amount', 'min_term_months', 'max_term_months', 'interest_rate_bps']

/** What every row can build on: one server per database, with a borrower and a booked loan made by the fixtures. */
type World = {
  readonly server: TestServer
  readonly receiver: CodeReceiver
  /** A partner's key: it opens onboarding sessions. */
  readonly partner: MintedKey
  readonly borrower: Borrower
  readonly loan: BookedLoan
  /** A bank account of `loan`, added with the pinned body. */
  readonly paymentMethodId: string
}

/** The state one row needs: its path parameters (and ids its expectations check), headers and the pinned body it sends. */
type Stage = {
  readonly params: Readonly<Record<string, string>>
  readonly headers: Readonly<Record<string, string>>
  readonly body?: Readonly<Record<string, unknown>>
}

type Row = {
  readonly operation: PinnedOperation
  /** The behaviour the row proves, as the test names it. */
  readonly proves: string
  readonly method: PinnedCall['method']
  /** The pinned path, parameters written `{name}`. */
  readonly path: string
  readonly keys: PinnedCall['keys']
  readonly stage: (world: World) => Promise<Stage>
  readonly status: number
  /** Asserts on the answer; may be async (it is awaited). */
  readonly expectBody: (reply: Reply, stage: Stage, world: World) => unknown
}

const pathOf = (template: string, params: Readonly<Record<string, string>>): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`)
    return value
  })

const asPartner = (world: World) => bearer(world.partner.api_key)
const asBorrower = (world: World) => bearer(world.borrower.key.api_key)
const asInternal = bearer(INTERNAL_TOKEN)
const borrowerParams = (world: World) => ({ partyId: world.borrower.partyId, loanId: world.loan.loanId })

const openSession = async (world: World): Promise<string> =>
  (
    await expectPinned(
      world.server.url,
      { method: 'POST', path: '/public/onboarding-sessions', headers: asPartner(world), keys: SESSION_KEYS, body: SESSION },
      201,
    )
  ).session_id as string

const submitContact = async (world: World, sessionId: string, channel: 'phone' | 'email', destination: string): Promise<void> => {
  await expectPinned(
    world.server.url,
    { method: 'POST', path: `/public/onboarding-sessions/${sessionId}/contact/${channel}`, headers: asPartner(world), keys: [channel], body: { [channel]: destination } },
    201,
  )
}

const draftApplication = async (world: World): Promise<string> =>
  (await expectPinned(world.server.url, { method: 'POST', path: '/public/applications', headers: asBorrower(world), keys: APPLICATION_KEYS, body: APPLICATION }, 201))
    .application_id as string

const submittedApplication = async (world: World): Promise<string> => {
  const applicationId = await draftApplication(world)
  await expectPinned(world.server.url, { method: 'POST', path: `/public/applications/${applicationId}/submit`, headers: asBorrower(world), keys: 'no body' }, 200)
  return applicationId
}

const expectDeliveredCode = (world: World, stage: Stage, channel: 'phone' | 'email', destination: string): void => {
  const message = deliveredMessage(world.receiver, stage.params['sessionId']!, destination)
  expect(Object.keys(message).sort()).to.deep.equal(['channel', 'code', 'destination', 'expires_at', 'session_id'])
  expect(message).to.deep.include({ session_id: stage.params['sessionId'], channel, destination })
}

const ROWS: readonly Row[] = [
  {
    operation: 'mintApiKey',
    proves: 'mints an active key for {party_id} alone (201)',
    method: 'POST',
    path: '/public/partner/api-keys',
    keys: ['party_id'],
    stage: async () => ({ params: {}, headers: { 'X-Partner-Mint-Key': MINT_SECRET }, body: { party_id: randomUUID() } }),
    status: 201,
    expectBody: (reply, stage) => {
      expect(reply.body).to.include.all.keys(MINT_FIELDS)
      expect(reply.body).to.deep.include({ party_id: stage.body!['party_id'], status: 'active', environment: 'live' })
      expect(reply.body.scopes).to.include.members(['partner:api', 'keys:manage'])
      expect(reply.body.api_key.startsWith(`${reply.body.key_prefix}_`), 'api_key starts with key_prefix').to.equal(true)
    },
  },
  {
    operation: 'listApiKeys',
    proves: "lists the client's keys, masked (200)",
    method: 'GET',
    path: '/public/partner/api-keys',
    keys: 'no body',
    stage: async (w) => {
      const key = await mintKey(w.server.url)
      return { params: { apiKeyId: key.api_key_id, keyPrefix: key.key_prefix }, headers: bearer(key.api_key) }
    },
    status: 200,
    expectBody: (reply, stage) => {
      expect(Object.keys(reply.body).sort()).to.deep.equal(['data', 'next_cursor'])
      expect(reply.body.data).to.have.length(1)
      expect(reply.body.data[0]).to.have.all.keys(LISTING_FIELDS)
      expect(reply.body.data[0]).to.deep.include({ api_key_id: stage.params['apiKeyId'], key_prefix: stage.params['keyPrefix'], status: 'active', revoked_at: null })
    },
  },
  {
    operation: 'revokeApiKey',
    proves: "revokes a key of the caller's client, answering its listing record (200)",
    method: 'DELETE',
    path: '/public/partner/api-keys/{apiKeyId}',
    keys: 'no body',
    stage: async (w) => {
      const partyId = randomUUID()
      const manager = await mintKey(w.server.url, { party_id: partyId, client_name: 'rotation' })
      const target = await mintKey(w.server.url, { party_id: partyId, client_name: 'rotation' })
      return { params: { apiKeyId: target.api_key_id }, headers: bearer(manager.api_key) }
    },
    status: 200,
    expectBody: (reply, stage) => {
      expect(reply.body).to.include.all.keys(LISTING_FIELDS)
      expect(reply.body).to.deep.include({ api_key_id: stage.params['apiKeyId'], status: 'revoked' })
    },
  },
  {
    operation: 'createOnboardingSession',
    proves: 'opens a session from country_of_incorporation and locale alone (201)',
    method: 'POST',
    path: '/public/onboarding-sessions',
    keys: SESSION_KEYS,
    stage: async (w) => ({ params: {}, headers: asPartner(w), body: SESSION }),
    status: 201,
    expectBody: (reply) => {
      expect(reply.body).to.include.all.keys(['session_id', 'country_of_incorporation', 'locale', 'status', 'current_step', 'created_at', 'updated_at'])
      expect(reply.body.session_id).to.match(UUID)
      expect(reply.body).to.deep.include({ ...SESSION, status: 'IN_PROGRESS', current_step: 'PHONE_VERIFICATION' })
    },
  },
  {
    operation: 'submitOnboardingPhone',
    proves: 'takes {phone} and hands a code to the delivery URL (201)',
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/contact/phone',
    keys: ['phone'],
    stage: async (w) => ({ params: { sessionId: await openSession(w) }, headers: asPartner(w), body: { phone: PHONE } }),
    status: 201,
    expectBody: (_reply, stage, w) => expectDeliveredCode(w, stage, 'phone', PHONE),
  },
  {
    operation: 'submitOnboardingEmail',
    proves: 'takes {email} and hands a code to the delivery URL (201)',
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/contact/email',
    keys: ['email'],
    stage: async (w) => ({ params: { sessionId: await openSession(w) }, headers: asPartner(w), body: { email: EMAIL } }),
    status: 201,
    expectBody: (_reply, stage, w) => expectDeliveredCode(w, stage, 'email', EMAIL),
  },
  {
    operation: 'verifyOnboardingPhone',
    proves: 'verifies the phone with {code} and answers the session (200)',
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/contact/phone/verify',
    keys: ['code'],
    stage: async (w) => {
      const sessionId = await openSession(w)
      await submitContact(w, sessionId, 'phone', PHONE)
      return { params: { sessionId }, headers: asPartner(w), body: { code: deliveredCode(w.receiver, sessionId, PHONE) } }
    },
    status: 200,
    expectBody: (reply, stage) => expect(reply.body).to.deep.include({ session_id: stage.params['sessionId'], current_step: 'EMAIL_VERIFICATION' }),
  },
  {
    operation: 'verifyOnboardingEmail',
    proves: 'verifies the email with {code} and answers the session (200)',
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/contact/email/verify',
    keys: ['code'],
    stage: async (w) => {
      const sessionId = await openSession(w)
      await submitContact(w, sessionId, 'email', EMAIL)
      return { params: { sessionId }, headers: asPartner(w), body: { code: deliveredCode(w.receiver, sessionId, EMAIL) } }
    },
    status: 200,
    expectBody: async (reply, stage, w) => {
      expect(reply.body).to.deep.include({ session_id: stage.params['sessionId'] })
      const requirements = await request(w.server.url, `/public/onboarding-sessions/${stage.params['sessionId']}/requirements`, { headers: asPartner(w) })
      const codes = requirements.body.data.map((r: { code: string }) => r.code)
      expect(codes.filter((code: string) => code.startsWith('email_')), 'the email is verified').to.deep.equal([])
      expect(codes, 'the phone still is not').to.include('phone_missing')
    },
  },
  {
    operation: 'upsertApplicantProfile',
    proves: 'takes a profile of {legal_name} alone (200)',
    method: 'PUT',
    path: '/public/onboarding-sessions/{sessionId}/applicant-profile',
    keys: PROFILE_KEYS,
    stage: async (w) => ({ params: { sessionId: await openSession(w) }, headers: asPartner(w), body: PROFILE }),
    status: 200,
    expectBody: (reply) => expect(reply.body).to.deep.include({ ...PROFILE, trading_name: null, legal_form: null, tax_id_masked: null }),
  },
  {
    operation: 'createOnboardingAddress',
    proves: "makes a session's first address without a type its registered address (201)",
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/addresses',
    keys: ADDRESS_KEYS,
    stage: async (w) => ({ params: { sessionId: await openSession(w) }, headers: asPartner(w), body: ADDRESS }),
    status: 201,
    expectBody: (reply) => {
      expect(reply.body.address_id).to.match(UUID)
      expect(reply.body).to.deep.include({ ...ADDRESS, type: 'registered' })
    },
  },
  {
    operation: 'createOnboardingAddress',
    proves: 'makes a further address without a type an operating address (201)',
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/addresses',
    keys: ADDRESS_KEYS,
    stage: async (w) => {
      const sessionId = await openSession(w)
      const registered = await request(w.server.url, `/public/onboarding-sessions/${sessionId}/addresses`, { method: 'POST', headers: asPartner(w), json: BORROWER_REGISTERED_ADDRESS })
      expect(registered.status, `registered address: ${registered.text}`).to.equal(201)
      return { params: { sessionId }, headers: asPartner(w), body: SECOND_ADDRESS }
    },
    status: 201,
    expectBody: (reply) => {
      expect(reply.body.address_id).to.match(UUID)
      expect(reply.body).to.deep.include({ ...SECOND_ADDRESS, type: 'operating' })
    },
  },
  {
    operation: 'createOnboardingDocumentMetadata',
    proves: 'registers {type, storage_ref} (201)',
    method: 'POST',
    path: '/public/onboarding-sessions/{sessionId}/documents',
    keys: DOCUMENT_KEYS,
    stage: async (w) => ({ params: { sessionId: await openSession(w) }, headers: asPartner(w), body: DOCUMENT }),
    status: 201,
    expectBody: (reply) => {
      expect(reply.body.document_id).to.match(UUID)
      expect(reply.body).to.deep.include(DOCUMENT)
    },
  },
  {
    operation: 'registerOnboardingSessionWebhook',
    proves: 'registers {webhook_url} alone and returns a generated whsec_ secret (200)',
    method: 'PUT',
    path: '/public/onboarding-sessions/{sessionId}/webhook',
    keys: ['webhook_url'],
    stage: async (w) => ({ params: { sessionId: await openSession(w) }, headers: asPartner(w), body: { webhook_url: WEBHOOK_URL } }),
    status: 200,
    expectBody: (reply) => expect(reply.body.webhook_secret).to.match(/^whsec_./),
  },
  {
    operation: 'registerOnboardingSessionWebhook',
    proves: 'registers {webhook_url, webhook_secret} (200)',
    method: 'PUT',
    path: '/public/onboarding-sessions/{sessionId}/webhook',
    keys: ['webhook_url', 'webhook_secret'],
    stage: async (w) => ({
      params: { sessionId: await openSession(w) },
      headers: asPartner(w),
      body: { webhook_url: WEBHOOK_URL, webhook_secret: 'partner-chosen-secret-1234' },
    }),
    status: 200,
    expectBody: (reply, stage) => {
      expect(reply.body).to.deep.include({ session_id: stage.params['sessionId'], webhook_url: WEBHOOK_URL })
      expect(reply.body, 'a secret the partner chose is never echoed').not.to.have.property('webhook_secret')
    },
  },
  {
    operation: 'listOnboardingSessionWebhookDeliveries',
    proves: "lists the session's party.ready event with its attempts (200)",
    method: 'GET',
    path: '/public/onboarding-sessions/{sessionId}/webhook/deliveries',
    keys: 'no body',
    stage: async (w) => ({ params: { sessionId: w.borrower.sessionId }, headers: bearer(w.borrower.partnerKey.api_key) }),
    status: 200,
    expectBody: (reply) => {
      expect(Object.keys(reply.body).sort()).to.deep.equal(['data', 'next_cursor'])
      expect(reply.body.data).to.have.length(1)
      expect(reply.body.data[0]).to.include.all.keys(['event_id', 'type', 'status', 'attempt_log'])
      expect(reply.body.data[0]).to.deep.include({ type: 'party.ready' })
    },
  },
  {
    operation: 'getPartyBySessionId',
    proves: 'answers the party of an approved session, the body party.ready carries (200)',
    method: 'GET',
    path: '/public/onboarding-sessions/{sessionId}/party',
    keys: 'no body',
    stage: async (w) => ({ params: { sessionId: w.borrower.sessionId }, headers: bearer(w.borrower.partnerKey.api_key) }),
    status: 200,
    expectBody: (reply, stage, w) => expect(reply.body).to.deep.include({ party_id: w.borrower.partyId, session_id: stage.params['sessionId'] }),
  },
  {
    operation: 'approveOnboardingSession',
    proves: 'approves a submitted session without a body, answering {session, party} (200)',
    method: 'POST',
    path: '/internal/onboarding-sessions/{sessionId}/approve',
    keys: 'no body',
    stage: async (w) => ({ params: { sessionId: await submittedSession(w.server, w.receiver, w.partner) }, headers: asInternal }),
    status: 200,
    expectBody: (reply, stage) => {
      expect(reply.body).to.include.all.keys(['session', 'party'])
      expect(reply.body.session).to.deep.include({ session_id: stage.params['sessionId'] })
      expect(reply.body.party.party_id).to.match(UUID)
    },
  },
  {
    operation: 'rejectOnboardingSession',
    proves: 'rejects a submitted session with {reason} (200)',
    method: 'POST',
    path: '/internal/onboarding-sessions/{sessionId}/reject',
    keys: ['reason'],
    stage: async (w) => ({
      params: { sessionId: await submittedSession(w.server, w.receiver, w.partner) },
      headers: asInternal,
      body: { reason: 'Could not verify the registration number.' },
    }),
    status: 200,
    expectBody: (reply, stage) => expect(reply.body).to.deep.include({ session_id: stage.params['sessionId'] }),
  },
  {
    operation: 'createPartyAddress',
    proves: "adds an address without a type to the key's party (201)",
    method: 'POST',
    path: '/public/parties/{partyId}/addresses',
    keys: ADDRESS_KEYS,
    stage: async (w) => ({ params: borrowerParams(w), headers: asBorrower(w), body: SECOND_ADDRESS }),
    status: 201,
    expectBody: (reply) => {
      expect(reply.body.address_id).to.match(UUID)
      expect(reply.body, 'a party has its registered address from onboarding: a later one is operating').to.deep.include({ ...SECOND_ADDRESS, type: 'operating' })
    },
  },
  {
    operation: 'listAvailableLoanProductsForParty',
    proves: 'lists active products with their pinned fields (200)',
    method: 'GET',
    path: '/public/parties/{partyId}/available-loan-products',
    keys: 'no body',
    stage: async (w) => ({ params: borrowerParams(w), headers: asBorrower(w) }),
    status: 200,
    expectBody: (reply) => {
      expect(reply.body).to.include.all.keys(['data', 'next_cursor'])
      expect(reply.body.data).to.have.length.above(0)
      for (const product of reply.body.data) expect(product).to.include.all.keys(PRODUCT_FIELDS)
      expect(reply.body.data.map((p: { product_id: string }) => p.product_id)).to.include(WORKING_CAPITAL)
    },
  },
  {
    operation: 'createLoanApplication',
    proves: "drafts an application for the key's party from {product_id, amount, currency, term_months} (201)",
    method: 'POST',
    path: '/public/applications',
    keys: APPLICATION_KEYS,
    stage: async (w) => ({ params: {}, headers: asBorrower(w), body: APPLICATION }),
    status: 201,
    expectBody: (reply, _stage, w) => {
      expect(reply.body.application_id).to.match(UUID)
      expect(reply.body).to.deep.include({ ...APPLICATION, party_id: w.borrower.partyId, status: 'DRAFT' })
    },
  },
  {
    operation: 'createLoanApplication',
    proves: "refuses a party_id other than the key's with 403 party_mismatch",
    method: 'POST',
    path: '/public/applications',
    keys: [...APPLICATION_KEYS, 'party_id'],
    stage: async (w) => ({ params: {}, headers: asBorrower(w), body: { ...APPLICATION, party_id: randomUUID() } }),
    status: 403,
    expectBody: (reply) => expect(reply.body.error).to.equal('party_mismatch'),
  },
  {
    operation: 'submitLoanApplication',
    proves: 'submits a draft without a body (200 SUBMITTED)',
    method: 'POST',
    path: '/public/applications/{applicationId}/submit',
    keys: 'no body',
    stage: async (w) => ({ params: { applicationId: await draftApplication(w) }, headers: asBorrower(w) }),
    status: 200,
    expectBody: (reply, stage) => expect(reply.body).to.deep.include({ application_id: stage.params['applicationId'], status: 'SUBMITTED' }),
  },
  {
    operation: 'approveLoanApplication',
    proves: 'approves a submitted application without a body, answering {application, loan} (200)',
    method: 'POST',
    path: '/internal/applications/{applicationId}/approve',
    keys: 'no body',
    stage: async (w) => ({ params: { applicationId: await submittedApplication(w) }, headers: asInternal }),
    status: 200,
    expectBody: (reply, stage) => {
      expect(reply.body).to.include.all.keys(['application', 'loan'])
      expect(reply.body.application).to.deep.include({ application_id: stage.params['applicationId'] })
      expect(reply.body.loan.loan_id).to.match(UUID)
    },
  },
  {
    operation: 'declineLoanApplication',
    proves: 'declines a submitted application with {reason} (200)',
    method: 'POST',
    path: '/internal/applications/{applicationId}/decline',
    keys: ['reason'],
    stage: async (w) => ({ params: { applicationId: await submittedApplication(w) }, headers: asInternal, body: { reason: 'Thin file.' } }),
    status: 200,
    expectBody: (reply, stage) => expect(reply.body).to.deep.include({ application_id: stage.params['applicationId'] }),
  },
  {
    operation: 'createPaymentMethodForPartyLoan',
    proves: 'adds a bank account, answering last4 and never the account number (201)',
    method: 'POST',
    path: '/public/parties/{partyId}/loans/{loanId}/payment-methods',
    keys: BANK_ACCOUNT_KEYS,
    stage: async (w) => ({ params: borrowerParams(w), headers: asBorrower(w), body: BANK_ACCOUNT }),
    status: 201,
    expectBody: (reply) => {
      expect(reply.body.payment_method_id).to.match(UUID)
      expect(reply.body.last4).to.equal(BANK_ACCOUNT.account_number.slice(-4))
      expect(reply.text).not.to.contain(BANK_ACCOUNT.account_number)
    },
  },
  {
    operation: 'createPaymentIntentForPartyLoan',
    proves: 'takes {amount, currency, payment_method_id} with an Idempotency-Key (201)',
    method: 'POST',
    path: '/public/parties/{partyId}/loans/{loanId}/payments',
    keys: PAYMENT_KEYS,
    stage: async (w) => ({
      params: borrowerParams(w),
      headers: { ...asBorrower(w), 'Idempotency-Key': `pinned-${randomUUID()}` },
      body: { amount: 10_000, currency: 'USD', payment_method_id: w.paymentMethodId },
    }),
    status: 201,
    expectBody: (reply) => {
      expect(reply.body).to.include.all.keys(['payment_id', 'status', 'allocation'])
      expect(reply.body.payment_id).to.match(UUID)
      expect(reply.body.allocation).to.be.an('object')
    },
  },
  {
    operation: 'createPaymentIntentForPartyLoan',
    proves: 'refuses the same body without an Idempotency-Key with 400 idempotency_key_required',
    method: 'POST',
    path: '/public/parties/{partyId}/loans/{loanId}/payments',
    keys: PAYMENT_KEYS,
    stage: async (w) => ({ params: borrowerParams(w), headers: asBorrower(w), body: { amount: 10_000, currency: 'USD', payment_method_id: w.paymentMethodId } }),
    status: 400,
    expectBody: (reply) => expect(reply.body.error).to.equal('idempotency_key_required'),
  },
]

/**
 * Every operation CONTRACT.md names, by operationId or by method and path: a route it pins
 * that the table lacks fails here.
 */
const namedInContract = (): string[] => {
  const contract = readFileSync(fileURLToPath(new URL('../../../docs/spec/CONTRACT.md', import.meta.url)), 'utf8')
  const byName = OPERATIONS.filter((op) => new RegExp(`\\b${op.operationId}\\b`).test(contract)).map((op) => op.operationId)
  const byRoute = [...contract.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^\s`]+)`/g)].map(([, method, path]) => {
    const found = OPERATIONS.find((op) => op.method === method && op.path === path!.replace(/\{(\w+)\}/g, ':$1'))
    if (found === undefined) throw new Error(`CONTRACT.md names ${method} ${path}, which the route table does not serve`)
    return found.operationId
  })
  return [...new Set([...byName, ...byRoute])].sort()
}

describe('the pinned request table', () => {
  it('is not empty and has rows for exactly the pinned operations', () => {
    expect(ROWS).to.have.length.at.least(PINNED_OPERATIONS.length)
    expect([...new Set(ROWS.map((row) => row.operation))].sort()).to.deep.equal([...PINNED_OPERATIONS].sort())
  })

  it('has a row for every operation CONTRACT.md names', () => {
    const named = namedInContract()
    expect(named.length, 'the contract was read').to.be.above(15)
    expect(PINNED_OPERATIONS).to.include.members(named)
  })

  it("sends every row to its operation's method and path in the route table", () => {
    for (const row of ROWS) {
      const route = operation(row.operation)
      expect({ method: row.method, path: row.path.replace(/\{(\w+)\}/g, ':$1') }, row.operation).to.deep.equal({ method: route.method, path: route.path })
    }
  })
})

for (const database of testDatabases()) {
  describe(`pinned requests sent exactly as pinned, on ${database.name}`, () => {
    let server: TestServer
    let receiver: CodeReceiver
    let world: World

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      const borrower = await onboardBorrower(server, receiver)
      const loan = await bookLoan(server, borrower)
      const method = await expectPinned(
        server.url,
        { method: 'POST', path: loan.paths.paymentMethods, headers: bearer(borrower.key.api_key), keys: BANK_ACCOUNT_KEYS, body: BANK_ACCOUNT },
        201,
      )
      world = { server, receiver, partner: await mintKey(server.url), borrower, loan, paymentMethodId: method.payment_method_id as string }
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    describe('each pinned request, with nothing added', () => {
      for (const row of ROWS) {
        it(`${row.operation} ${row.proves}`, async () => {
          const stage = await row.stage(world)
          const reply = await sendPinned(server.url, {
            method: row.method,
            path: pathOf(row.path, stage.params),
            headers: stage.headers,
            keys: row.keys,
            ...(stage.body === undefined ? {} : { body: stage.body }),
          })
          expect(reply.status, reply.text).to.equal(row.status)
          await row.expectBody(reply, stage, world)
        })
      }
    })

    describe('a borrower journey on pinned minimum bodies only', () => {
      it('goes from the first mint to a payment that lowers the principal outstanding by exactly its principal part', async () => {
        const send = (call: PinnedCall, status: number) => expectPinned(server.url, call, status)

        const partnerKey = await send({ method: 'POST', path: '/public/partner/api-keys', headers: { 'X-Partner-Mint-Key': MINT_SECRET }, keys: ['party_id'], body: { party_id: randomUUID() } }, 201)
        const partner = bearer(partnerKey.api_key)
        const sessionId = (await send({ method: 'POST', path: '/public/onboarding-sessions', headers: partner, keys: SESSION_KEYS, body: SESSION }, 201)).session_id as string
        const session = `/public/onboarding-sessions/${sessionId}`
        await send({ method: 'POST', path: `${session}/contact/phone`, headers: partner, keys: ['phone'], body: { phone: PHONE } }, 201)
        await send({ method: 'POST', path: `${session}/contact/phone/verify`, headers: partner, keys: ['code'], body: { code: deliveredCode(receiver, sessionId, PHONE) } }, 200)
        await send({ method: 'POST', path: `${session}/contact/email`, headers: partner, keys: ['email'], body: { email: EMAIL } }, 201)
        await send({ method: 'POST', path: `${session}/contact/email/verify`, headers: partner, keys: ['code'], body: { code: deliveredCode(receiver, sessionId, EMAIL) } }, 200)
        await send({ method: 'PUT', path: `${session}/applicant-profile`, headers: partner, keys: PROFILE_KEYS, body: PROFILE }, 200)
        await send({ method: 'POST', path: `${session}/addresses`, headers: partner, keys: ADDRESS_KEYS, body: ADDRESS }, 201)
        await send({ method: 'POST', path: `${session}/submit`, headers: partner, keys: [], body: {} }, 201)
        const approved = await send({ method: 'POST', path: `/internal/onboarding-sessions/${sessionId}/approve`, headers: asInternal, keys: 'no body' }, 200)
        const partyId = approved.party.party_id as string

        const borrowerKey = await send({ method: 'POST', path: '/public/partner/api-keys', headers: { 'X-Partner-Mint-Key': MINT_SECRET }, keys: ['party_id'], body: { party_id: partyId } }, 201)
        const borrower = bearer(borrowerKey.api_key)
        const products = await send({ method: 'GET', path: `/public/parties/${partyId}/available-loan-products`, headers: borrower, keys: 'no body' }, 200)
        const product = (products.data as Record<string, unknown>[]).find((p) => p['product_id'] === WORKING_CAPITAL)
        expect(product, 'the seeded Working Capital product is listed').not.to.equal(undefined)
        const terms = { product_id: WORKING_CAPITAL, amount: product!['min_amount'], currency: product!['currency'], term_months: product!['min_term_months'] }
        const applicationId = (await send({ method: 'POST', path: '/public/applications', headers: borrower, keys: APPLICATION_KEYS, body: terms }, 201)).application_id as string
        await send({ method: 'POST', path: `/public/applications/${applicationId}/submit`, headers: borrower, keys: 'no body' }, 200)
        const booked = await send({ method: 'POST', path: `/internal/applications/${applicationId}/approve`, headers: asInternal, keys: 'no body' }, 200)
        const loan = `/public/parties/${partyId}/loans/${booked.loan.loan_id}`

        const method = await send({ method: 'POST', path: `${loan}/payment-methods`, headers: borrower, keys: BANK_ACCOUNT_KEYS, body: BANK_ACCOUNT }, 201)
        const payment = await send(
          {
            method: 'POST',
            path: `${loan}/payments`,
            headers: { ...borrower, 'Idempotency-Key': `journey-${randomUUID()}` },
            keys: PAYMENT_KEYS,
            body: { amount: 50_000, currency: terms.currency, payment_method_id: method.payment_method_id },
          },
          201,
        )
        const latest = await send({ method: 'GET', path: `${loan}/balances/latest`, headers: borrower, keys: 'no body' }, 200)

        const { past_due, fees, interest, principal } = payment.allocation as { past_due: Record<'fees' | 'interest' | 'principal', number>; fees: number; interest: number; principal: number }
        const amounts = {
          principal: booked.loan.principal,
          paid: payment.amount,
          allocated: [past_due.fees, past_due.interest, past_due.principal, fees, interest, principal],
          outstanding: [latest.principal_outstanding, latest.interest_outstanding, latest.fees_outstanding, latest.payoff_amount],
        }
        expect([amounts.principal, amounts.paid, ...amounts.allocated, ...amounts.outstanding].every(Number.isInteger), JSON.stringify(amounts)).to.equal(true)
        expect(amounts.allocated.reduce((sum, part) => sum + part, 0), 'the allocation adds up to the payment').to.equal(50_000)
        const principalPaid = past_due.principal + principal
        expect(principalPaid, 'a payment on a new loan reaches principal').to.be.above(0)
        expect(latest.principal_outstanding).to.equal(booked.loan.principal - principalPaid)
      })
    })
  })
}
