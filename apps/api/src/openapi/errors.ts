import type { JsonSchema } from '@lendgate/core'
import { toHttpError } from '../http/error-mapper.js'
import type { Problem } from '../http/problems.js'
import { REQUIREMENT } from './responses.js'

/**
 * The error answers of the OpenAPI documents (issue 39): one named schema per `error` code, and
 * for each operation the statuses its problems map to, each with the codes it can carry and an
 * example of each. Statuses, codes and example bodies come from `toHttpError`, the mapper the
 * service answers with, applied to a sample of each problem, so a problem is never documented
 * with another status or body than the service gives it. Which problems each operation lists is
 * written by hand (operation-docs.ts, document.ts); every HTTP suite checks that each error it
 * receives is listed.
 */

export type ProblemTag = Problem['_tag']
type ProblemOf<T extends ProblemTag> = Extract<Problem, { readonly _tag: T }>

/** A problem an operation can answer, and why it does (the operation's description lists these). */
export type DocumentedProblem = { readonly problem: Problem; readonly why: string }

/** One realistic instance of every problem: what the document's examples and generic reasons show. */
export const SAMPLE_PROBLEMS: { readonly [T in ProblemTag]: ProblemOf<T> } = {
  InvalidRequest: { _tag: 'InvalidRequest', detail: 'amount must be an integer from 1 to 9007199254740991', param: 'amount' },
  NotFound: { _tag: 'NotFound', resource: 'loan' },
  StoreUnavailable: { _tag: 'StoreUnavailable', cause: undefined },
  AlreadyExists: { _tag: 'AlreadyExists', entity: 'applicant_profile' },
  ConcurrentUpdate: { _tag: 'ConcurrentUpdate', resource: 'loan' },
  InvalidState: { _tag: 'InvalidState', resource: 'loan_application', status: 'SUBMITTED', action: 'update' },
  RateLimited: { _tag: 'RateLimited', retryAfterSeconds: 42 },
  RequirementsOutstanding: {
    _tag: 'RequirementsOutstanding',
    requirements: [{ code: 'email_unverified', step: 'EMAIL_VERIFICATION', description: 'Verify the email with the code sent to it.' }],
  },
  InvalidCode: { _tag: 'InvalidCode', attemptsRemaining: 4 },
  CodeExpired: { _tag: 'CodeExpired' },
  TooManyAttempts: { _tag: 'TooManyAttempts' },
  NoPendingVerification: { _tag: 'NoPendingVerification', channel: 'phone', alreadyVerified: false },
  VerificationDeliveryFailed: { _tag: 'VerificationDeliveryFailed', reason: 'the delivery service answered 503' },
  MissingApiKey: { _tag: 'MissingApiKey' },
  InvalidApiKey: { _tag: 'InvalidApiKey' },
  InsufficientScope: { _tag: 'InsufficientScope', scope: 'keys:manage' },
  PartyMismatch: { _tag: 'PartyMismatch' },
  TestModeOnly: { _tag: 'TestModeOnly' },
  InvalidMintKey: { _tag: 'InvalidMintKey' },
  InvalidInternalToken: { _tag: 'InvalidInternalToken' },
  InvalidCredentials: { _tag: 'InvalidCredentials' },
  InvalidOperatorSession: { _tag: 'InvalidOperatorSession' },
  InsufficientRole: { _tag: 'InsufficientRole', role: 'reviewer', permission: 'decide_credit' },
  CheckerRequired: { _tag: 'CheckerRequired', kind: 'payment_reversal' },
  SameOperator: { _tag: 'SameOperator' },
  PreviewOutdated: { _tag: 'PreviewOutdated', current: '0b8f7a5e-2c41-4d9a-9e63-7f1d2a8c4b50.2026-11-30' },
  OperatorRequired: { _tag: 'OperatorRequired' },
  InvalidCsrfToken: { _tag: 'InvalidCsrfToken' },
  ServerMisconfigured: { _tag: 'ServerMisconfigured', setting: 'INTERNAL_API_TOKEN' },
  RouteNotFound: { _tag: 'RouteNotFound', method: 'GET', path: '/public/loans' },
  NotReady: { _tag: 'NotReady', reason: 'database_unreachable' },
  MethodNotAllowed: { _tag: 'MethodNotAllowed', allowed: ['GET', 'POST'] },
  PayloadTooLarge: { _tag: 'PayloadTooLarge', limitBytes: 1_048_576 },
  UnreadableRequest: { _tag: 'UnreadableRequest', reason: 'malformed' },
  IdempotencyKeyReused: { _tag: 'IdempotencyKeyReused' },
  IdempotencyKeyInUse: { _tag: 'IdempotencyKeyInUse' },
  NotImplemented: { _tag: 'NotImplemented', operationId: 'getLoanForParty' },
  RateLimitExceeded: { _tag: 'RateLimitExceeded', policy: 'default', limit: 600, windowSeconds: 60, retryAfterSeconds: 17 },
  TooManyConnections: { _tag: 'TooManyConnections', limit: 100 },
  InternalError: { _tag: 'InternalError' },
  Overpayment: { _tag: 'Overpayment', payoffAmount: 1_143_209, pendingAmount: 0 },
  IdempotencyKeyRequired: { _tag: 'IdempotencyKeyRequired' },
  ProcessorUnavailable: { _tag: 'ProcessorUnavailable', cause: undefined },
}

/** `problem` with the generic reason of its code. */
export const documented = (problem: Problem, why?: string): DocumentedProblem => ({ problem, why: why ?? ERROR_CODES[codeOf(problem)]!.why })

/** The sample of `tag`, with its code's generic reason or `why`. */
export const sample = (tag: ProblemTag, why?: string): DocumentedProblem => documented(SAMPLE_PROBLEMS[tag], why)

const codeOf = (problem: Problem): string => toHttpError(problem).body.error

// ---- the codes --------------------------------------------------------------------------------

const string: JsonSchema = { type: 'string' }
const integer: JsonSchema = { type: 'integer' }

type CodeDoc = {
  /** Why a request gets this code, in general (operations may say more precisely). */
  readonly why: string
  /** Fields the body carries besides `error` and `detail`. */
  readonly fields?: Readonly<Record<string, JsonSchema>>
  /** Which of `fields` are always there. */
  readonly required?: readonly string[]
  /** The body has no `detail` (the spec's placeholder body). */
  readonly withoutDetail?: true
}

/**
 * Every `error` code the service answers, by code. A test proves each problem's body (by
 * `toHttpError`) has its code here and matches the code's schema.
 */
export const ERROR_CODES: Readonly<Record<string, CodeDoc>> = {
  invalid_request: {
    why: 'A path parameter, query parameter, header or body field is missing, malformed or not allowed; `param` names the field when it is one',
    fields: { param: { ...string, description: 'The offending field, as a dotted path (e.g. `scopes.1`)' } },
  },
  missing_api_key: { why: 'No API key: send `Authorization: Bearer <key>` or `X-Api-Key`' },
  invalid_api_key: { why: 'The API key is malformed, unknown or revoked' },
  invalid_mint_key: { why: '`X-Partner-Mint-Key` is missing or wrong' },
  invalid_internal_token: { why: 'The internal token is missing or wrong, and there is no console session (partner keys are not accepted on operator routes)' },
  invalid_credentials: { why: "A console sign-in's e-mail or password is wrong, or its operator is disabled (one answer for all three)" },
  invalid_session: { why: 'No console session, or it has expired, was revoked or its operator was disabled: sign in again' },
  insufficient_role: {
    why: "The console session's operator has a role that lacks the permission the route needs",
    fields: {
      role: { ...string, description: "The operator's role" },
      permission: { ...string, description: 'The permission the route needs' },
    },
    required: ['role', 'permission'],
  },
  invalid_csrf_token: { why: "A console session's request that changes something came without the session's CSRF token in `X-CSRF-Token`" },
  checker_required: {
    why: "A named operator tried to reverse a payment or charge off a loan alone: a person asks with `POST /internal/operator-requests`, and a second operator approves",
    fields: { kind: { ...string, description: 'What was tried: `payment_reversal` or `loan_charge_off`' } },
    required: ['kind'],
  },
  operator_session_required: { why: 'The internal token tried to ask for or decide a maker-checker request: only named operators, in a console session, do' },
  preview_outdated: {
    why: "The loan changed between the checker's preview and the approval, so what they saw is not what approving would do",
    fields: { preview_version: { ...string, description: 'The `preview_version` a preview would answer now: preview again before approving' } },
    required: ['preview_version'],
  },
  checker_must_differ: { why: 'The operator who asked for a maker-checker request tried to approve it: another operator must' },
  insufficient_scope: {
    why: 'The key lacks the scope the operation needs',
    fields: { scope: { ...string, description: 'The scope the operation needs' } },
    required: ['scope'],
  },
  party_mismatch: { why: 'The party in the path or body is not the party of the API key' },
  test_mode_only: { why: 'A test helper was called with a live key: test helpers act on the test world only' },
  not_found: { why: 'The resource does not exist, or belongs to another API client or party' },
  conflict: { why: 'The resource already exists, or a concurrent request changed it first (retry)' },
  invalid_state: {
    why: 'The resource is in a status that does not allow the operation',
    fields: { status: { ...string, description: 'The status the resource is in' } },
    required: ['status'],
  },
  requirements_outstanding: {
    why: 'The session still has outstanding requirements',
    fields: { requirements: { type: 'array', items: REQUIREMENT, minItems: 1 } },
    required: ['requirements'],
  },
  verification_not_pending: {
    why: 'No code awaits verification on this channel: the contact is already verified, or no code was sent',
    fields: { reason: { type: 'string', enum: ['already_verified', 'no_pending_code'] } },
    required: ['reason'],
  },
  invalid_code: {
    why: 'The verification code is wrong',
    fields: { attempts_remaining: { ...integer, minimum: 0, description: 'Wrong codes that may still be tried before a new code is needed' } },
    required: ['attempts_remaining'],
  },
  code_expired: { why: 'The verification code has expired; request a new one with the retry route' },
  too_many_attempts: { why: 'Too many wrong codes for the code sent; request a new one with the retry route' },
  rate_limited: {
    why: 'A rate limit was reached (a policy of the key or client address, open connections of one client address, or the wait between verification codes); retry after `Retry-After` seconds',
    fields: {
      retry_after_seconds: { ...integer, minimum: 1 },
      policy: { ...string, description: 'The rate-limit policy reached (absent for the wait between verification codes)' },
    },
    required: ['retry_after_seconds'],
  },
  verification_delivery_failed: { why: 'The verification code could not be delivered; no code was issued' },
  idempotency_key_in_use: { why: 'A request with the same Idempotency-Key is still being processed; retry after `Retry-After` seconds' },
  idempotency_key_reused: { why: 'The Idempotency-Key was used for a different request (method, path or body)' },
  idempotency_key_required: { why: 'The request moves money and carries no Idempotency-Key' },
  payload_too_large: { why: 'The request body is over 1 MiB' },
  overpayment: {
    why: 'The amount is more than the payoff amount on the payment date',
    fields: { payoff_amount: { ...integer, format: 'int64', minimum: 0, description: 'What pays the loan off, in minor units' } },
    required: ['payoff_amount'],
  },
  payment_processor_unavailable: { why: 'The payment processor could not be reached; nothing was charged. Retry with the same Idempotency-Key' },
  not_ready: { why: 'The database is unreachable, or its schema is being migrated (readiness answers at once; any other request first waits up to 30 s for the migrations)' },
  store_unavailable: { why: 'The database is unavailable (an outage); retry later, safely with an Idempotency-Key' },
  server_misconfigured: { why: 'The server lacks a setting the operation needs (an operator must set it)' },
  internal_error: { why: 'An unexpected error (a bug); quote the X-Request-Id to support' },
  not_implemented: {
    why: 'The operation is switched off on this server: it answers a placeholder',
    fields: { operation_id: string },
    required: ['operation_id'],
    withoutDetail: true,
  },
  method_not_allowed: { why: 'The path does not answer this method (the Allow header lists those it does)' },
  headers_too_large: { why: 'The request headers are over the server limit' },
  request_timeout: { why: 'The request was not received in time' },
}

/** The codes only operator routes answer: the partner catalogue leaves them out. */
const OPERATOR_CODES: ReadonlySet<string> = new Set(['invalid_internal_token', 'invalid_credentials', 'invalid_session', 'insufficient_role', 'invalid_csrf_token', 'checker_required', 'checker_must_differ', 'preview_outdated', 'operator_session_required'])

/** When a request answered with a code is worth sending again; the others need a change first. */
const RETRY_ADVICE: Readonly<Record<string, string>> = {
  conflict: 'after reading the resource again',
  rate_limited: 'after `Retry-After` seconds',
  idempotency_key_in_use: 'after `Retry-After` seconds',
  code_expired: 'with a new code (the retry route)',
  too_many_attempts: 'with a new code (the retry route)',
  verification_delivery_failed: 'later',
  payment_processor_unavailable: 'with the same `Idempotency-Key`',
  not_ready: 'after `Retry-After` seconds',
  store_unavailable: 'later, with the same `Idempotency-Key`',
  internal_error: 'later, with the same `Idempotency-Key`; quote `X-Request-Id` to support',
  request_timeout: 'at once',
}

/** Every problem's sample and the parser's refusals: what gives each code its statuses. */
const ALL_SAMPLES: readonly Problem[] = [
  ...Object.values(SAMPLE_PROBLEMS),
  { _tag: 'UnreadableRequest', reason: 'headers_too_large' },
  { _tag: 'UnreadableRequest', reason: 'timeout' },
  { _tag: 'NotReady', reason: 'migrations_pending' },
]

/**
 * The partner Errors guide's catalogue (a generated block, see guides.ts): every code a partner
 * route answers, with the statuses `toHttpError` gives it, when to retry, what it means and the
 * fields its body carries besides `error` and `detail`.
 */
export const partnerErrorCatalogue = (): string => {
  const statuses = new Map<string, Set<number>>()
  for (const problem of ALL_SAMPLES) {
    const { status, body } = toHttpError(problem)
    statuses.set(body.error, (statuses.get(body.error) ?? new Set<number>()).add(status))
  }
  const rows = Object.entries(ERROR_CODES)
    .filter(([code]) => !OPERATOR_CODES.has(code))
    .map(([code, { why, fields = {} }]) => {
      const answered = [...(statuses.get(code) ?? [])].sort((a, b) => a - b)
      if (answered.length === 0) throw new Error(`no problem answers ${code}`)
      const extra = Object.keys(fields).map((name) => `\`${name}\``).join(', ')
      return `| \`${code}\` | ${answered.join(', ')} | ${RETRY_ADVICE[code] ?? 'no: change the request first'} | ${sentence(why).replaceAll('|', '\\|')} | ${extra === '' ? '—' : extra} |`
    })
  return ['| Code | Status | Retry | Meaning | Other fields |', '| --- | --- | --- | --- | --- |', ...rows].join('\n')
}

/** `invalid_request` → `InvalidRequestError`. */
export const errorSchemaName = (code: string): string =>
  `${code
    .split('_')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')}Error`

/** The named schema of every code, for `components.schemas`. */
export const ERROR_SCHEMAS: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, { why, fields = {}, required = [], withoutDetail }]) => [
    errorSchemaName(code),
    {
      type: 'object',
      description: `\`${code}\`: ${why}.`,
      required: ['error', ...(withoutDetail === true ? [] : ['detail']), ...required],
      additionalProperties: false,
      properties: {
        error: { type: 'string', enum: [code], description: 'A stable code to branch on' },
        detail: { type: 'string', description: 'For people: may change between releases' },
        ...fields,
      },
    },
  ]),
)

// ---- answers by status -------------------------------------------------------------------------

/** The problems of an operation grouped by the status they answer, and by code within it. */
export type ErrorStatus = {
  readonly status: number
  /** The codes of this status, sorted, each with every problem documented for it (the first is its example). */
  readonly codes: readonly { readonly code: string; readonly problems: readonly DocumentedProblem[] }[]
}

export const errorStatuses = (problems: readonly DocumentedProblem[]): readonly ErrorStatus[] => {
  const byStatus = new Map<number, Map<string, DocumentedProblem[]>>()
  for (const documentedProblem of problems) {
    const { status, body } = toHttpError(documentedProblem.problem)
    if (ERROR_CODES[body.error] === undefined) throw new Error(`error code ${body.error} is not in ERROR_CODES`)
    const codes = byStatus.get(status) ?? new Map<string, DocumentedProblem[]>()
    codes.set(body.error, [...(codes.get(body.error) ?? []), documentedProblem])
    byStatus.set(status, codes)
  }
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) => ({ status, codes: [...codes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([code, documentedProblems]) => ({ code, problems: documentedProblems })) }))
}

/** `why` as a sentence. */
export const sentence = (why: string): string => (/[.!?]$/.test(why) ? why : `${why}.`)

/** The schema of an answer carrying one of `codes`: the code's schema, or a union told apart by `error`. */
export const errorBodySchema = (codes: readonly string[]): JsonSchema => {
  const ref = (code: string) => `#/components/schemas/${errorSchemaName(code)}`
  if (codes.length === 1) return { $ref: ref(codes[0]!) }
  return {
    oneOf: codes.map((code) => ({ $ref: ref(code) })),
    discriminator: { propertyName: 'error', mapping: Object.fromEntries(codes.map((code) => [code, ref(code)])) },
  }
}

/** The example bodies of an answer: one per code, named by the code. */
export const errorExamples = (entry: ErrorStatus): JsonSchema =>
  Object.fromEntries(entry.codes.map(({ code, problems: [first] }) => [code, { summary: sentence(first!.why), value: toHttpError(first!.problem).body }]))
