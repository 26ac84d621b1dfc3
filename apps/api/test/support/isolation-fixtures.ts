import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { OPERATIONS, type Operation } from '../../src/routes/operations.js'
import { bookLoan, WORKING_CAPITAL, type BookedLoan } from './booked-loan.js'
import { BORROWER_EMAIL, BORROWER_PHONE, BORROWER_PROFILE, onboardBorrower, type Borrower, type CodeReceiver } from './borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './client.js'
import { INTERNAL_TOKEN, type TestServer } from './test-server.js'

/**
 * Fixtures of the isolation matrix (issue 9): a subject — a partner whose borrower is onboarded,
 * with one record of every kind a path of the route table can name — built through the public
 * API, and the helpers that turn a route of the table into a request on the subject's records.
 */

/**
 * What a path parameter names, as a key of the fixture map. A parameter name means one kind of
 * record, except `addressId`, which names an onboarding address under a session and a party
 * address under a party.
 */
export const FIXTURE_KEYS = [
  'sessionId',
  'sessionAddressId',
  'eventId',
  'apiKeyId',
  'partyId',
  'partyAddressId',
  'applicationId',
  'loanId',
  'paymentMethodId',
  'paymentId',
  'productId',
  'clockId',
  'endpointId',
  'inboundFileId',
  'operatorRequestId',
] as const
export type FixtureKey = (typeof FIXTURE_KEYS)[number]

/** A subject's records, one id per fixture key. */
export type IdMap = Readonly<Record<FixtureKey, string>>

/**
 * Who owns the record a key names: an API client (a session and what hangs off it, a key), a
 * party (its addresses, applications, loans and what hangs off them), or nobody (the catalogue).
 * A client-owned record is out of reach of every other client, even one of the same party.
 */
export const OWNER_OF: Readonly<Record<FixtureKey, 'client' | 'party' | 'catalogue'>> = {
  sessionId: 'client',
  sessionAddressId: 'client',
  eventId: 'client',
  apiKeyId: 'client',
  partyId: 'party',
  partyAddressId: 'party',
  applicationId: 'party',
  loanId: 'party',
  paymentMethodId: 'party',
  paymentId: 'party',
  productId: 'catalogue',
  clockId: 'party',
  endpointId: 'client',
  inboundFileId: 'catalogue',
  operatorRequestId: 'catalogue',
}

const isFixtureKey = (key: string): key is FixtureKey => (FIXTURE_KEYS as readonly string[]).includes(key)

/** The parameter names of a Koa path, in order: `/a/:x/b/:y` → `['x', 'y']`. */
export const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!)

/** The fixture key `param` means on `path`, or undefined when the fixtures know no such record. */
export const fixtureKeyOf = (param: string, path: string): FixtureKey | undefined => {
  const key = param === 'addressId' ? (path.startsWith('/public/onboarding-sessions/') ? 'sessionAddressId' : 'partyAddressId') : param
  return isFixtureKey(key) ? key : undefined
}

const requiredKeyOf = (op: Operation, param: string): FixtureKey => {
  const key = fixtureKeyOf(param, op.path)
  if (key === undefined) throw new Error(`${op.operationId}: the isolation fixtures know no record for :${param}`)
  return key
}

/** The fixture keys of `op`'s path, in order; throws on a parameter the fixtures do not know. */
export const fixtureKeysOf = (op: Operation): FixtureKey[] => pathParams(op.path).map((param) => requiredKeyOf(op, param))

/** `op`'s path with each parameter replaced by the record `ids` gives it. */
export const fillPath = (op: Operation, ids: IdMap): string => op.path.replace(/:([A-Za-z]+)/g, (_, param: string) => ids[requiredKeyOf(op, param)])

/** A well-formed id of the kind `key` names that no record has. */
export const unknownIdFor = (key: FixtureKey): string => (key === 'eventId' ? `evt_${randomUUID().replace(/-/g, '')}` : randomUUID())

/** Who owns what `op`'s path names: its parameters' owners, the client winning over the party. */
export const ownerOfPath = (op: Operation): 'client' | 'party' | 'none' => {
  const owners = fixtureKeysOf(op).map((key) => OWNER_OF[key])
  return owners.includes('client') ? 'client' : owners.includes('party') ? 'party' : 'none'
}

const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Intruder Inc', routing_number: '011000015', account_number: '000987654321' }
const ADDRESS = { type: 'operating', line1: '9 Intruder Rd', city: 'Springfield', postal_code: '62701', country: 'US' }

/**
 * A request body that passes validation for each operation that takes one, so a request reaches
 * the lookup of the record its path names (an invalid body could be refused first). Operations
 * not listed send `{}` when they are not GETs.
 */
const BODIES: Readonly<Record<string, (ids: IdMap) => unknown>> = {
  createOnboardingSession: () => ({ country_of_incorporation: 'US', locale: 'en-US' }),
  createOnboardingAddress: () => ADDRESS,
  updateOnboardingAddress: () => ({ line2: 'Suite 9' }),
  upsertApplicantProfile: () => ({ legal_name: 'Intruder LLC' }),
  submitOnboardingEmail: () => ({ email: 'intruder@other.example' }),
  submitOnboardingPhone: () => ({ phone: '+14155550999' }),
  verifyOnboardingEmail: () => ({ code: '000000' }),
  verifyOnboardingPhone: () => ({ code: '000000' }),
  registerOnboardingSessionWebhook: () => ({ webhook_url: 'https://93.184.216.34/hooks/intruder' }),
  createOnboardingDocumentMetadata: () => ({ type: 'other', storage_ref: 's3://intruder/file.pdf' }),
  createPartyAddress: () => ADDRESS,
  updatePartyAddress: () => ({ line2: 'Suite 9' }),
  createLoanApplication: () => ({ product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }),
  updateLoanApplication: () => ({ term_months: 24 }),
  createPaymentMethodForPartyLoan: () => BANK_ACCOUNT,
  updatePaymentMethodForPartyLoan: () => ({ nickname: 'intruder' }),
  setLoanAutopayForParty: () => ({ enabled: true }),
  createPaymentIntentForPartyLoan: (ids) => ({ amount: 10_000, currency: 'USD', payment_method_id: ids.paymentMethodId }),
  advanceTestClock: () => ({ frozen_time: new Date(Date.now() + 86_400_000).toISOString() }),
  createTestClock: () => ({}),
  rejectOnboardingSession: () => ({ reason: 'intruder' }),
  declineLoanApplication: () => ({ reason: 'intruder' }),
  simulateOnboardingRejection: () => ({ reason: 'intruder' }),
  simulateApplicationDecline: () => ({ reason: 'intruder' }),
  addLoanCollateral: () => ({ type: 'equipment', description: 'Intruder lathe', valuation: 1_000, currency: 'USD', lien_position: 1 }),
  attachLoanDocument: () => ({ type: 'other', storage_ref: 's3://intruder/doc.pdf' }),
  askOperatorRequest: (ids) => ({ kind: 'payment_reversal', payment_id: ids.paymentId, reason: 'intruder' }),
  previewOperatorAction: (ids) => ({ kind: 'payment_reversal', payment_id: ids.paymentId, reason: 'intruder' }),
  rejectOperatorRequest: () => ({ reason: 'intruder' }),
  approveOperatorRequest: () => ({ preview_version: 'none.2026-01-01' }),
  createWebhookEndpoint: () => ({ url: 'https://93.184.216.34/hooks/intruder', enabled_events: ['*'] }),
  updateWebhookEndpoint: () => ({ url: 'https://93.184.216.34/hooks/intruder' }),
  recoverWebhookEvents: () => ({ since: new Date(Date.now() - 86_400_000).toISOString() }),
}

/**
 * Calls `op` on the records `ids` names with `headers`: a valid body where it takes one, and a
 * fresh Idempotency-Key on every mutating method (payments require one; the others accept it).
 */
export const callOperation = (server: TestServer, op: Operation, ids: IdMap, headers: Record<string, string>): Promise<Reply> => {
  const mutating = op.method !== 'GET'
  const body = BODIES[op.operationId]?.(ids) ?? (mutating ? {} : undefined)
  return request(server.url, fillPath(op, ids), {
    method: op.method,
    headers: { ...headers, ...(mutating ? { 'Idempotency-Key': `isolation-${randomUUID()}` } : {}) },
    ...(body === undefined ? {} : { json: body }),
  })
}

export type Subject = {
  readonly label: string
  readonly borrower: Borrower
  readonly loan: BookedLoan
  /** The key of the partner's backend: its API client owns the subject's sessions and the key `apiKeyId` names. */
  readonly partnerKey: MintedKey
  /** The key minted for the borrower's party. */
  readonly borrowerKey: MintedKey
  /**
   * The subject's records. `approved`: the onboarding that made the party (with its `party.ready`
   * event); `open`: a second session of the same client, still in progress (phone and email
   * awaiting their codes, a profile, an address, a document, a webhook), so that a request that
   * got through could still change it. A session in progress has no event: `open` names the
   * approved session's.
   */
  readonly worlds: { readonly approved: IdMap; readonly open: IdMap }
  /** Everything of the subject that must never appear in an answer to another client or party. */
  readonly secrets: readonly string[]
  /** Requests the subject made with an `Idempotency-Key`, as sent: a document and a webhook (its partner key), a payment (its borrower's). */
  readonly idempotent: readonly IdempotentRequest[]
}

export type IdempotentRequest = { readonly method: string; readonly path: string; readonly json: unknown; readonly key: string }

/**
 * Builds a subject through the public API (and the internal routes an operator would use).
 * `n` (1–9) makes its contact details differ from every other subject's.
 */
export const buildSubject = async (server: TestServer, receiver: CodeReceiver, label: string, n: number, world: 'live' | 'test' = 'live'): Promise<Subject> => {
  const tag = `${label}-${randomUUID().slice(0, 8)}`
  const borrower = await onboardBorrower(server, receiver, {
    extraAddresses: [{ type: 'mailing', line1: `${tag} Mailing Way 7`, city: 'Springfield', postal_code: '62701', country: 'US' }],
    world,
  })
  const as =
    (key: string) =>
    async (method: string, path: string, json: unknown, expected: number, headers: Record<string, string> = {}): Promise<Reply['body']> => {
      const reply = await request(server.url, path, { method, headers: { ...bearer(key), ...headers }, ...(json === undefined ? {} : { json }) })
      expect(reply.status, `${label}: ${method} ${path}: ${reply.text}`).to.equal(expected)
      return reply.body
    }
  const partner = as(borrower.partnerKey.api_key)
  const owner = as(borrower.key.api_key)
  const operator = (method: string, path: string, json: unknown, expected: number): Promise<Reply['body']> =>
    as(INTERNAL_TOKEN)(method, path, json, expected, { 'Lendgate-Mode': world })
  const once = (call: ReturnType<typeof as>, sent: IdempotentRequest, expected: number) =>
    call(sent.method, sent.path, sent.json, expected, { 'Idempotency-Key': sent.key })

  const approvedSession = `/public/onboarding-sessions/${borrower.sessionId}`
  const sessionAddressId = (await partner('GET', `${approvedSession}/addresses`, undefined, 200)).data[0].address_id as string
  const approvedHook = await partner('PUT', `${approvedSession}/webhook`, { webhook_url: `https://93.184.216.34/hooks/${tag}` }, 200)
  const eventId = (await partner('GET', `${approvedSession}/webhook/deliveries`, undefined, 200)).data[0].event_id as string
  const endpoint = await partner('POST', '/public/webhook-endpoints', { url: `https://93.184.216.34/hooks/${tag}/events`, enabled_events: ['*'], description: `${tag} events` }, 201)

  const phone = `+1202555010${n}`
  const email = `subject-${n}@${tag.toLowerCase()}.example`
  const openId = (await partner('POST', '/public/onboarding-sessions', { country_of_incorporation: 'US', locale: 'en-US' }, 201)).session_id as string
  const openSession = `/public/onboarding-sessions/${openId}`
  await partner('POST', `${openSession}/contact/phone`, { phone }, 201)
  await partner('POST', `${openSession}/contact/email`, { email }, 201)
  await partner('PUT', `${openSession}/applicant-profile`, { legal_name: `${tag} Holdings LLC`, legal_form: 'llc', tax_id: `98-76543${n}1` }, 200)
  const openAddressId = (
    await partner('POST', `${openSession}/addresses`, { type: 'registered', line1: `${tag} Open Road 1`, city: 'Springfield', postal_code: '62701', country: 'US' }, 201)
  ).address_id as string
  const documentRequest: IdempotentRequest = {
    method: 'POST',
    path: `${openSession}/documents`,
    json: { type: 'proof_of_address', storage_ref: `s3://isolation/${tag}/lease.pdf` },
    key: `isolation-document-${tag}`,
  }
  const document = await once(partner, documentRequest, 201)
  const webhookRequest: IdempotentRequest = { method: 'PUT', path: `${openSession}/webhook`, json: { webhook_url: `https://93.184.216.34/hooks/${tag}/open` }, key: `isolation-webhook-${tag}` }
  const openHook = await once(partner, webhookRequest, 200)

  const loan = await bookLoan(server, borrower)
  const method = await owner(
    'POST',
    loan.paths.paymentMethods,
    { type: 'bank_account', account_holder_name: `${tag} Treasury`, routing_number: '011000015', account_number: `00012345678${n}`, nickname: `${tag} operating` },
    201,
  )
  const paymentRequest: IdempotentRequest = {
    method: 'POST',
    path: loan.paths.payments,
    json: { amount: 50_000, currency: 'USD', payment_method_id: method.payment_method_id },
    key: `isolation-payment-${tag}`,
  }
  const payment = await once(owner, paymentRequest, 201)
  await operator('POST', loan.paths.internalCollateral, { type: 'equipment', description: `${tag} lathe`, valuation: 850_000, currency: 'USD', lien_position: 1 }, 201)
  const draft = await owner('POST', '/public/applications', { product_id: WORKING_CAPITAL, amount: 2_400_000, currency: 'USD', term_months: 24, purpose: `${tag} expansion` }, 201)
  // The key the matrix tries to revoke: a second key of the partner's client, which owns every client-owned record.
  const spare = await mintKey(server.url, { party_id: borrower.partnerKey.party_id, client_name: borrower.partnerKey.client_name, environment: world })

  const approved: IdMap = {
    sessionId: borrower.sessionId,
    sessionAddressId,
    eventId,
    apiKeyId: spare.api_key_id,
    partyId: borrower.partyId,
    partyAddressId: borrower.party.addresses[0]!['address_id'] as string,
    applicationId: draft.application_id as string,
    loanId: loan.loanId,
    paymentMethodId: method.payment_method_id as string,
    paymentId: payment.payment_id as string,
    productId: WORKING_CAPITAL,
    // A test-world party's clock, frozen at its creation; the live world has none (decision 131).
    clockId: world === 'test' ? ((await owner('POST', '/public/test-helpers/clocks', { name: `${tag} clock` }, 201)).test_clock_id as string) : unknownIdFor('clockId'),
    endpointId: endpoint.webhook_endpoint_id as string,
    // Operators' records, owned by no partner: no partner route names one.
    inboundFileId: unknownIdFor('inboundFileId'),
    operatorRequestId: unknownIdFor('operatorRequestId'),
  }
  const open: IdMap = { ...approved, sessionId: openId, sessionAddressId: openAddressId }
  const keys = [borrower.partnerKey, borrower.key, spare]
  const secrets = [
    tag,
    phone,
    email,
    ...Object.values(approved).filter((id) => id !== WORKING_CAPITAL),
    openId,
    openAddressId,
    ...borrower.party.addresses.map((a) => a['address_id'] as string),
    document.document_id as string,
    loan.applicationId,
    ...keys.flatMap((k) => [k.api_key, k.api_key_id, k.key_prefix, k.client_id]),
    approvedHook.webhook_secret as string,
    openHook.webhook_secret as string,
    endpoint.secret as string,
    BORROWER_PROFILE.legal_name,
    BORROWER_PROFILE.tax_id,
    BORROWER_EMAIL,
    BORROWER_PHONE,
  ]
  return { label, borrower, loan, partnerKey: borrower.partnerKey, borrowerKey: borrower.key, worlds: { approved, open }, secrets, idempotent: [documentRequest, webhookRequest, paymentRequest] }
}

/** The secrets of `secrets` found in an answer's body or headers. */
export const leakedSecrets = (reply: Reply, secrets: readonly string[]): string[] => {
  const headers: string[] = []
  reply.headers.forEach((value, name) => headers.push(`${name}: ${value}`))
  const text = `${reply.text}\n${headers.join('\n')}`.toLowerCase()
  return secrets.filter((secret) => text.includes(secret.toLowerCase()))
}

/** `body` without `last_used_at` anywhere: reading with a key marks it used, which is not a change. */
const withoutUsage = (body: unknown): unknown =>
  Array.isArray(body)
    ? body.map(withoutUsage)
    : typeof body === 'object' && body !== null
      ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'last_used_at').map(([k, v]) => [k, withoutUsage(v)]))
      : body

/**
 * Every answer `s` gets from every partner GET on its records (both sessions), with the key that
 * owns each (`last_used_at` left out): what a change to its records would show. Test helpers take
 * test keys only: a live subject's are not read.
 */
export const answersOf = async (server: TestServer, s: Subject): Promise<Record<string, unknown>> => {
  const seen: Record<string, unknown> = {}
  const ownerKey = (op: Operation): MintedKey => (ownerOfPath(op) === 'client' ? s.partnerKey : s.borrowerKey)
  for (const op of OPERATIONS.filter((o) => o.auth === 'partner' && o.method === 'GET' && (o.testOnly !== true || s.partnerKey.environment === 'test'))) {
    const keys = ownerOfPath(op) === 'none' ? [s.partnerKey, s.borrowerKey] : [ownerKey(op)]
    for (const path of new Set([fillPath(op, s.worlds.approved), fillPath(op, s.worlds.open)])) {
      for (const key of keys) {
        const reply = await request(server.url, path, { headers: bearer(key.api_key) })
        seen[`${op.operationId} ${path} as ${key.key_prefix}`] = { status: reply.status, body: withoutUsage(reply.body) }
      }
    }
  }
  return seen
}
