import { createServer, type IncomingHttpHeaders } from 'node:http'
import createClient from 'openapi-fetch'
import { Webhook } from 'standardwebhooks'
import type { paths } from './lendgate-api.js'
import type { paths as operatorPaths } from './lendgate-operator-api.js'

/**
 * A partner's whole journey against a running Lendgate server, step by step, through a client
 * typed from the server's own OpenAPI document (`pnpm generate`):
 * mint a key → onboard a business (codes arrive at a local receiver) → register the webhook →
 * the operator approves → verify the signed party.ready → apply → the operator approves → add a
 * bank account → pay with an Idempotency-Key → read the balance.
 *
 * The server must send verification codes to `${RECEIVER}/codes` (VERIFICATION_DELIVERY_URL)
 * and may deliver webhooks to a local http address (WEBHOOK_ALLOW_HTTP=true,
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=true); see this example's README.
 */

const BASE_URL = process.env['LENDGATE_URL'] ?? 'http://127.0.0.1:3000'
/**
 * Where the operator's calls (the approvals under /internal) go: the server itself. It differs
 * from LENDGATE_URL when the partner's calls pass through something that knows only the partner
 * document, such as the validating proxy of `pnpm test:openapi-tools`.
 */
const INTERNAL_URL = process.env['LENDGATE_INTERNAL_URL'] ?? BASE_URL
const MINT_SECRET = required('PARTNER_MINT_SECRET')
const INTERNAL_TOKEN = required('INTERNAL_API_TOKEN')
const RECEIVER_PORT = Number(process.env['RECEIVER_PORT'] ?? '4100')
const RECEIVER = `http://127.0.0.1:${RECEIVER_PORT}`

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

/** What a call answered, or a thrown error naming the route, status and error body. */
const ok = <T>(label: string, result: { data?: T; error?: unknown; response: Response }): T => {
  if (result.data === undefined) throw new Error(`${label} failed: ${result.response.status} ${JSON.stringify(result.error)}`)
  return result.data
}

// A local receiver: verification codes and webhook deliveries arrive here.
const codes: { session_id: string; destination: string; code: string }[] = []
const deliveries: { body: string; headers: IncomingHttpHeaders }[] = []
const receiver = createServer((req, res) => {
  let body = ''
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
  req.on('end', () => {
    if (req.url === '/codes') codes.push(JSON.parse(body) as (typeof codes)[number])
    if (req.url === '/webhooks') deliveries.push({ body, headers: req.headers })
    res.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve))

const waitFor = async <T>(what: string, find: () => T | undefined, seconds = 15): Promise<T> => {
  for (let i = 0; i < seconds * 10; i += 1) {
    const found = find()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no ${what} within ${seconds} s`)
}

const api = createClient<paths>({ baseUrl: BASE_URL })
const operator = createClient<operatorPaths>({ baseUrl: INTERNAL_URL })
const internal = { Authorization: `Bearer ${INTERNAL_TOKEN}` }

try {
  // 1. Keys: the partner's backend mints its key with the root mint secret.
  const partnerKey = ok(
    'mint',
    await api.POST('/public/partner/api-keys', {
      headers: { 'X-Partner-Mint-Key': MINT_SECRET },
      body: { party_id: crypto.randomUUID(), client_name: 'quickstart' },
    }),
  )
  step('minted a partner key', partnerKey.key_prefix)
  const partner = { Authorization: `Bearer ${partnerKey.api_key}` }

  // 2. Onboarding.
  const session = ok(
    'create session',
    await api.POST('/public/onboarding-sessions', { headers: partner, body: { country_of_incorporation: 'US', locale: 'en-US' } }),
  )
  const sessionId = session.session_id
  step('opened an onboarding session', { session_id: sessionId, current_step: session.current_step })
  const path = { params: { path: { sessionId } }, headers: partner }

  for (const [channel, destination] of [
    ['phone', '+14155550123'],
    ['email', 'jane@acme.example'],
  ] as const) {
    if (channel === 'phone') ok('submit phone', await api.POST('/public/onboarding-sessions/{sessionId}/contact/phone', { ...path, body: { phone: destination } }))
    else ok('submit email', await api.POST('/public/onboarding-sessions/{sessionId}/contact/email', { ...path, body: { email: destination } }))
    const code = await waitFor(`${channel} code`, () => codes.find((c) => c.session_id === sessionId && c.destination === destination)?.code)
    const verified =
      channel === 'phone'
        ? ok('verify phone', await api.POST('/public/onboarding-sessions/{sessionId}/contact/phone/verify', { ...path, body: { code } }))
        : ok('verify email', await api.POST('/public/onboarding-sessions/{sessionId}/contact/email/verify', { ...path, body: { code } }))
    step(`verified the ${channel} with the code the receiver got`, { current_step: verified.current_step })
  }
  ok(
    'profile',
    await api.PUT('/public/onboarding-sessions/{sessionId}/applicant-profile', {
      ...path,
      body: { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' },
    }),
  )
  ok(
    'address',
    await api.POST('/public/onboarding-sessions/{sessionId}/addresses', {
      ...path,
      body: { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' },
    }),
  )
  const outstanding = ok('requirements', await api.GET('/public/onboarding-sessions/{sessionId}/requirements', path))
  step('added the profile and the registered address', { requirements_outstanding: outstanding.data.length })

  // 3. The webhook: the server generates the signing secret and shows it this once.
  const registration = ok(
    'register webhook',
    await api.PUT('/public/onboarding-sessions/{sessionId}/webhook', { ...path, body: { webhook_url: `${RECEIVER}/webhooks` } }),
  )
  const secret = registration.webhook_secret
  if (secret === undefined) throw new Error('the registration did not return the generated secret')
  step('registered the party.ready webhook', { webhook_url: registration.webhook_url })

  const submitted = ok('submit', await api.POST('/public/onboarding-sessions/{sessionId}/submit', { ...path, body: {} }))
  step('submitted the session for review', { status: submitted.status })

  // 4. The operator approves; the signed party.ready arrives and is verified.
  const approval = ok('approve session', await operator.POST('/internal/onboarding-sessions/{sessionId}/approve', { params: { path: { sessionId } }, headers: internal }))
  const partyId = approval.party.party_id
  step('the operator approved the session', { party_id: partyId })
  const delivery = await waitFor('party.ready delivery', () => deliveries[0])
  const event = new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }) as { type: string; data: { party_id: string } }
  if (event.data.party_id !== partyId) throw new Error('party.ready names another party')
  step('received party.ready and verified its signature (standardwebhooks)', { type: event.type, webhook_id: delivery.headers['webhook-id'] })

  // 5. A key for the borrower's party, then apply.
  const borrowerKey = ok(
    'mint borrower key',
    await api.POST('/public/partner/api-keys', { headers: { 'X-Partner-Mint-Key': MINT_SECRET }, body: { party_id: partyId, client_name: 'quickstart-borrower' } }),
  )
  const borrower = { Authorization: `Bearer ${borrowerKey.api_key}` }
  const products = ok('products', await api.GET('/public/parties/{partyId}/available-loan-products', { params: { path: { partyId } }, headers: borrower }))
  const product = products.data[0]
  if (product === undefined) throw new Error('no active loan product')
  step('listed the available products', products.data.map((p) => p.name))
  const application = ok(
    'apply',
    await api.POST('/public/applications', {
      headers: { ...borrower, 'Idempotency-Key': `apply-${sessionId}` },
      body: { product_id: product.product_id, amount: product.min_amount, currency: product.currency, term_months: product.min_term_months },
    }),
  )
  const applicationId = application.application_id
  const preview = ok('preview', await api.GET('/public/applications/{applicationId}/schedule-preview', { params: { path: { applicationId } }, headers: borrower }))
  step('applied and previewed the schedule', { amount: application.amount, payment_amount: preview.payment_amount, installments: preview.installments.length })
  ok('submit application', await api.POST('/public/applications/{applicationId}/submit', { params: { path: { applicationId } }, headers: borrower }))
  const booked = ok('approve application', await operator.POST('/internal/applications/{applicationId}/approve', { params: { path: { applicationId } }, headers: internal }))
  const loanId = booked.loan.loan_id
  step('the operator approved the application: the loan is booked', { loan_id: loanId, disbursed_amount: booked.loan.disbursed_amount })

  // 6. Servicing: a bank account, a payment with an Idempotency-Key, the balance.
  const loanPath = { params: { path: { partyId, loanId } }, headers: borrower }
  const method = ok(
    'bank account',
    await api.POST('/public/parties/{partyId}/loans/{loanId}/payment-methods', {
      ...loanPath,
      body: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' },
    }),
  )
  step('added a bank account', { last4: method.last4, is_default: method.is_default })
  const payment = ok(
    'pay',
    await api.POST('/public/parties/{partyId}/loans/{loanId}/payments', {
      params: { path: { partyId, loanId }, header: { 'Idempotency-Key': `first-payment-${loanId}` } },
      headers: borrower,
      body: { amount: 50_000, currency: booked.loan.currency, payment_method_id: method.payment_method_id },
    }),
  )
  if (payment.status === 'FAILED') throw new Error(`the payment failed: ${payment.failure_code}`)
  step('paid with an Idempotency-Key', { status: payment.status, allocation: payment.allocation })
  const balance = ok('balance', await api.GET('/public/parties/{partyId}/loans/{loanId}/balances/latest', loanPath))
  step('read the latest balance', { principal_outstanding: balance.principal_outstanding, next_due_date: balance.next_due_date })
  console.log('\nThe whole journey worked.')
} finally {
  receiver.close()
}
