import { PARTY_READY_EVENT_EXAMPLE } from './examples.js'
import { PARTY_READY_EVENT as PARTY_READY_EVENT_SCHEMA } from './responses.js'
import { testingGuide } from './testing-guide.js'

/** The fixed parts of the OpenAPI documents: info, security schemes, shared parameters and headers, the party.ready webhook. */

export const INFO = {
  partner: {
    title: 'Lendgate partner lending API',
    description:
      'Onboard business borrowers, receive the signed `party.ready` webhook, apply for loans and service them.\n\n' +
      '- **Keys**: a key belongs to one party and carries scopes; send it as `Authorization: Bearer lgk_…` or `X-Api-Key`. ' +
      'Operators and partner backends mint keys with the root mint secret (`X-Partner-Mint-Key`).\n' +
      '- **Money** is integer minor units (`int64`) with an ISO 4217 currency; dates are `YYYY-MM-DD`; timestamps ISO 8601 UTC with milliseconds.\n' +
      '- **Lists** take `limit` (1–100, default 20) and `cursor` (the previous page\'s `next_cursor`) and answer `{data, next_cursor}`.\n' +
      '- **Writes** accept an `Idempotency-Key`; a payment requires one.\n' +
      '- **Errors** are `{"error": "<stable_code>", "detail": "<text>"}` with the fields a code documents; each operation lists its codes and why. ' +
      'A request Node\'s HTTP parser cannot read (headers too large, malformed, too slow) is answered 400, 431 or 408 before it reaches an operation.\n' +
      '- **Versions**: every path under `/public` is also served under `/public/v1`, the same operation.\n' +
      '- Every answer carries `X-Request-Id`; quote it to support.\n\n' +
      testingGuide(),
  },
  operator: {
    title: 'Lendgate operator API',
    description:
      'The routes a lender\'s operations team and its tools call: review onboarding sessions, decide applications, act on loans, manage the product catalogue, ' +
      'run the daily job and read the audit log; and the probes. Every `/internal` route takes `Authorization: Bearer <INTERNAL_API_TOKEN>`; partner keys are refused. ' +
      'Never expose these routes to the internet.',
  },
} as const

export const SECURITY_SCHEMES = {
  partner: {
    bearerApiKey: { type: 'http', scheme: 'bearer', description: 'A partner API key: `Authorization: Bearer lgk_…`' },
    headerApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'A partner API key in `X-Api-Key`, for clients that cannot set Authorization' },
    mintKey: { type: 'apiKey', in: 'header', name: 'X-Partner-Mint-Key', description: 'The root mint secret (PARTNER_MINT_SECRET): operators and partner backends only' },
  },
  operator: {
    internalToken: { type: 'http', scheme: 'bearer', description: 'The operator token: `Authorization: Bearer <INTERNAL_API_TOKEN>`. Partner keys are refused' },
  },
} as const

export const PARAMETERS = {
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
  'Idempotent-Replayed': {
    description: 'true when this answer replays the first answer to the same Idempotency-Key',
    schema: { type: 'string', const: 'true' },
    example: 'true',
  },
  'WWW-Authenticate': {
    description: 'Bearer (RFC 6750); `error="invalid_token"` for a key that is unknown, malformed or revoked',
    schema: { type: 'string' },
    example: 'Bearer error="invalid_token"',
  },
}

/** A `party.ready` event, sent as the party was created: the event as the event list shows it. */
const PARTY_READY_EXAMPLE = PARTY_READY_EVENT_EXAMPLE

/** The `party.ready` webhook: what the partner's endpoint receives. */
export const PARTY_READY_WEBHOOK = {
  post: {
    operationId: 'partyReady',
    summary: 'A borrower was approved: the party exists',
    description:
      'POSTed to the `webhook_url` registered on the session when an operator approves it, signed by the Standard Webhooks scheme with the session\'s `webhook_secret`. ' +
      'Verify `webhook-signature` over `webhook-id.webhook-timestamp.body` before trusting the body, and refuse a timestamp more than 5 minutes away. ' +
      'Retried with backoff until a 2xx (the same `webhook-id` each time, so deduplicate by it) or until the retry schedule runs out, when the event becomes `failed` ' +
      '(the retry route delivers it again); a 410 stops the retries. The request carries no credential: the signature is the proof. ' +
      'The body is the `party.ready` event as listEvents lists it: its `id` is the `webhook-id`, and `data` the party as getPartyBySessionId answers it.',
    tags: ['webhooks'],
    security: [],
    parameters: [
      { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' }, example: PARTY_READY_EXAMPLE.id, description: "The event's `id`: the same for every retry of one event" },
      {
        name: 'webhook-timestamp',
        in: 'header',
        required: true,
        schema: { type: 'string', pattern: '^\\d+$' },
        example: String(Math.floor(Date.parse(PARTY_READY_EXAMPLE.timestamp) / 1000)),
        description: 'Unix seconds of this attempt',
      },
      {
        name: 'webhook-signature',
        in: 'header',
        required: true,
        schema: { type: 'string' },
        example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> (Standard Webhooks)',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/PartyReadyEvent' },
          example: PARTY_READY_EXAMPLE,
        },
      },
    },
    responses: {
      '200': { description: 'Any 2xx acknowledges the event' },
      '410': { description: 'Gone: stop retrying this event' },
    },
  },
}

/** The body of the `party.ready` webhook (the `PartyReadyEvent` component): the event as eventView shows it, with no `sequence` nor `previous_attributes`. */
export const PARTY_READY_EVENT = PARTY_READY_EVENT_SCHEMA
