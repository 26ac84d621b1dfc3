import { EVENT_TYPES, type EventType } from '@lendgate/core'
import { endpointDeliveryHeaders, EVENT_EXAMPLES, PARTY_READY_EVENT_EXAMPLE, type DeliveryHeadersExample } from './examples.js'
import { EVENT_SCHEMA_OF, PARTY_READY_EVENT as PARTY_READY_EVENT_SCHEMA } from './responses.js'

/** The fixed parts of the OpenAPI documents: info, security schemes, shared parameters and headers, the webhooks (one per event type). */

export const INFO = {
  partner: {
    title: 'Lendgate partner lending API',
    description:
      'Onboard business borrowers, receive the signed `party.ready` webhook, apply for loans and service them; receive every event of the catalogue, signed, at your webhook endpoints (the `webhooks` section documents each type).\n\n' +
      'Use the first server: `/public/v1` is version 1 of the API (see Versioning). Money is integer minor units (`int64`) with an ISO 4217 currency; dates are `YYYY-MM-DD`; timestamps ISO 8601 UTC with milliseconds. ' +
      'The guides below come first; then every operation, its errors and examples, grouped by tag.',
  },
  operator: {
    title: 'Lendgate operator API',
    description:
      'The routes a lender\'s operations team and its tools call: review onboarding sessions, decide applications, act on loans, manage the product catalogue, ' +
      'run the daily job and read the audit log; and the probes. Every `/internal` route takes `Authorization: Bearer <INTERNAL_API_TOKEN>` (automation: every permission) ' +
      'or a named operator\'s console session (its cookie, and `X-CSRF-Token` on a request that changes something), held to the permission the route names for its role; partner keys are refused. ' +
      'Never expose these routes to the internet.',
  },
} as const

export const SECURITY_SCHEMES = {
  partner: {
    bearerApiKey: { type: 'http', scheme: 'bearer', description: 'A partner API key: `Authorization: Bearer lgk_…`' },
    headerApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'A partner API key in `X-Api-Key`, for clients that cannot set Authorization' },
    mintKey: { type: 'apiKey', in: 'header', name: 'X-Partner-Mint-Key', description: "The root mint secret: held by the lender's operators and the partner's backend only, never by a borrower's app" },
  },
  operator: {
    internalToken: { type: 'http', scheme: 'bearer', description: 'The operator token: `Authorization: Bearer <INTERNAL_API_TOKEN>`. Partner keys are refused' },
    operatorSession: {
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-lendgate_operator',
      description:
        "A named operator's console session (decision 149): the cookie `POST /internal/operator-sessions` sets (HttpOnly, Secure, SameSite=Strict). " +
        "A request that changes something also sends the session's `csrf_token` in `X-CSRF-Token`; the operator's role must hold the route's permission",
    },
  },
} as const

export const PARAMETERS = {
  CsrfToken: {
    name: 'X-CSRF-Token',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 128 },
    example: 'q1n0Jd9cY2Q3xP4m5Vb6Wk7Hs8Tz9Ra0Lf1Ug2Ne3Oi',
    description: "With a console session: the session's `csrf_token`, required on a request that changes something (403 `invalid_csrf_token` without it). Not sent with the internal token",
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '3f9c2a4e-order-7781',
    description: 'Replays the first answer to the same request for 24 hours; the same key with a different request is 422 `idempotency_key_reused`',
  },
  RequiredIdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'pay-2026-12-15-acme-0001',
    description: 'Required: a payment without one is 400 `idempotency_key_required`. Kept for good: the same key always answers the same payment',
  },
}

export const HEADERS = {
  'RateLimit-Policy': {
    description: 'The rate-limit policies of the route (draft-ietf-httpapi-ratelimit-headers): quota q per window of w seconds',
    schema: { type: 'string' },
    example: '"default";q=600;w=60',
  },
  RateLimit: { description: 'What remains of each policy: r requests left, t seconds until the window resets', schema: { type: 'string' }, example: '"default";r=599;t=42' },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 }, example: 17 },
  'X-Request-Id': {
    description: "The request's id: the caller's X-Request-Id when it is 1 to 128 letters, digits, '.', '_', ':' or '-', else a new UUID. Logged with the request; quote it to support",
    schema: { type: 'string' },
    example: '7d0e5b1c-2f8a-4c55-9a1e-3b6f0d2c4e81',
  },
  'Lendgate-Data-As-Of': {
    description:
      'On a read that may be a little behind (a list, a ledger, a schedule, the event list, the portfolio): every change committed before this instant is in the answer. ' +
      'On a write: an instant after it committed. A read whose Lendgate-Data-As-Of is not before your write\'s includes the write; a read by the same key through the same API instance always does',
    schema: { type: 'string', format: 'date-time' },
    example: '2026-11-30T16:04:05.123Z',
  },
  'Idempotent-Replayed': {
    description: 'true when this answer replays the first answer to the same Idempotency-Key',
    schema: { type: 'string', const: 'true' },
    example: 'true',
  },
  Deprecation: {
    description: 'On a deprecated operation (see the Versioning guide): when it was deprecated, an RFC 9745 structured date (`@` and Unix seconds)',
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
    example: '@1796083200',
  },
  Sunset: {
    description: 'On a deprecated operation: the HTTP date after which it may stop answering (RFC 8594), at least 12 months after `Deprecation`',
    schema: { type: 'string' },
    example: 'Sun, 01 Apr 2029 00:00:00 GMT',
  },
  Link: {
    description: 'On a deprecated operation: where its replacement is described (`rel="deprecation"`, RFC 9745)',
    schema: { type: 'string' },
    example: '<https://lendgate.example/docs/changelog>; rel="deprecation"; type="text/html"',
  },
  'WWW-Authenticate': {
    description: 'Bearer (RFC 6750); `error="invalid_token"` for a key that is unknown, malformed or revoked',
    schema: { type: 'string' },
    example: 'Bearer error="invalid_token"',
  },
}

/** A `party.ready` event, sent as the party was created: the event as the event list shows it. */
const PARTY_READY_EXAMPLE = PARTY_READY_EVENT_EXAMPLE

// ---- what every webhook says ------------------------------------------------------------------------

/** How a delivery is signed and verified (docs/events.md "Verifying a delivery"). */
const VERIFICATION =
  'Verify `webhook-signature` over `webhook-id.webhook-timestamp.body` (the raw body bytes, before parsing them) before trusting the body, and refuse a timestamp more than 5 minutes away. ' +
  'The HMAC-SHA256 key of a secret starting `whsec_` is the base64-decoded bytes after the prefix; the key of any other secret is its UTF-8 bytes. ' +
  'During the grace period of an endpoint\'s secret rotation (rotateWebhookEndpointSecret) `webhook-signature` carries two space-separated signatures, the new secret\'s and the old one\'s: accept the delivery when either verifies. ' +
  'The request carries no credential: the signature is the proof.'

/** The retry schedule, as partners see it (the default; an operator can configure another). */
const RETRY_SCHEDULE =
  'The retry schedule is, by default, eight attempts in all: after 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, each delay plus up to 10% jitter.'

/** What a webhook endpoint's delivery is answered with, and what follows. */
const ENDPOINT_RETRIES =
  'Any 2xx acknowledges the delivery; a 410 stops it (it becomes `failed`, with no further attempt); anything else (another status, no answer in time, a refused connection) is retried. ' +
  `${RETRY_SCHEDULE} Every attempt carries the same \`webhook-id\`, so deduplicate by it. ` +
  'When the schedule runs out the delivery becomes `failed`: resendWebhookEvent delivers the event again, recoverWebhookEvents every event of a time window the endpoint missed.'

/** The `sequence` rule of a loan's events, or the order of the others. */
const ORDERING = {
  loan: 'The event is one of its loan\'s: `sequence` numbers the loan\'s events from 1, with no gap. Keep the highest `sequence` applied per loan and drop an event with a lower one: it is stale.',
  none: 'The event is of no loan: it has no `sequence`; order such events by `occurred_at`.',
} as const

/** The three Standard Webhooks headers of a delivery, with `example`'s values. */
const deliveryHeaders = (example: DeliveryHeadersExample) => [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' },
    example: example['webhook-id'],
    description: "The event's `id`: the same for every attempt and every resend of one event, so process each once",
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$' },
    example: example['webhook-timestamp'],
    description: 'Unix seconds of this attempt',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    example: example['webhook-signature'],
    description:
      'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> (Standard Webhooks), one per signing secret, space-separated: two during an endpoint secret rotation\'s grace period, and either verifying accepts the delivery. ' +
      'The key is the base64 after `whsec_` for a `whsec_` secret, else the secret\'s UTF-8 bytes',
  },
]

/** The answers a delivery can get. */
const DELIVERY_RESPONSES = {
  '200': { description: 'Any 2xx acknowledges the event' },
  '410': { description: 'Gone: stop retrying this event' },
  default: { description: 'Anything else, or no answer, is retried on the retry schedule until it runs out' },
}

// ---- the webhooks ------------------------------------------------------------------------------

/** The `party.ready` webhook: what the partner's endpoint receives, by the session's webhook and by its webhook endpoints. */
export const PARTY_READY_WEBHOOK = {
  post: {
    operationId: 'partyReady',
    summary: 'A borrower was approved: the party exists',
    description:
      'Sent when an operator approves an onboarding session, two ways, with the same event (the same `webhook-id` and body): ' +
      'POSTed to the `webhook_url` registered on the session (registerOnboardingSessionWebhook), signed by the Standard Webhooks scheme with the session\'s `webhook_secret`; ' +
      'and POSTed to every `enabled` webhook endpoint (createWebhookEndpoint) of the API client that onboarded the party whose `enabled_events` include `party.ready` or `*`, signed with the endpoint\'s `secret`. ' +
      `${VERIFICATION} ` +
      'Retried with backoff until a 2xx (the same `webhook-id` each time, so deduplicate by it) or until the retry schedule runs out, when the event becomes `failed` ' +
      '(for the session\'s webhook the retry route delivers it again; for an endpoint resendWebhookEvent or recoverWebhookEvents); a 410 stops the retries. ' +
      `${RETRY_SCHEDULE} ` +
      'The body is the `party.ready` event as listEvents lists it: its `id` is the `webhook-id`, and `data` the party as getPartyBySessionId answers it. ' +
      ORDERING.none,
    tags: ['webhooks', 'events'],
    security: [],
    parameters: deliveryHeaders({
      'webhook-id': PARTY_READY_EXAMPLE.id,
      'webhook-timestamp': String(Math.floor(Date.parse(PARTY_READY_EXAMPLE.timestamp) / 1000)),
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    }),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/PartyReadyEvent' },
          example: PARTY_READY_EXAMPLE,
        },
      },
    },
    responses: DELIVERY_RESPONSES,
  },
}

/** What each event type documents as a webhook: when it is sent and what `data` is (docs/events.md "The catalogue"). */
const EVENT_WEBHOOK_DOCS: { readonly [T in Exclude<EventType, 'party.ready'>]: { readonly operationId: string; readonly summary: string; readonly when: string; readonly data: string } } = {
  'application.submitted': {
    operationId: 'applicationSubmitted',
    summary: 'A loan application was submitted',
    when: 'a loan application is submitted for decisioning (submitLoanApplication)',
    data: 'the application as getLoanApplication answers it, `SUBMITTED`; `previous_attributes` is `{"status": "DRAFT"}`',
  },
  'application.decided': {
    operationId: 'applicationDecided',
    summary: 'A loan application was approved or declined',
    when: 'a loan application is approved (which books its loan, told by `loan.booked`) or declined',
    data: 'the application as getLoanApplication answers it, its `decision` inside; `previous_attributes` is `{"status": "SUBMITTED"}`',
  },
  'loan.booked': {
    operationId: 'loanBooked',
    summary: 'A loan was booked',
    when: 'the approval of an application books its loan',
    data: "the loan as getLoanForParty answers it; its `sequence` is 1, the loan's first event",
  },
  'payment.succeeded': {
    operationId: 'paymentSucceeded',
    summary: 'A payment settled',
    when: 'a charge settles',
    data: 'the payment as createPaymentIntentForPartyLoan answers it, with its allocation',
  },
  'payment.failed': {
    operationId: 'paymentFailed',
    summary: 'A payment was declined',
    when: 'the processor declines a charge',
    data: 'the payment, `FAILED`, with no allocation and its `failure_code` set',
  },
  'payment.reversed': {
    operationId: 'paymentReversed',
    summary: 'A payment was reversed',
    when: 'an operator reverses a payment, or a test-mode return (simulatePaymentReturn) does',
    data: 'the payment, `REVERSED`; `previous_attributes` is `{"status": "SUCCEEDED"}` (or `"SETTLED"` for a bank debit)',
  },
  'payment.submitted': {
    operationId: 'paymentSubmitted',
    summary: 'A bank debit was sent',
    when: "a bank debit goes to the borrower's bank in the lender's file (live mode, where the lender collects by ACH; test mode, from the sandbox bank's accounts)",
    data: 'the payment, `SUBMITTED`, with its allocation: it is posted on its `effective_date`, the day of its file, and its bank may still return it; `previous_attributes` is `{"status": "PENDING"}`',
  },
  'payment.settled': {
    operationId: 'paymentSettled',
    summary: 'A bank debit settled',
    when: "a bank debit's return window passes with no return (two banking days after its effective date)",
    data: 'the payment, `SETTLED`; `previous_attributes` is `{"status": "SUBMITTED"}`',
  },
  'payment.returned': {
    operationId: 'paymentReturned',
    summary: 'A bank debit was returned',
    when: "the borrower's bank returns a bank debit (insufficient funds, account closed, not authorized, …), up to two banking days after its effective date, or 60 days for an unauthorized consumer debit; in test mode, the sandbox bank, or a test-mode return (simulatePaymentReturn) of a `SUBMITTED` or `SETTLED` debit",
    data: 'the payment, `RETURNED`, with its `return_code`: what it paid is owed again, so its installment can be past due again; `previous_attributes` is `{"status": "SUBMITTED"}` (or `"SETTLED"`)',
  },
  'loan.late_fee_assessed': {
    operationId: 'loanLateFeeAssessed',
    summary: 'A late fee was charged',
    when: "servicing charges a late fee: the first day after an installment's grace days, on what it still owes",
    data: 'the `LATE_FEE` ledger entry as listTransactionsForPartyLoan shows it, without `sequence` (its place in the ledger, given on write)',
  },
  'loan.delinquency_changed': {
    operationId: 'loanDelinquencyChanged',
    summary: "A loan's delinquency bucket moved",
    when: "the loan's delinquency bucket moves, in or out: told once, by the posting that crosses it (the daily job, a payment, a reversal)",
    data: 'the loan as getLoanForParty answers it; `previous_attributes` holds `days_past_due` and `delinquency_bucket` as they were at its previous posting',
  },
  'loan.paid_off': {
    operationId: 'loanPaidOff',
    summary: 'A loan was paid off',
    when: 'nothing is owed on the loan any more (told after the payment that paid it off)',
    data: 'the loan, `PAID_OFF`; `previous_attributes` is `{"status": "ACTIVE"}`',
  },
  'loan.charged_off': {
    operationId: 'loanChargedOff',
    summary: 'A loan was charged off',
    when: 'an operator charges the loan off',
    data: 'the loan, `CHARGED_OFF`; `previous_attributes` is `{"status": "ACTIVE"}`',
  },
}

/** Every event type and when it is sent, for the Webhooks guide's table. */
export const EVENT_TYPE_ROWS: readonly { readonly type: EventType; readonly when: string }[] = EVENT_TYPES.map((type) => ({
  type,
  when: type === 'party.ready' ? 'an onboarding session is approved: the borrower is a party, and can apply for loans' : EVENT_WEBHOOK_DOCS[type].when,
}))

/** The webhook of an event type other than `party.ready`: what a webhook endpoint that enables it receives. */
const eventWebhook = (type: Exclude<EventType, 'party.ready'>) => {
  const doc = EVENT_WEBHOOK_DOCS[type]
  const example = EVENT_EXAMPLES[type]
  return {
    post: {
      operationId: doc.operationId,
      summary: doc.summary,
      description:
        `Sent when ${doc.when}. \`data\` (as of the change, with \`livemode\`) is ${doc.data}. ` +
        `POSTed to every \`enabled\` webhook endpoint (createWebhookEndpoint) whose \`enabled_events\` include \`${type}\` or \`*\`, of the API client that onboarded the event's party; ` +
        `signed by the Standard Webhooks scheme with the endpoint's \`secret\`. The body is the event as listEvents lists it: its \`id\` is the \`webhook-id\`. ` +
        `${example.sequence === undefined ? ORDERING.none : ORDERING.loan} ${VERIFICATION} ${ENDPOINT_RETRIES}`,
      tags: ['events'],
      security: [],
      parameters: deliveryHeaders(endpointDeliveryHeaders(example)),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${EVENT_SCHEMA_OF[type]}` }, example } },
      },
      responses: DELIVERY_RESPONSES,
    },
  }
}

/** The partner document's `webhooks`: one entry per event type of the catalogue, by the type. */
export const WEBHOOKS: Readonly<Record<EventType, unknown>> = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, type === 'party.ready' ? PARTY_READY_WEBHOOK : eventWebhook(type)]),
) as Record<EventType, unknown>

/** The body of the `party.ready` webhook (the `PartyReadyEvent` component): the event as eventView shows it, with no `sequence` nor `previous_attributes`. */
export const PARTY_READY_EVENT = PARTY_READY_EVENT_SCHEMA
