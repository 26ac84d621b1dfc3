import type { KnownScope } from '@lendgate/core'

/**
 * Every route of the service, in one table: its operationId (spec §4), method, path (Koa
 * syntax), success status, how it authenticates and which scope it needs. The router, the
 * placeholder switch and the tests are all driven by this table, so a route cannot be added
 * in one place and forgotten in another.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** `partner`: a partner API key; `mint`: the mint secret; `internal`: the internal token; `none`. */
export type AuthKind = 'partner' | 'mint' | 'internal' | 'none'

export type Operation = {
  readonly operationId: string
  readonly method: HttpMethod
  readonly path: string
  readonly successStatus: number
  readonly auth: AuthKind
  /** Scope a partner key needs (partner routes only). */
  readonly scope?: KnownScope
  /** The request must carry a JSON body (spec §4: onboarding and party POST/PUT/PATCH; key minting). */
  readonly jsonBody: boolean
}

const partner = (
  operationId: string,
  method: HttpMethod,
  path: string,
  successStatus: number,
  options: { readonly scope?: KnownScope; readonly jsonBody?: boolean } = {},
): Operation => ({
  operationId,
  method,
  path,
  successStatus,
  auth: 'partner',
  scope: options.scope ?? 'partner:api',
  jsonBody: options.jsonBody ?? false,
})

const json = { jsonBody: true } as const
const S = '/public/onboarding-sessions/:sessionId'
const P = '/public/parties/:partyId'
const L = `${P}/loans/:loanId`

export const OPERATIONS: readonly Operation[] = [
  { operationId: 'health', method: 'GET', path: '/health', successStatus: 200, auth: 'none', jsonBody: false },
  { operationId: 'healthReady', method: 'GET', path: '/health/ready', successStatus: 200, auth: 'none', jsonBody: false },
  { operationId: 'getOpenApiDocument', method: 'GET', path: '/public/openapi.json', successStatus: 200, auth: 'none', jsonBody: false },

  // §4.1 key management (CONTRACT.md "Keys")
  { operationId: 'mintApiKey', method: 'POST', path: '/public/partner/api-keys', successStatus: 201, auth: 'mint', jsonBody: true },
  partner('listApiKeys', 'GET', '/public/partner/api-keys', 200, { scope: 'keys:manage' }),
  partner('revokeApiKey', 'DELETE', '/public/partner/api-keys/:apiKeyId', 200, { scope: 'keys:manage' }),

  // §4.2 onboarding sessions
  partner('createOnboardingSession', 'POST', '/public/onboarding-sessions', 201, json),
  partner('getOnboardingSession', 'GET', S, 200),
  partner('listOnboardingAddresses', 'GET', `${S}/addresses`, 200),
  partner('createOnboardingAddress', 'POST', `${S}/addresses`, 201, json),
  partner('updateOnboardingAddress', 'PATCH', `${S}/addresses/:addressId`, 200, json),
  partner('upsertApplicantProfile', 'PUT', `${S}/applicant-profile`, 200, json),
  partner('submitOnboardingEmail', 'POST', `${S}/contact/email`, 201, json),
  partner('retryOnboardingEmailVerification', 'POST', `${S}/contact/email/retry`, 201, json),
  partner('verifyOnboardingEmail', 'POST', `${S}/contact/email/verify`, 200, json),
  partner('submitOnboardingPhone', 'POST', `${S}/contact/phone`, 201, json),
  partner('retryOnboardingPhoneVerification', 'POST', `${S}/contact/phone/retry`, 201, json),
  partner('verifyOnboardingPhone', 'POST', `${S}/contact/phone/verify`, 200, json),
  partner('listPendingOnboardingRequirements', 'GET', `${S}/requirements`, 200),
  partner('submitOnboardingForReview', 'POST', `${S}/submit`, 201, json),
  partner('getPartyBySessionId', 'GET', `${S}/party`, 200),
  partner('registerOnboardingSessionWebhook', 'PUT', `${S}/webhook`, 200, json),
  partner('listOnboardingSessionWebhookDeliveries', 'GET', `${S}/webhook/deliveries`, 200),
  partner('retryOnboardingSessionWebhookDelivery', 'POST', `${S}/webhook/deliveries/:eventId/retry`, 200),
  partner('listDocumentsForOnboardingSession', 'GET', `${S}/documents`, 200),
  partner('createOnboardingDocumentMetadata', 'POST', `${S}/documents`, 201, json),

  // §4.3 parties
  partner('getParty', 'GET', P, 200),
  partner('listPartyAddresses', 'GET', `${P}/addresses`, 200),
  partner('createPartyAddress', 'POST', `${P}/addresses`, 201, json),
  partner('updatePartyAddress', 'PATCH', `${P}/addresses/:addressId`, 200, json),
  partner('listPartyApplications', 'GET', `${P}/applications`, 200),
  partner('listAvailableLoanProductsForParty', 'GET', `${P}/available-loan-products`, 200),

  // §4.4 loan applications
  partner('createLoanApplication', 'POST', '/public/applications', 201, json),
  partner('getLoanApplication', 'GET', '/public/applications/:applicationId', 200),
  partner('updateLoanApplication', 'PATCH', '/public/applications/:applicationId', 200, json),
  partner('submitLoanApplication', 'POST', '/public/applications/:applicationId/submit', 200),
  partner('withdrawLoanApplication', 'POST', '/public/applications/:applicationId/withdraw', 200),
  partner('previewLoanApplicationSchedule', 'GET', '/public/applications/:applicationId/schedule-preview', 200),

  // §4.5 servicing
  partner('listLoansForParty', 'GET', `${P}/loans`, 200),
  partner('getLoanForParty', 'GET', L, 200),
  partner('listLoanBalancesForParty', 'GET', `${L}/balances`, 200),
  partner('getLatestLoanBalanceForParty', 'GET', `${L}/balances/latest`, 200),
  partner('listCollateralForPartyLoan', 'GET', `${L}/collateral`, 200),
  partner('listPaymentMethodsForPartyLoan', 'GET', `${L}/payment-methods`, 200),
  partner('createPaymentMethodForPartyLoan', 'POST', `${L}/payment-methods`, 201, json),
  partner('updatePaymentMethodForPartyLoan', 'PATCH', `${L}/payment-methods/:paymentMethodId`, 200, json),
  partner('createPaymentIntentForPartyLoan', 'POST', `${L}/payments`, 201, json),
  partner('listLoanScheduleForParty', 'GET', `${L}/schedule`, 200),
  partner('listTransactionsForPartyLoan', 'GET', `${L}/transactions`, 200),
  partner('listDocumentsForPartyLoan', 'GET', `${L}/documents`, 200),

  // Internal review and decisioning (CONTRACT.md, pinned)
  { operationId: 'listOnboardingSessionsForReview', method: 'GET', path: '/internal/onboarding-sessions', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'approveOnboardingSession', method: 'POST', path: '/internal/onboarding-sessions/:sessionId/approve', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'rejectOnboardingSession', method: 'POST', path: '/internal/onboarding-sessions/:sessionId/reject', successStatus: 200, auth: 'internal', jsonBody: true },
  { operationId: 'listLoanApplicationsForReview', method: 'GET', path: '/internal/applications', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'approveLoanApplication', method: 'POST', path: '/internal/applications/:applicationId/approve', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'declineLoanApplication', method: 'POST', path: '/internal/applications/:applicationId/decline', successStatus: 200, auth: 'internal', jsonBody: true },
  { operationId: 'accrueInterest', method: 'POST', path: '/internal/jobs/accrue-interest', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'addLoanCollateral', method: 'POST', path: '/internal/loans/:loanId/collateral', successStatus: 201, auth: 'internal', jsonBody: true },
  { operationId: 'attachLoanDocument', method: 'POST', path: '/internal/loans/:loanId/documents', successStatus: 201, auth: 'internal', jsonBody: true },
  { operationId: 'reverseLoanPayment', method: 'POST', path: '/internal/payments/:paymentId/reverse', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'listLoanProducts', method: 'GET', path: '/internal/loan-products', successStatus: 200, auth: 'internal', jsonBody: false },
  { operationId: 'createLoanProduct', method: 'POST', path: '/internal/loan-products', successStatus: 201, auth: 'internal', jsonBody: true },
  { operationId: 'updateLoanProduct', method: 'PATCH', path: '/internal/loan-products/:productId', successStatus: 200, auth: 'internal', jsonBody: true },
  { operationId: 'listAuditEvents', method: 'GET', path: '/internal/audit-events', successStatus: 200, auth: 'internal', jsonBody: false },
]

export const OPERATION_IDS: ReadonlySet<string> = new Set(OPERATIONS.map((op) => op.operationId))

export const operation = (operationId: string): Operation => {
  const op = OPERATIONS.find((o) => o.operationId === operationId)
  if (op === undefined) throw new Error(`unknown operation ${operationId}`)
  return op
}
