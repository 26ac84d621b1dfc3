import type { KnownScope, OperatorPermission } from '@lendgate/core'
import type { LivemodePlacement } from '../http/livemode.js'

/**
 * Every route of the service, in one table: its operationId (spec §4), method, path (Koa
 * syntax), success status, how it authenticates and which scope it needs. The router, the
 * placeholder switch and the tests are all driven by this table, so a route cannot be added
 * in one place and forgotten in another.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * `partner`: a partner API key; `mint`: the mint secret; `internal`: the internal token, or a named
 * operator's console session whose role holds the operation's `permission` (decision 149);
 * `session`: a console session only (the session's own routes); `none`.
 */
export type AuthKind = 'partner' | 'mint' | 'internal' | 'session' | 'none'

export type ExtraLimit = 'verification' | 'webhook_retry'

/**
 * A route announced for removal (decision 134, the partner Versioning guide): from `since` its
 * answers carry `Deprecation` (RFC 9745) and `Sunset` (RFC 8594), at least 12 months before
 * `sunset`; the OpenAPI document marks it deprecated.
 */
export type Deprecation = {
  /** The day it was announced, `YYYY-MM-DD` (UTC). */
  readonly since: string
  /** The day after which it may stop answering, `YYYY-MM-DD` (UTC). */
  readonly sunset: string
  /** Where its replacement is described, sent as `Link: <…>; rel="deprecation"`. */
  readonly link: string
}

export type Operation<Id extends string = string> = {
  readonly operationId: Id
  readonly method: HttpMethod
  readonly path: string
  readonly successStatus: number
  readonly auth: AuthKind
  /** Scope a partner key needs (partner routes only). */
  readonly scope?: KnownScope
  /** What a named operator's role must hold (internal routes only); the internal token holds everything. */
  readonly permission?: OperatorPermission
  /** The request must carry a JSON body (spec §4: onboarding and party POST/PUT/PATCH; key minting). */
  readonly jsonBody: boolean
  /** The request's body is a file (`text/plain`), not JSON: the command's `file` field (`readFileBody`). */
  readonly fileBody?: boolean
  /**
   * A limit counted on top of the partner key's own: `verification` on the routes that send or
   * check codes (per key), `webhook_retry` on a manual webhook retry (per event).
   */
  readonly extraLimit?: ExtraLimit
  /** A request without an `Idempotency-Key` is refused (400 `idempotency_key_required`): payments. */
  readonly idempotencyKeyRequired?: boolean
  /** A test helper (decision 130): live keys are refused with 403 `test_mode_only`. */
  readonly testOnly?: boolean
  /**
   * A write that takes its fields from the query string rather than a body (the accrual job's
   * `as_of`). Any other write refuses query parameters (decision 77).
   */
  readonly fieldsInQuery?: boolean
  /** Where the success body's resources are, for their `livemode`; `body` unless said. */
  readonly livemode?: Exclude<LivemodePlacement, 'body'>
  /** Announced for removal: see `Deprecation`. */
  readonly deprecated?: Deprecation
  /**
   * A read that may be a little behind (decision 156): served by a read replica current enough for
   * its reader when there is one, with `Lendgate-Data-As-Of`. Only reads that decide nothing: lists,
   * ledgers, schedules, the event list, the delinquency queue and the portfolio.
   */
  readonly readsBehind?: boolean
}

type PartnerOptions = {
  readonly testOnly?: boolean
  readonly scope?: KnownScope
  readonly jsonBody?: boolean
  readonly extraLimit?: ExtraLimit
  readonly idempotencyKeyRequired?: boolean
  readonly livemode?: Exclude<LivemodePlacement, 'body'>
  readonly readsBehind?: boolean
}

const partner = <const Id extends string>(operationId: Id, method: HttpMethod, path: string, successStatus: number, options: PartnerOptions = {}): Operation<Id> => ({
  operationId,
  method,
  path,
  successStatus,
  auth: 'partner',
  scope: options.scope ?? 'partner:api',
  jsonBody: options.jsonBody ?? false,
  ...(options.extraLimit === undefined ? {} : { extraLimit: options.extraLimit }),
  ...(options.idempotencyKeyRequired === true ? { idempotencyKeyRequired: true } : {}),
  ...(options.testOnly === true ? { testOnly: true } : {}),
  ...(options.livemode === undefined ? {} : { livemode: options.livemode }),
  ...(options.readsBehind === true ? { readsBehind: true } : {}),
})

const other = <const Id extends string>(
  operationId: Id,
  method: HttpMethod,
  path: string,
  successStatus: number,
  auth: Exclude<AuthKind, 'partner'>,
  options: { readonly jsonBody?: boolean; readonly fileBody?: boolean; readonly fieldsInQuery?: boolean; readonly livemode?: Exclude<LivemodePlacement, 'body'>; readonly readsBehind?: boolean } = {},
): Operation<Id> => ({
  operationId,
  method,
  path,
  successStatus,
  auth,
  jsonBody: options.jsonBody ?? false,
  ...(options.fileBody === true ? { fileBody: true } : {}),
  ...(options.fieldsInQuery === true ? { fieldsInQuery: true } : {}),
  ...(options.livemode === undefined ? {} : { livemode: options.livemode }),
  ...(options.readsBehind === true ? { readsBehind: true } : {}),
})

type OtherOptions = Parameters<typeof other>[5]

/** An internal route: the internal token, or a console session whose role holds `permission`. */
const internal = <const Id extends string>(operationId: Id, method: HttpMethod, path: string, successStatus: number, permission: OperatorPermission, options: OtherOptions = {}): Operation<Id> => ({
  ...other(operationId, method, path, successStatus, 'internal', options),
  permission,
})

const json = { jsonBody: true } as const
/** A body of no world (a probe's, a document): no `livemode`. */
const worldless = { livemode: 'none' } as const
/** Sends or checks a verification code: a delivery or an scrypt hash, limited per key on top. */
const code = { jsonBody: true, extraLimit: 'verification' } as const
const S = '/public/onboarding-sessions/:sessionId'
const P = '/public/parties/:partyId'
const L = `${P}/loans/:loanId`
const T = '/public/test-helpers'
const W = '/public/webhook-endpoints'
/** A test helper: a test key's simulation of what an operator or a bank would do. */
const helper = { testOnly: true } as const
/** A read that may be a little behind: a read replica may serve it (decision 156). */
const behind = { readsBehind: true } as const

export const OPERATIONS = [
  other('health', 'GET', '/health', 200, 'none', worldless),
  other('healthReady', 'GET', '/health/ready', 200, 'none', worldless),
  other('getOpenApiDocument', 'GET', '/public/openapi.json', 200, 'none', worldless),

  // §4.1 key management (CONTRACT.md "Keys")
  other('mintApiKey', 'POST', '/public/partner/api-keys', 201, 'mint', { jsonBody: true }),
  partner('listApiKeys', 'GET', '/public/partner/api-keys', 200, { scope: 'keys:manage' }),
  partner('revokeApiKey', 'DELETE', '/public/partner/api-keys/:apiKeyId', 200, { scope: 'keys:manage' }),

  // §4.2 onboarding sessions
  partner('createOnboardingSession', 'POST', '/public/onboarding-sessions', 201, json),
  partner('getOnboardingSession', 'GET', S, 200),
  partner('listOnboardingAddresses', 'GET', `${S}/addresses`, 200),
  partner('createOnboardingAddress', 'POST', `${S}/addresses`, 201, json),
  partner('updateOnboardingAddress', 'PATCH', `${S}/addresses/:addressId`, 200, json),
  partner('upsertApplicantProfile', 'PUT', `${S}/applicant-profile`, 200, json),
  partner('submitOnboardingEmail', 'POST', `${S}/contact/email`, 201, code),
  partner('retryOnboardingEmailVerification', 'POST', `${S}/contact/email/retry`, 201, code),
  partner('verifyOnboardingEmail', 'POST', `${S}/contact/email/verify`, 200, code),
  partner('submitOnboardingPhone', 'POST', `${S}/contact/phone`, 201, code),
  partner('retryOnboardingPhoneVerification', 'POST', `${S}/contact/phone/retry`, 201, code),
  partner('verifyOnboardingPhone', 'POST', `${S}/contact/phone/verify`, 200, code),
  partner('listPendingOnboardingRequirements', 'GET', `${S}/requirements`, 200),
  partner('submitOnboardingForReview', 'POST', `${S}/submit`, 201, json),
  partner('getPartyBySessionId', 'GET', `${S}/party`, 200),
  partner('registerOnboardingSessionWebhook', 'PUT', `${S}/webhook`, 200, json),
  partner('listOnboardingSessionWebhookDeliveries', 'GET', `${S}/webhook/deliveries`, 200),
  partner('retryOnboardingSessionWebhookDelivery', 'POST', `${S}/webhook/deliveries/:eventId/retry`, 200, { extraLimit: 'webhook_retry' }),
  partner('listDocumentsForOnboardingSession', 'GET', `${S}/documents`, 200),
  partner('createOnboardingDocumentMetadata', 'POST', `${S}/documents`, 201, json),

  // §4.3 parties
  partner('getParty', 'GET', P, 200),
  partner('listPartyAddresses', 'GET', `${P}/addresses`, 200),
  partner('createPartyAddress', 'POST', `${P}/addresses`, 201, json),
  partner('updatePartyAddress', 'PATCH', `${P}/addresses/:addressId`, 200, json),
  partner('listPartyApplications', 'GET', `${P}/applications`, 200, behind),
  partner('listAvailableLoanProductsForParty', 'GET', `${P}/available-loan-products`, 200),

  // §4.4 loan applications
  partner('createLoanApplication', 'POST', '/public/applications', 201, json),
  partner('getLoanApplication', 'GET', '/public/applications/:applicationId', 200),
  partner('updateLoanApplication', 'PATCH', '/public/applications/:applicationId', 200, json),
  partner('submitLoanApplication', 'POST', '/public/applications/:applicationId/submit', 200),
  partner('withdrawLoanApplication', 'POST', '/public/applications/:applicationId/withdraw', 200),
  partner('previewLoanApplicationSchedule', 'GET', '/public/applications/:applicationId/schedule-preview', 200),

  // §4.5 servicing
  partner('listLoansForParty', 'GET', `${P}/loans`, 200, behind),
  partner('getLoanForParty', 'GET', L, 200),
  partner('listLoanBalancesForParty', 'GET', `${L}/balances`, 200, behind),
  partner('getLatestLoanBalanceForParty', 'GET', `${L}/balances/latest`, 200),
  partner('listCollateralForPartyLoan', 'GET', `${L}/collateral`, 200),
  partner('listPaymentsForPartyLoan', 'GET', `${L}/payments`, 200, behind),
  partner('getLoanPayoffForParty', 'GET', `${L}/payoff`, 200),
  partner('listPaymentMethodsForPartyLoan', 'GET', `${L}/payment-methods`, 200),
  partner('createPaymentMethodForPartyLoan', 'POST', `${L}/payment-methods`, 201, json),
  partner('updatePaymentMethodForPartyLoan', 'PATCH', `${L}/payment-methods/:paymentMethodId`, 200, json),
  partner('getLoanAutopayForParty', 'GET', `${L}/autopay`, 200),
  partner('setLoanAutopayForParty', 'PUT', `${L}/autopay`, 200, json),
  partner('createPaymentIntentForPartyLoan', 'POST', `${L}/payments`, 201, { jsonBody: true, idempotencyKeyRequired: true }),
  partner('listLoanScheduleForParty', 'GET', `${L}/schedule`, 200, behind),
  partner('listTransactionsForPartyLoan', 'GET', `${L}/transactions`, 200, behind),
  partner('listDocumentsForPartyLoan', 'GET', `${L}/documents`, 200, behind),

  // Events and webhook endpoints (docs/events.md)
  partner('listEvents', 'GET', '/public/events', 200, behind),
  partner('createWebhookEndpoint', 'POST', W, 201, json),
  partner('listWebhookEndpoints', 'GET', W, 200),
  partner('getWebhookEndpoint', 'GET', `${W}/:endpointId`, 200),
  partner('updateWebhookEndpoint', 'PATCH', `${W}/:endpointId`, 200, json),
  partner('deleteWebhookEndpoint', 'DELETE', `${W}/:endpointId`, 200),
  partner('rotateWebhookEndpointSecret', 'POST', `${W}/:endpointId/rotate-secret`, 200),
  partner('resendWebhookEvent', 'POST', `${W}/:endpointId/resend/:eventId`, 200, { extraLimit: 'webhook_retry' }),
  partner('recoverWebhookEvents', 'POST', `${W}/:endpointId/recover`, 200, { jsonBody: true, extraLimit: 'webhook_retry' }),

  // Test helpers (decision 130)
  partner('simulateOnboardingApproval', 'POST', `${T}/onboarding-sessions/:sessionId/approve`, 200, { ...helper, livemode: 'members' }),
  partner('simulateOnboardingRejection', 'POST', `${T}/onboarding-sessions/:sessionId/reject`, 200, { ...helper, jsonBody: true }),
  partner('simulateApplicationApproval', 'POST', `${T}/applications/:applicationId/approve`, 200, { ...helper, livemode: 'members' }),
  partner('simulateApplicationDecline', 'POST', `${T}/applications/:applicationId/decline`, 200, { ...helper, jsonBody: true }),
  partner('createTestClock', 'POST', `${T}/clocks`, 201, { ...helper, jsonBody: true }),
  partner('getTestClock', 'GET', `${T}/clocks/:clockId`, 200, helper),
  partner('advanceTestClock', 'POST', `${T}/clocks/:clockId/advance`, 200, { ...helper, jsonBody: true }),
  partner('simulatePaymentReturn', 'POST', `${T}/parties/:partyId/loans/:loanId/payments/:paymentId/return`, 200, { ...helper, jsonBody: true }),
  partner('wipeTestData', 'DELETE', `${T}/data`, 200, { ...helper, scope: 'keys:manage' }),

  // Internal review and decisioning (CONTRACT.md, pinned)
  internal('listOnboardingSessionsForReview', 'GET', '/internal/onboarding-sessions', 200, 'read'),
  internal('approveOnboardingSession', 'POST', '/internal/onboarding-sessions/:sessionId/approve', 200, 'review_onboarding', { livemode: 'members' }),
  internal('rejectOnboardingSession', 'POST', '/internal/onboarding-sessions/:sessionId/reject', 200, 'review_onboarding', { jsonBody: true }),
  internal('getOnboardingSessionForReview', 'GET', '/internal/onboarding-sessions/:sessionId', 200, 'read'),
  internal('listOnboardingDocumentsForReview', 'GET', '/internal/onboarding-sessions/:sessionId/documents', 200, 'read'),
  internal('listLoanApplicationsForReview', 'GET', '/internal/applications', 200, 'read', behind),
  internal('getLoanApplicationForReview', 'GET', '/internal/applications/:applicationId', 200, 'read'),
  internal('previewLoanApplicationScheduleForReview', 'GET', '/internal/applications/:applicationId/schedule-preview', 200, 'read'),
  internal('approveLoanApplication', 'POST', '/internal/applications/:applicationId/approve', 200, 'decide_credit', { livemode: 'members' }),
  internal('declineLoanApplication', 'POST', '/internal/applications/:applicationId/decline', 200, 'decide_credit', { jsonBody: true }),
  internal('accrueInterest', 'POST', '/internal/jobs/accrue-interest', 200, 'operate_rails', { fieldsInQuery: true }),
  internal('originateAchFile', 'POST', '/internal/jobs/ach-origination', 200, 'operate_rails'),
  // A bank's file reverses payments: automation's alone (decision 152), no person's role holds it.
  internal('ingestAchInboundFile', 'POST', '/internal/ach/inbound-files', 200, 'ingest_bank_files', { fileBody: true }),
  internal('getAchInboundFile', 'GET', '/internal/ach/inbound-files/:inboundFileId', 200, 'read'),
  internal('getAchReturnRates', 'GET', '/internal/ach/return-rates', 200, 'read'),
  internal('listLoans', 'GET', '/internal/loans', 200, 'read', behind),
  internal('getLoan', 'GET', '/internal/loans/:loanId', 200, 'read'),
  internal('listLoanSchedule', 'GET', '/internal/loans/:loanId/schedule', 200, 'read', behind),
  internal('listLoanTransactions', 'GET', '/internal/loans/:loanId/transactions', 200, 'read', behind),
  internal('listLoanPayments', 'GET', '/internal/loans/:loanId/payments', 200, 'read', behind),
  internal('listLoanBalances', 'GET', '/internal/loans/:loanId/balances', 200, 'read', behind),
  internal('getDelinquencySummary', 'GET', '/internal/portfolio/delinquency', 200, 'read', behind),
  // Maker-checker (decision 152): a named operator asks, another approves; a preview locks the loan as the action would, so it is theirs too.
  internal('askOperatorRequest', 'POST', '/internal/operator-requests', 201, 'service_loans', { jsonBody: true }),
  internal('listOperatorRequests', 'GET', '/internal/operator-requests', 200, 'read'),
  internal('previewOperatorAction', 'POST', '/internal/operator-requests/preview', 200, 'service_loans', { jsonBody: true }),
  internal('getOperatorRequest', 'GET', '/internal/operator-requests/:operatorRequestId', 200, 'read'),
  internal('previewOperatorRequest', 'GET', '/internal/operator-requests/:operatorRequestId/preview', 200, 'service_loans'),
  internal('approveOperatorRequest', 'POST', '/internal/operator-requests/:operatorRequestId/approve', 200, 'service_loans', { livemode: 'members', jsonBody: true }),
  internal('rejectOperatorRequest', 'POST', '/internal/operator-requests/:operatorRequestId/reject', 200, 'service_loans', { jsonBody: true }),
  // Partners' webhook deliveries (docs/console.md "Webhook deliveries"): what reached them, and a retry for what did not.
  internal('listWebhookDeliveries', 'GET', '/internal/webhook-deliveries', 200, 'read', behind),
  internal('getWebhookDelivery', 'GET', '/internal/webhook-endpoints/:endpointId/deliveries/:eventId', 200, 'read'),
  internal('retryEndpointWebhookDelivery', 'POST', '/internal/webhook-endpoints/:endpointId/deliveries/:eventId/retry', 200, 'operate_rails'),
  internal('addLoanCollateral', 'POST', '/internal/loans/:loanId/collateral', 201, 'decide_credit', { jsonBody: true }),
  internal('attachLoanDocument', 'POST', '/internal/loans/:loanId/documents', 201, 'manage_loan_documents', { jsonBody: true }),
  internal('reverseLoanPayment', 'POST', '/internal/payments/:paymentId/reverse', 200, 'service_loans'),
  internal('chargeOffLoan', 'POST', '/internal/loans/:loanId/charge-off', 200, 'service_loans'),
  internal('listLoanProducts', 'GET', '/internal/loan-products', 200, 'read'),
  internal('createLoanProduct', 'POST', '/internal/loan-products', 201, 'decide_credit', { jsonBody: true }),
  internal('updateLoanProduct', 'PATCH', '/internal/loan-products/:productId', 200, 'decide_credit', { jsonBody: true }),
  internal('listAuditEvents', 'GET', '/internal/audit-events', 200, 'read', behind),
  internal('getOperatorOpenApiDocument', 'GET', '/internal/openapi.json', 200, 'read', worldless),

  // The console's sessions (decision 149)
  other('signInOperator', 'POST', '/internal/operator-sessions', 201, 'none', { jsonBody: true, livemode: 'none' }),
  other('getOperatorSession', 'GET', '/internal/operator-sessions/current', 200, 'session', worldless),
  other('signOutOperator', 'DELETE', '/internal/operator-sessions/current', 200, 'session', worldless),
] as const

/** The operationId of an operation of the table: a handler or a lookup named otherwise does not compile. */
export type OperationId = (typeof OPERATIONS)[number]['operationId']

/**
 * A write by a known writer (a partner key, the internal token, a console session): its answer
 * says when it committed, and its writer's reads follow it (read-your-writes, decision 156).
 * Minting and signing in are no one's writes yet.
 */
export const isNotedWrite = (op: Operation): boolean => op.method !== 'GET' && (op.auth === 'partner' || op.auth === 'internal' || op.auth === 'session')

export const OPERATION_IDS: ReadonlySet<string> = new Set(OPERATIONS.map((op) => op.operationId))

export const operation = (operationId: OperationId): Operation<OperationId> => {
  const op = OPERATIONS.find((o) => o.operationId === operationId)
  if (op === undefined) throw new Error(`unknown operation ${operationId}`)
  return op
}
