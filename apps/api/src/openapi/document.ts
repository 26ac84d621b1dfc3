import {
  AccrualQuery,
  LoanFilters,
  ChargeOffInput,
  PayoffQuery,
  AuditEventFilters,
  AddressInput,
  AddressPatch,
  ApplicantProfileInput,
  ApplicationStatusFilter,
  ApproveApplicationInput,
  ApproveSessionInput,
  CodeInput,
  CollateralInput,
  CreateOnboardingSessionInput,
  DeclineApplicationInput,
  DocumentInput,
  EmailInput,
  EmptyInput,
  jsonSchemaOf,
  LoanApplicationInput,
  LoanApplicationPatch,
  LoanDocumentInput,
  LoanProductInput,
  LoanProductPatch,
  MintApiKeyInput,
  PageQuery,
  PATH_PARAMETERS,
  PaymentInput,
  PaymentMethodInput,
  PaymentMethodPatch,
  PhoneInput,
  ProductActiveFilter,
  RegisterWebhookInput,
  RejectSessionInput,
  ReversePaymentInput,
  SchedulePreviewQuery,
  SessionStatusFilter,
  TransactionFilters,
  type JsonSchema,
} from '@lendgate/core'
import type * as t from 'io-ts'
import { OPERATIONS, type Operation } from '../routes/operations.js'
import { RESPONSE_SCHEMAS, SUCCESS_BODIES } from './responses.js'

/**
 * The OpenAPI 3.1 description of the service (issue 7), built once at start from the route
 * table (every operation, its method, path, auth, scope and success status), from the io-ts
 * codecs that validate each request (their JSON Schemas): one source of truth for both, and
 * from the schemas of the views that shape each success body (responses.ts).
 */

type OperationDoc = {
  readonly summary: string
  /** What a reader needs beyond the summary (CommonMark). */
  readonly description?: string
  readonly tag: string
  /** The codec of the JSON body. */
  readonly body?: t.Mixed
  /** Filters of the query (a strict object codec); list routes add `limit` and `cursor`. */
  readonly query?: t.Mixed
  readonly list?: boolean
}

const doc = (tag: string, summary: string, extra: Omit<OperationDoc, 'tag' | 'summary'> = {}): OperationDoc => ({ tag, summary, ...extra })

const ADDRESS_TYPE_DEFAULT = (holder: 'session' | 'party'): string =>
  `\`type\` is optional: without it, the ${holder}'s first address is \`registered\` and any later one \`operating\`; ` +
  'the response always states the type. A second `registered` address is refused (400 naming `type`): update the first instead.'

const MERGE_PATCH =
  'A JSON Merge Patch (RFC 7396), sent as `application/json` or `application/merge-patch+json`: a field left out keeps its value, ' +
  '`null` clears a field that may be empty, and `null` on a field that cannot be empty is refused (400 naming the field). ' +
  'An empty object is refused (400).'

/** What each operation takes, by operationId. A test proves every operation of the table is here. */
export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  health: doc('health', 'Liveness: the process is up'),
  healthReady: doc('health', 'Readiness: the database answers'),
  getOpenApiDocument: doc('reference', 'This OpenAPI document'),

  mintApiKey: doc('keys', 'Mint a partner API key (operators and backends only)', { body: MintApiKeyInput }),
  listApiKeys: doc('keys', "List the API client's keys, masked", { list: true }),
  revokeApiKey: doc('keys', 'Revoke a key of the API client'),

  createOnboardingSession: doc('onboarding', 'Create an onboarding session', { body: CreateOnboardingSessionInput }),
  getOnboardingSession: doc('onboarding', 'Get an onboarding session'),
  listOnboardingAddresses: doc('onboarding', "List the session's addresses", { list: true }),
  createOnboardingAddress: doc('onboarding', 'Add an address to the session', { body: AddressInput, description: ADDRESS_TYPE_DEFAULT('session') }),
  updateOnboardingAddress: doc('onboarding', 'Update an address of the session', { body: AddressPatch, description: MERGE_PATCH }),
  upsertApplicantProfile: doc('onboarding', 'Create or replace the applicant profile', { body: ApplicantProfileInput }),
  submitOnboardingEmail: doc('onboarding', 'Submit the email to verify', { body: EmailInput }),
  retryOnboardingEmailVerification: doc('onboarding', 'Send a new email verification code'),
  verifyOnboardingEmail: doc('onboarding', 'Verify the email with its code', { body: CodeInput }),
  submitOnboardingPhone: doc('onboarding', 'Submit the phone to verify', { body: PhoneInput }),
  retryOnboardingPhoneVerification: doc('onboarding', 'Send a new phone verification code'),
  verifyOnboardingPhone: doc('onboarding', 'Verify the phone with its code', { body: CodeInput }),
  listPendingOnboardingRequirements: doc('onboarding', 'List the outstanding requirements'),
  submitOnboardingForReview: doc('onboarding', 'Submit the session for review'),
  getPartyBySessionId: doc('onboarding', 'Get the party of an approved session'),
  registerOnboardingSessionWebhook: doc('webhooks', 'Register the party.ready webhook', { body: RegisterWebhookInput }),
  listOnboardingSessionWebhookDeliveries: doc('webhooks', 'List webhook events and their delivery attempts', { list: true }),
  retryOnboardingSessionWebhookDelivery: doc('webhooks', 'Deliver a webhook event again, now', { body: EmptyInput }),
  listDocumentsForOnboardingSession: doc('onboarding', "List the session's documents", { list: true }),
  createOnboardingDocumentMetadata: doc('onboarding', 'Register document metadata', { body: DocumentInput }),

  getParty: doc('parties', 'Get the party'),
  listPartyAddresses: doc('parties', "List the party's addresses", { list: true }),
  createPartyAddress: doc('parties', 'Add an address to the party', { body: AddressInput, description: ADDRESS_TYPE_DEFAULT('party') }),
  updatePartyAddress: doc('parties', 'Update an address of the party', { body: AddressPatch, description: MERGE_PATCH }),
  listPartyApplications: doc('parties', "List the party's loan applications", { list: true, query: ApplicationStatusFilter }),
  listAvailableLoanProductsForParty: doc('parties', 'List the active loan products', { list: true }),

  createLoanApplication: doc('applications', 'Create a loan application (DRAFT)', { body: LoanApplicationInput }),
  getLoanApplication: doc('applications', 'Get a loan application'),
  updateLoanApplication: doc('applications', 'Update a draft application', { body: LoanApplicationPatch, description: MERGE_PATCH }),
  submitLoanApplication: doc('applications', 'Submit the application for decisioning', { body: EmptyInput }),
  withdrawLoanApplication: doc('applications', 'Withdraw the application', { body: EmptyInput }),
  previewLoanApplicationSchedule: doc('applications', 'Preview the repayment schedule', { query: SchedulePreviewQuery }),

  listLoansForParty: doc('servicing', "List the party's loans (optionally by delinquency bucket)", { list: true, query: LoanFilters }),
  getLoanForParty: doc('servicing', 'Get a loan'),
  listLoanBalancesForParty: doc('servicing', 'List balance snapshots', { list: true }),
  getLatestLoanBalanceForParty: doc('servicing', 'Get the latest balance'),
  listCollateralForPartyLoan: doc('servicing', 'List collateral', { list: true }),
  listPaymentsForPartyLoan: doc('servicing', "List the loan's payments", { list: true }),
  getLoanPayoffForParty: doc('servicing', 'Quote the payoff on a date (today by default)', { query: PayoffQuery }),
  listPaymentMethodsForPartyLoan: doc('servicing', 'List payment methods', { list: true }),
  createPaymentMethodForPartyLoan: doc('servicing', 'Add a bank account or card token', { body: PaymentMethodInput }),
  updatePaymentMethodForPartyLoan: doc('servicing', 'Rename a payment method or make it the default', { body: PaymentMethodPatch, description: MERGE_PATCH }),
  createPaymentIntentForPartyLoan: doc('servicing', 'Pay (Idempotency-Key required)', { body: PaymentInput }),
  listLoanScheduleForParty: doc('servicing', 'List the installments', { list: true }),
  listTransactionsForPartyLoan: doc('servicing', 'List ledger transactions', { list: true, query: TransactionFilters }),
  listDocumentsForPartyLoan: doc('servicing', "List the loan's documents", { list: true }),

  listOnboardingSessionsForReview: doc('internal', 'List sessions for review', { list: true, query: SessionStatusFilter }),
  approveOnboardingSession: doc('internal', 'Approve a submitted session (creates the party)', { body: ApproveSessionInput }),
  rejectOnboardingSession: doc('internal', 'Reject a submitted session', { body: RejectSessionInput }),
  listLoanApplicationsForReview: doc('internal', 'List applications for decisioning', { list: true, query: ApplicationStatusFilter }),
  approveLoanApplication: doc('internal', 'Approve an application and book its loan', { body: ApproveApplicationInput }),
  declineLoanApplication: doc('internal', 'Decline an application', { body: DeclineApplicationInput }),
  accrueInterest: doc('internal', 'Accrue interest due by a date (idempotent)', { query: AccrualQuery }),
  addLoanCollateral: doc('internal', 'Record collateral of a loan', { body: CollateralInput }),
  attachLoanDocument: doc('internal', 'Attach a document to a loan', { body: LoanDocumentInput }),
  reverseLoanPayment: doc('internal', 'Reverse a payment', { body: ReversePaymentInput }),
  chargeOffLoan: doc('internal', 'Charge off a loan (writes off everything owed)', { body: ChargeOffInput }),
  listLoanProducts: doc('internal', 'List the loan product catalogue', { list: true, query: ProductActiveFilter }),
  createLoanProduct: doc('internal', 'Create a loan product', { body: LoanProductInput }),
  updateLoanProduct: doc('internal', 'Update a loan product', { body: LoanProductPatch, description: MERGE_PATCH }),
  listAuditEvents: doc('internal', 'List the audit log, newest first', { list: true, query: AuditEventFilters }),
}

const RATE_LIMITED_DESCRIPTION =
  'Too many requests: `rate_limited` (a rate-limit policy; see RateLimit) or, on the verification routes, `too_many_attempts`'

/** Partner routes and minting are rate limited (docs/api.md "Rate limits"): they answer the RateLimit headers and 429. */
const rateLimitedRoute = (op: Operation): boolean => op.auth === 'partner' || op.auth === 'mint'
/**
 * A request without any credential counts against its address's keyless budget on every route
 * but the health probes (docs/api.md "Rate limits"): whatever it is answered carries the
 * RateLimit headers, and it may be a 429.
 */
const keylessBudgeted = (op: Operation): boolean => op.operationId !== 'health' && op.operationId !== 'healthReady'
const carriesRateLimit = (op: Operation, status: number): boolean =>
  // A partner key is judged before its rate limit is counted; the mint secret after.
  (rateLimitedRoute(op) && !(op.auth === 'partner' && status === 401)) || keylessBudgeted(op)
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
}

/** `/a/:id/b` → `/a/{id}/b`, and the names of its parameters. */
const openApiPath = (koaPath: string): { readonly path: string; readonly params: readonly string[] } => {
  const params: string[] = []
  const path = koaPath.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    params.push(name)
    return `{${name}}`
  })
  return { path, params }
}

/** Query parameters from a strict object codec: one parameter per property. */
const queryParameters = (codec: t.Mixed): readonly JsonSchema[] => {
  const schema = jsonSchemaOf(codec) as { properties?: Record<string, JsonSchema> }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: false,
    // Optional properties allow null in a body; a query value is a string or absent.
    schema: (property as { anyOf?: readonly JsonSchema[] }).anyOf?.[0] ?? property,
  }))
}

const securityOf = (op: Operation): readonly Record<string, readonly string[]>[] => {
  switch (op.auth) {
    case 'partner':
      return [{ bearerApiKey: [] }, { headerApiKey: [] }]
    case 'mint':
      return [{ mintKey: [] }]
    case 'internal':
      return [{ internalToken: [] }]
    case 'none':
      return []
  }
}

/** The error statuses each kind of route can answer, and those the operation names (`alsoAnswers`). */
const errorStatuses = (op: Operation): readonly string[] => {
  const statuses = new Set<string>(['400', '404', '405', '500', '501'])
  if (op.auth !== 'none') statuses.add('401')
  if (op.auth === 'partner') statuses.add('403')
  if (rateLimitedRoute(op) || keylessBudgeted(op)) statuses.add('429')
  if (op.method !== 'GET') {
    statuses.add('409')
    statuses.add('413')
    statuses.add('422')
  }
  for (const status of op.alsoAnswers ?? []) statuses.add(String(status))
  return [...statuses].sort()
}

/** The schema of path parameter `name`: the schema of the codec its use cases decode it with. */
const pathParameter = (name: string): JsonSchema => {
  const codec = (PATH_PARAMETERS as Readonly<Record<string, t.Mixed>>)[name]
  if (codec === undefined) throw new Error(`path parameter ${name} has no codec in PATH_PARAMETERS`)
  return { name, in: 'path', required: true, schema: jsonSchemaOf(codec) }
}

const header = (name: string): JsonSchema => ({ $ref: `#/components/headers/${name}` })

/** Writes under /public take an Idempotency-Key, and a replay carries Idempotent-Replayed (docs/api.md "Idempotency"). */
const idempotent = (op: Operation): boolean => op.path.startsWith('/public/') && op.method !== 'GET'

/** The headers an answer of `op` with `status` may carry (docs/api.md "Response headers"). */
const responseHeaders = (op: Operation, status: number): Record<string, JsonSchema> => ({
  'X-Request-Id': header('X-Request-Id'),
  ...(carriesRateLimit(op, status) ? RATE_LIMIT_HEADERS : {}),
  ...(idempotent(op) && status < 500 && status !== 401 ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {}),
  ...(status === 401 && op.auth !== 'mint' ? { 'WWW-Authenticate': header('WWW-Authenticate') } : {}),
  ...(status === 405 ? { Allow: header('Allow') } : {}),
  // 409 idempotency_key_in_use asks the caller to wait.
  ...(status === 429 || (status === 409 && idempotent(op)) ? { 'Retry-After': header('Retry-After') } : {}),
})

const errorResponse = (op: Operation, status: number): JsonSchema => ({
  description: status === 429 ? RATE_LIMITED_DESCRIPTION : 'An error: `error` is a stable code (docs/api.md "Errors")',
  headers: responseHeaders(op, status),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
})

/** The media types of a request body: a PATCH also takes `application/merge-patch+json` (RFC 7396). */
const bodyContent = (op: Operation, schema: JsonSchema): JsonSchema =>
  op.method === 'PATCH' ? { 'application/json': { schema }, 'application/merge-patch+json': { schema } } : { 'application/json': { schema } }

const operationObject = (op: Operation, params: readonly string[]): JsonSchema => {
  const d = OPERATION_DOCS[op.operationId]
  if (d === undefined) throw new Error(`operation ${op.operationId} has no OpenAPI description`)
  const parameters: JsonSchema[] = [
    ...params.map(pathParameter),
    ...(d.query === undefined ? [] : queryParameters(d.query)),
    ...(d.list === true ? queryParameters(PageQuery) : []),
  ]
  if (idempotent(op)) {
    parameters.push(
      op.idempotencyKeyRequired === true ? { $ref: '#/components/parameters/RequiredIdempotencyKey' } : { $ref: '#/components/parameters/IdempotencyKey' },
    )
  }
  const success = SUCCESS_BODIES[op.operationId]
  if (success === undefined) throw new Error(`operation ${op.operationId} has no success body schema (openapi/responses.ts)`)
  return {
    operationId: op.operationId,
    summary: d.summary,
    ...(d.description === undefined ? {} : { description: d.description }),
    tags: [d.tag],
    security: securityOf(op),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(d.body === undefined
      ? op.jsonBody
        ? { requestBody: { required: true, content: bodyContent(op, { type: 'object', description: 'Any JSON object (its contents are not used)' }) } }
        : {}
      : { requestBody: { required: op.jsonBody, content: bodyContent(op, jsonSchemaOf(d.body)) } }),
    responses: {
      [String(op.successStatus)]: {
        description: 'Success',
        headers: responseHeaders(op, op.successStatus),
        content: { 'application/json': { schema: success } },
      },
      ...Object.fromEntries(errorStatuses(op).map((status) => [status, errorResponse(op, Number(status))])),
    },
  }
}

/** The whole document. */
export const openApiDocument = (): JsonSchema => {
  const unknown = Object.keys(SUCCESS_BODIES).filter((operationId) => !OPERATIONS.some((op) => op.operationId === operationId))
  if (unknown.length > 0) throw new Error(`success body schemas for operations the route table lacks: ${unknown.join(', ')}`)
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const op of OPERATIONS) {
    const { path, params } = openApiPath(op.path)
    paths[path] = { ...paths[path], [op.method.toLowerCase()]: operationObject(op, params) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lendgate partner lending API',
      version: '1.0.0',
      description:
        'Onboard business borrowers, receive the signed party.ready webhook, apply for loans and service them. ' +
        'Money is integer minor units with an ISO 4217 currency; dates are YYYY-MM-DD; timestamps ISO 8601 UTC. ' +
        'Version prefix (spec §9): every path under /public is also served under /public/v1 (for example ' +
        '/public/v1/onboarding-sessions is /public/onboarding-sessions): the same operation, parameters and answers. ' +
        'Every answer carries X-Request-Id; errors are {"error": "<stable_code>", "detail": "<text>"}.',
    },
    servers: [{ url: 'http://127.0.0.1:3000' }],
    paths,
    webhooks: {
      'party.ready': {
        post: {
          summary: 'A borrower was approved: the party exists',
          parameters: [
            { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'The same for every retry of one event' },
            { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^\\d+$' }, description: 'Unix seconds' },
            {
              name: 'webhook-signature',
              in: 'header',
              required: true,
              schema: { type: 'string' },
              description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> (Standard Webhooks)',
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'timestamp', 'data'],
                  properties: {
                    type: { const: 'party.ready' },
                    timestamp: { type: 'string', format: 'date-time' },
                    data: { $ref: '#/components/schemas/Party', description: 'The body of getPartyBySessionId as of approval' },
                  },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: { '200': { description: 'Any 2xx acknowledges; 410 stops the retries' } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerApiKey: { type: 'http', scheme: 'bearer', description: 'A partner key: Authorization: Bearer lgk_…' },
        headerApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        mintKey: { type: 'apiKey', in: 'header', name: 'X-Partner-Mint-Key', description: 'The root mint secret (PARTNER_MINT_SECRET)' },
        internalToken: { type: 'http', scheme: 'bearer', description: 'INTERNAL_API_TOKEN; partner keys are refused' },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          description: 'Replays the first answer for the same request (24 hours); a different request with the same key is 422',
        },
        RequiredIdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          description: 'Required: a payment without one is 400 idempotency_key_required',
        },
      },
      schemas: {
        ...RESPONSE_SCHEMAS,
        Error: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'string' }, detail: { type: 'string' } },
          additionalProperties: true,
        },
        ListEnvelope: {
          type: 'object',
          required: ['data', 'next_cursor'],
          properties: { data: { type: 'array', items: { type: 'object' } }, next_cursor: { type: ['string', 'null'] } },
        },
      },
      headers: {
        'RateLimit-Policy': {
          description: 'The rate-limit policies of the route (draft-ietf-httpapi-ratelimit-headers): quota q per window of w seconds, e.g. "default";q=600;w=60',
          schema: { type: 'string' },
        },
        RateLimit: {
          description: 'What remains of each policy: r requests left, t seconds until the window resets, e.g. "default";r=599;t=42',
          schema: { type: 'string' },
        },
        'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
        'X-Request-Id': {
          description: "The request's id: the caller's X-Request-Id when it is 1 to 128 letters, digits, '.', '_', ':' or '-', else a new UUID. Logged with the request; quote it to support.",
          schema: { type: 'string' },
        },
        'Idempotent-Replayed': {
          description: 'true when this answer replays the first answer to the same Idempotency-Key (docs/api.md "Idempotency")',
          schema: { type: 'string', const: 'true' },
        },
        'WWW-Authenticate': { description: 'Bearer (RFC 6750); `error="invalid_token"` for a key that is unknown, malformed or revoked', schema: { type: 'string' } },
        Allow: { description: 'The methods the path answers', schema: { type: 'string' } },
      },
    },
  }
}
