import { createServer, type IncomingHttpHeaders } from 'node:http'
import { createLendgateClient, unwrap, verifyWebhook, type WebhookEvent, type WebhookEventType } from '@lendgate/client'

/**
 * A partner's whole journey in test mode, step by step, through `@lendgate/client` (typed from the
 * partner OpenAPI document), with test keys and the mint secret only:
 * mint a test key → register a webhook endpoint for loan.booked, payment.succeeded and
 * loan.paid_off → onboard a business (code 000000) → register the session's webhook → the test
 * helper approves → verify the signed party.ready → apply → take the endpoint down while the
 * test helper approves (loan.booked is missed) → bring it back and recover what it missed →
 * add a magic test bank account → put the party on a test clock and advance it 130 days without
 * paying → the loan is 90+ days past due → pay it off with an Idempotency-Key → read the
 * balance → verify payment.succeeded and loan.paid_off, in their loan's order.
 *
 * The server may deliver webhooks to a local http address (WEBHOOK_ALLOW_HTTP=true,
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=true); see this example's README and docs/testing.md.
 */

/** The base URL of the partner API, version included: every path below is relative to it. */
const BASE_URL = process.env['LENDGATE_BASE_URL'] ?? 'http://127.0.0.1:3000/public/v1'
const MINT_SECRET = required('PARTNER_MINT_SECRET')
const RECEIVER_PORT = Number(process.env['RECEIVER_PORT'] ?? '4100')
const RECEIVER = `http://127.0.0.1:${RECEIVER_PORT}`
/** Every phone and email verification code in the test world (docs/testing.md). */
const TEST_CODE = '000000'
/** A bank account of the magic table that settles every charge; any ABA-valid routing number works. */
const SETTLING_ACCOUNT = { routing_number: '110000000', account_number: '000123456789' }
const DAY_MS = 86_400_000
const ADVANCE_DAYS = 130

function required(name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`set ${name}`)
  return value
}

let stepNumber = 0
const step = (text: string, detail?: unknown): void => {
  stepNumber += 1
  console.log(`${String(stepNumber).padStart(2)}. ${text}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`)
}

/** What a call answered, or a thrown error naming the step, and the status, code and request id of the answer (a LendgateError's message). */
const ok = <T>(label: string, result: { data?: T; error?: unknown; response: Response }): T => {
  try {
    return unwrap(result)
  } catch (error) {
    throw new Error(`${label} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

// A local receiver: the session's webhook arrives at /webhooks, the endpoint's events at /events.
type Delivery = { body: string; headers: IncomingHttpHeaders }
const deliveries: Delivery[] = []
const endpointDeliveries: Delivery[] = []
const receiver = createServer((req, res) => {
  let body = ''
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
  req.on('end', () => {
    if (req.url === '/webhooks') deliveries.push({ body, headers: req.headers })
    if (req.url === '/events') endpointDeliveries.push({ body, headers: req.headers })
    res.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve))

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const waitFor = async <T>(what: string, find: () => T | undefined, seconds = 15): Promise<T> => {
  for (let i = 0; i < seconds * 10; i += 1) {
    const found = find()
    if (found !== undefined) return found
    await sleep(100)
  }
  throw new Error(`no ${what} within ${seconds} s`)
}

/** Calls without a key: the mint, with the root mint secret as its header. */
const api = createLendgateClient({ baseUrl: BASE_URL })

/** A delivery's event, its Standard Webhooks signature verified with `secret` (throws if it does not verify). */
const verifiedEvent = (secret: string, delivery: Delivery): WebhookEvent => verifyWebhook(secret, delivery.body, delivery.headers)

/** The verified events of `type` the endpoint has received. */
const receivedOfType = <T extends WebhookEventType>(secret: string, type: T): Extract<WebhookEvent, { type: T }>[] =>
  endpointDeliveries.map((d) => verifiedEvent(secret, d)).filter((e): e is Extract<WebhookEvent, { type: T }> => e.type === type)

try {
  // 1. Keys: the partner's backend mints a test key with the root mint secret.
  const partnerKey = ok(
    'mint',
    await api.POST('/partner/api-keys', {
      headers: { 'X-Partner-Mint-Key': MINT_SECRET },
      body: { party_id: crypto.randomUUID(), client_name: 'quickstart', environment: 'test' },
    }),
  )
  step('minted a test key', partnerKey.key_prefix)
  if (partnerKey.api_key === undefined) throw new Error('the mint did not show the key')
  // The partner's own client: its key on every call, an Idempotency-Key on every POST, retries of 429 and 503.
  const partnerApi = createLendgateClient({ baseUrl: BASE_URL, apiKey: partnerKey.api_key })

  // A webhook endpoint of the partner's own: the loan events it wants, from every borrower it onboards.
  const endpoint = ok(
    'create endpoint',
    await partnerApi.POST('/webhook-endpoints', {
      body: { url: `${RECEIVER}/events`, enabled_events: ['loan.booked', 'payment.succeeded', 'loan.paid_off'], description: 'quick-start backend' },
    }),
  )
  const endpointSecret = endpoint.secret
  if (endpointSecret === undefined) throw new Error('the endpoint was created without showing its generated secret')
  const endpointPath = { params: { path: { endpointId: endpoint.webhook_endpoint_id } } }
  step('registered a webhook endpoint', { enabled_events: endpoint.enabled_events, status: endpoint.status })

  // 2. Onboarding: in the test world every verification code is 000000 and nothing is sent.
  const session = ok(
    'create session',
    await partnerApi.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } }),
  )
  const sessionId = session.session_id
  step('opened an onboarding session', { session_id: sessionId, livemode: session.livemode })
  const path = { params: { path: { sessionId } } }

  ok('submit phone', await partnerApi.POST('/onboarding-sessions/{sessionId}/contact/phone', { ...path, body: { phone: '+14155550123' } }))
  ok('verify phone', await partnerApi.POST('/onboarding-sessions/{sessionId}/contact/phone/verify', { ...path, body: { code: TEST_CODE } }))
  ok('submit email', await partnerApi.POST('/onboarding-sessions/{sessionId}/contact/email', { ...path, body: { email: 'jane@acme.example' } }))
  const verified = ok('verify email', await partnerApi.POST('/onboarding-sessions/{sessionId}/contact/email/verify', { ...path, body: { code: TEST_CODE } }))
  step(`verified the phone and the email with the test code ${TEST_CODE}`, { current_step: verified.current_step })
  ok(
    'profile',
    await partnerApi.PUT('/onboarding-sessions/{sessionId}/applicant-profile', {
      ...path,
      body: { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' },
    }),
  )
  ok(
    'address',
    await partnerApi.POST('/onboarding-sessions/{sessionId}/addresses', {
      ...path,
      body: { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' },
    }),
  )
  const outstanding = ok('requirements', await partnerApi.GET('/onboarding-sessions/{sessionId}/requirements', path))
  step('added the profile and the registered address', { requirements_outstanding: outstanding.data.length })

  // 3. The webhook: the server generates the signing secret and shows it this once.
  const registration = ok(
    'register webhook',
    await partnerApi.PUT('/onboarding-sessions/{sessionId}/webhook', { ...path, body: { webhook_url: `${RECEIVER}/webhooks` } }),
  )
  const secret = registration.webhook_secret
  if (secret === undefined) throw new Error('the registration did not return the generated secret')
  step('registered the party.ready webhook', { webhook_url: registration.webhook_url })

  const submitted = ok('submit', await partnerApi.POST('/onboarding-sessions/{sessionId}/submit', { ...path, body: {} }))
  step('submitted the session for review', { status: submitted.status })

  // 4. The test helper approves in the operator's place; the signed party.ready arrives and is verified.
  const approval = ok('approve session', await partnerApi.POST('/test-helpers/onboarding-sessions/{sessionId}/approve', path))
  const partyId = approval.party.party_id
  step('the test helper approved the session', { party_id: partyId })
  const delivery = await waitFor('party.ready delivery', () => deliveries[0])
  const event = verifyWebhook(secret, delivery.body, delivery.headers)
  if (event.type !== 'party.ready' || event.data.party_id !== partyId) throw new Error('the delivery is not the party.ready of our party')
  step('received party.ready and verified its signature (verifyWebhook)', { type: event.type, livemode: event.livemode })

  // 5. A test key for the borrower's party, then apply; the test helper approves and books the loan.
  const borrowerKey = ok(
    'mint borrower key',
    await api.POST('/partner/api-keys', {
      headers: { 'X-Partner-Mint-Key': MINT_SECRET },
      body: { party_id: partyId, client_name: 'quickstart-borrower', environment: 'test' },
    }),
  )
  if (borrowerKey.api_key === undefined) throw new Error('the mint did not show the borrower key')
  const borrowerApi = createLendgateClient({ baseUrl: BASE_URL, apiKey: borrowerKey.api_key })
  const products = ok('products', await borrowerApi.GET('/parties/{partyId}/available-loan-products', { params: { path: { partyId } } }))
  const product = products.data[0]
  if (product === undefined) throw new Error('no active loan product')
  step('listed the available products', products.data.map((p) => p.name))
  const application = ok(
    'apply',
    await borrowerApi.POST('/applications', {
      headers: { 'Idempotency-Key': `apply-${sessionId}` },
      body: { product_id: product.product_id, amount: product.min_amount, currency: product.currency, term_months: product.min_term_months },
    }),
  )
  const applicationId = application.application_id
  const applicationPath = { params: { path: { applicationId } } }
  const preview = ok('preview', await borrowerApi.GET('/applications/{applicationId}/schedule-preview', applicationPath))
  step('applied and previewed the schedule', { amount: application.amount, payment_amount: preview.payment_amount, installments: preview.installments.length })
  ok('submit application', await borrowerApi.POST('/applications/{applicationId}/submit', applicationPath))

  // The endpoint goes down for maintenance just as the loan is booked: it misses loan.booked.
  ok('disable endpoint', await partnerApi.PATCH('/webhook-endpoints/{endpointId}', { ...endpointPath, body: { status: 'disabled' } }))
  const down = new Date().toISOString()
  const booked = ok('approve application', await borrowerApi.POST('/test-helpers/applications/{applicationId}/approve', applicationPath))
  const loanId = booked.loan.loan_id
  step('the test helper approved the application while our endpoint was disabled: the loan is booked', { loan_id: loanId, disbursed_amount: booked.loan.disbursed_amount })
  const missed = ok('list events', await partnerApi.GET('/events', { params: { query: { type: 'loan.booked', resource_id: loanId } } }))
  step('the event list has the loan.booked the endpoint missed', missed.data.map((e) => e.id))

  // Back up: enable it and recover everything it missed since it went down.
  ok('enable endpoint', await partnerApi.PATCH('/webhook-endpoints/{endpointId}', { ...endpointPath, body: { status: 'enabled' } }))
  const recovery = ok('recover', await partnerApi.POST('/webhook-endpoints/{endpointId}/recover', { ...endpointPath, body: { since: down } }))
  const bookedEvent = await waitFor('the recovered loan.booked', () => receivedOfType(endpointSecret, 'loan.booked')[0])
  if (bookedEvent.data.loan_id !== loanId || bookedEvent.sequence !== 1) throw new Error(`loan.booked is not the loan's first event: ${JSON.stringify(bookedEvent)}`)
  step('enabled the endpoint again and recovered what it missed; loan.booked arrived, signature verified', { recovered: recovery.recovered, sequence: bookedEvent.sequence })

  // 6. A bank account from the magic table: its charges settle.
  const loanPath = { params: { path: { partyId, loanId } } }
  const method = ok(
    'bank account',
    await borrowerApi.POST('/parties/{partyId}/loans/{loanId}/payment-methods', {
      ...loanPath,
      body: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', ...SETTLING_ACCOUNT },
    }),
  )
  step('added a test bank account', { last4: method.last4, is_default: method.is_default })

  // 7. A test clock for the borrower's party, advanced without paying: the daily servicing runs for each day crossed.
  const clock = ok('create clock', await borrowerApi.POST('/test-helpers/clocks', { body: { name: 'quickstart' } }))
  const clockPath = { params: { path: { clockId: clock.test_clock_id } } }
  step('put the party on a test clock', { test_clock_id: clock.test_clock_id, frozen_time: clock.frozen_time })
  const target = new Date(Date.parse(clock.frozen_time) + ADVANCE_DAYS * DAY_MS).toISOString()
  const advancing = ok('advance clock', await borrowerApi.POST('/test-helpers/clocks/{clockId}/advance', { ...clockPath, body: { frozen_time: target } }))
  step(`advanced it ${ADVANCE_DAYS} days`, { status: advancing.status, advancing_to: advancing.advancing_to })
  const started = Date.now()
  let current = advancing
  while (current.status !== 'ready') {
    if (Date.now() - started > 120_000) throw new Error(`the test clock is still advancing after 120 s: ${JSON.stringify(current)}`)
    await sleep(200)
    current = ok('get clock', await borrowerApi.GET('/test-helpers/clocks/{clockId}', clockPath))
  }
  step('the clock is ready', { frozen_time: current.frozen_time, seconds: Math.round((Date.now() - started) / 100) / 10 })

  const late = ok('loan', await borrowerApi.GET('/parties/{partyId}/loans/{loanId}', loanPath))
  if (late.days_past_due < 90) throw new Error(`the loan is only ${late.days_past_due} days past due after ${ADVANCE_DAYS} days unpaid`)
  step('the unpaid loan is delinquent', { status: late.status, days_past_due: late.days_past_due, delinquency_bucket: late.delinquency_bucket })

  // 8. Pay off the loan at the clock's time, with an Idempotency-Key, then read the balance.
  const payoff = ok('payoff', await borrowerApi.GET('/parties/{partyId}/loans/{loanId}/payoff', loanPath))
  const payment = ok(
    'pay',
    await borrowerApi.POST('/parties/{partyId}/loans/{loanId}/payments', {
      params: { path: { partyId, loanId }, header: { 'Idempotency-Key': `payoff-${loanId}` } },
      body: { amount: payoff.payoff_amount, currency: booked.loan.currency, payment_method_id: method.payment_method_id },
    }),
  )
  if (payment.status === 'FAILED') throw new Error(`the payment failed: ${payment.failure_code}`)
  step('paid the payoff quote with an Idempotency-Key', { amount: payment.amount, status: payment.status })
  const balance = ok('balance', await borrowerApi.GET('/parties/{partyId}/loans/{loanId}/balances/latest', loanPath))
  const paidOff = ok('loan', await borrowerApi.GET('/parties/{partyId}/loans/{loanId}', loanPath))
  step('read the latest balance', { loan_status: paidOff.status, principal_outstanding: balance.principal_outstanding })

  // The endpoint was up: payment.succeeded and loan.paid_off arrive by themselves, signed. They may
  // arrive in any order; a loan's `sequence` orders its events.
  const paidOffEvent = await waitFor('loan.paid_off', () => receivedOfType(endpointSecret, 'loan.paid_off')[0])
  const paymentEvent = await waitFor('payment.succeeded', () => receivedOfType(endpointSecret, 'payment.succeeded')[0])
  if (paymentEvent.data.status !== 'SUCCEEDED' || paidOffEvent.data.status !== 'PAID_OFF') throw new Error('the payment and payoff events do not show what happened')
  if (!(bookedEvent.sequence < paymentEvent.sequence && paymentEvent.sequence < paidOffEvent.sequence)) throw new Error('the loan events are not numbered in the order they happened')
  const enabled: readonly WebhookEventType[] = ['loan.booked', 'payment.succeeded', 'loan.paid_off']
  const unwanted = endpointDeliveries.map((d) => verifiedEvent(endpointSecret, d)).filter((e) => !enabled.includes(e.type))
  if (unwanted.length > 0) throw new Error(`the endpoint received types it did not enable: ${unwanted.map((e) => e.type).join(', ')}`)
  step('received payment.succeeded and loan.paid_off at the endpoint, signatures verified, in sequence', [bookedEvent, paymentEvent, paidOffEvent].map((e) => `${e.sequence}:${e.type}`))
  console.log('\nThe whole journey worked, in test mode.')
} finally {
  receiver.close()
}
