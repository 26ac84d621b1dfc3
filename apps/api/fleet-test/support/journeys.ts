import { randomUUID } from 'node:crypto'
import { bearer, type ApiClient, type Reply, type RequestOptions } from './api-client.js'
import type { PartnerReceiver } from './partner-receiver.js'

export type CallOptions = RequestOptions & {
  /** The statuses this request may answer; any other is a failure of the journey. */
  readonly expect: number | readonly number[]
}

/** Sends one request of a journey to some API of the fleet and checks its status. */
export type Call = (method: string, path: string, options: CallOptions) => Promise<Reply>

/** The statuses a request may answer. */
export const expected = (options: CallOptions): readonly number[] => (typeof options.expect === 'number' ? [options.expect] : options.expect)

/** A call that sends each request to `pick()` and throws on an unexpected status, naming the request and its answer. */
export const strictCall =
  (pick: () => ApiClient): Call =>
  async (method, path, options) => {
    const api = pick()
    const reply = await api.send(method, path, options)
    if (!expected(options).includes(reply.status)) throw new Error(`${method} ${path} on ${api.name}: expected ${String(options.expect)}, got ${reply.status} ${reply.text}`)
    return reply
  }

/** What the journeys need besides the APIs: the fleet's secrets and the partner's receiver. */
export type Operators = {
  readonly mintSecret: string
  readonly internalToken: string
  readonly receiver: PartnerReceiver
}

/** The product every loan of the fleet test is booked on: the seeded term loan (README, "Apply for a loan"). */
const PRODUCT_ID = '5b0c1d2e-0001-4a00-8000-000000000001'
const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }

export type MintedKey = { readonly apiKey: string; readonly apiKeyId: string }

/** Mints a key of `partyId`'s API client `clientName` with the mint secret (a second mint adds a key to the same client). */
export const mintKey = async (call: Call, ops: Operators, partyId: string, clientName: string): Promise<MintedKey> => {
  const { body } = await call('POST', '/public/partner/api-keys', {
    headers: { 'x-partner-mint-key': ops.mintSecret },
    json: { party_id: partyId, client_name: clientName },
    expect: 201,
  })
  return { apiKey: body.api_key as string, apiKeyId: body.api_key_id as string }
}

export type OnboardingOptions = {
  /** Registers the session's webhook at the receiver (server-generated secret) before submitting. */
  readonly webhook?: boolean
  /** Adds the reads and refusals a real partner meets on the way: early submit (409), party before approval (404). */
  readonly detours?: boolean
}

/**
 * The README's onboarding journey up to submission: a session, phone and email verified with
 * the codes the receiver got, profile, registered address, then submit. Returns the session id.
 */
export const submittedSession = async (call: Call, ops: Operators, partnerKey: string, options: OnboardingOptions = {}): Promise<string> => {
  const as = bearer(partnerKey)
  const session = async (method: string, path: string, json: unknown, expect: number | readonly number[]) =>
    call(method, `/public/onboarding-sessions${path}`, { headers: as, ...(json === undefined ? {} : { json }), expect })
  const { body } = await session('POST', '', { country_of_incorporation: 'US', locale: 'en-US' }, 201)
  const id = body.session_id as string
  if (options.detours === true) await session('GET', `/${id}`, undefined, 200)
  await session('POST', `/${id}/contact/phone`, { phone: '+14155550123' }, 201)
  await session('POST', `/${id}/contact/phone/verify`, { code: await ops.receiver.codeFor(id, 'phone') }, 200)
  await session('POST', `/${id}/contact/email`, { email: 'jane@acme.example' }, 201)
  await session('POST', `/${id}/contact/email/verify`, { code: await ops.receiver.codeFor(id, 'email') }, 200)
  if (options.detours === true) await session('POST', `/${id}/submit`, {}, 409)
  await session('PUT', `/${id}/applicant-profile`, { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' }, 200)
  await session('POST', `/${id}/addresses`, { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }, 201)
  if (options.detours === true) {
    await session('GET', `/${id}/requirements`, undefined, 200)
    await session('GET', `/${id}/party`, undefined, 404)
  }
  if (options.webhook === true) {
    const registered = await session('PUT', `/${id}/webhook`, { webhook_url: ops.receiver.webhookUrlFor(id) }, 200)
    ops.receiver.expectSignedWith(id, registered.body.webhook_secret as string)
  }
  await session('POST', `/${id}/submit`, {}, 201)
  return id
}

/** The operator approves a submitted session through /internal; returns the new party's id. */
export const approveSession = async (call: Call, ops: Operators, sessionId: string): Promise<string> => {
  const { body } = await call('POST', `/internal/onboarding-sessions/${sessionId}/approve`, { headers: bearer(ops.internalToken), expect: 200 })
  return body.party.party_id as string
}

export type BookedLoan = {
  readonly loanId: string
  readonly paymentMethodId: string
  /** `/public/parties/<partyId>/loans/<loanId>` */
  readonly path: string
  readonly currency: string
}

/** Applies for a loan with a key of the borrower's party, has the operator approve it (booking it) and adds a bank account. */
export const bookedLoan = async (call: Call, ops: Operators, borrowerKey: string, partyId: string): Promise<BookedLoan> => {
  const as = bearer(borrowerKey)
  const application = await call('POST', '/public/applications', {
    headers: as,
    json: { product_id: PRODUCT_ID, amount: 1_200_000, currency: 'USD', term_months: 12, purpose: 'inventory' },
    expect: 201,
  })
  const applicationId = application.body.application_id as string
  await call('POST', `/public/applications/${applicationId}/submit`, { headers: as, expect: 200 })
  const approved = await call('POST', `/internal/applications/${applicationId}/approve`, { headers: bearer(ops.internalToken), expect: 200 })
  const loanId = approved.body.loan.loan_id as string
  const path = `/public/parties/${partyId}/loans/${loanId}`
  const method = await call('POST', `${path}/payment-methods`, { headers: as, json: BANK_ACCOUNT, expect: 201 })
  return { loanId, paymentMethodId: method.body.payment_method_id as string, path, currency: approved.body.loan.currency as string }
}

export type Borrower = { readonly partyId: string; readonly borrowerKey: string; readonly loans: readonly BookedLoan[] }

/** A borrower onboarded by a partner of its own and approved, with a key of its party and `loans` loans booked, each with a bank account. */
export const borrowerWithLoans = async (call: Call, ops: Operators, loans: number): Promise<Borrower> => {
  const { apiKey: partnerKey } = await mintKey(call, ops, randomUUID(), 'fleet-lender')
  const partyId = await approveSession(call, ops, await submittedSession(call, ops, partnerKey))
  const { apiKey: borrowerKey } = await mintKey(call, ops, partyId, 'fleet-borrower')
  const booked: BookedLoan[] = []
  for (let i = 0; i < loans; i += 1) booked.push(await bookedLoan(call, ops, borrowerKey, partyId))
  return { partyId, borrowerKey, loans: booked }
}

/** A payment request: the body and `Idempotency-Key` it is sent (and replayed) with. */
export type PaymentRequest = { readonly loan: BookedLoan; readonly idempotencyKey: string; readonly body: { amount: number; currency: string; payment_method_id: string } }

export const paymentRequest = (loan: BookedLoan, amount: number): PaymentRequest => ({
  loan,
  idempotencyKey: randomUUID(),
  body: { amount, currency: loan.currency, payment_method_id: loan.paymentMethodId },
})

export const sendPayment = (api: ApiClient, borrowerKey: string, payment: PaymentRequest): Promise<Reply> =>
  api.send('POST', `${payment.loan.path}/payments`, { headers: { ...bearer(borrowerKey), 'idempotency-key': payment.idempotencyKey }, json: payment.body })

/** Every item of a list route, following `next_cursor` a hundred at a time. */
export const allPages = async <A>(call: Call, path: string, headers: Record<string, string>): Promise<A[]> => {
  const items: A[] = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? '?limit=100' : `?limit=100&cursor=${encodeURIComponent(cursor)}`
    const page = await call('GET', `${path}${query}`, { headers, expect: 200 })
    items.push(...(page.body.data as A[]))
    cursor = page.body.next_cursor as string | null
  } while (cursor !== null)
  return items
}
