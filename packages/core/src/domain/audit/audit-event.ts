import type { ApiClient, ApiKey, Caller } from '../keys/api-key.js'
import type { CollateralItem } from '../loans/collateral.js'
import type { LoanApplication } from '../loans/loan-application.js'
import type { LoanDocument } from '../loans/loan-document.js'
import type { LoanProduct } from '../loans/loan-product.js'
import { loanProductView } from '../../views/loan-applications.js'
import { wipedTestDataView } from '../../views/test-data.js'
import type { WipedTestData } from '../../ports/test-data.js'
import type { Loan } from '../loans/loan.js'
import type { OnboardingSession } from '../onboarding/onboarding-session.js'
import type { Payment } from '../loans/payment.js'
import type { ClientId, OperatorId, PartyId } from '../foundations/ids.js'
import { instantText } from '../foundations/instant.js'
import type { Operator, OperatorSession } from '../operators/operator.js'
import type { OperatorRequest } from '../operators/operator-request.js'
import type { DeliveryRecord } from '../webhooks/event-endpoint.js'

/**
 * The audit log (decision 45): one append-only event per audited action, in the change's own
 * transaction. `details` never hold a secret: each action's constructor copies named fields only.
 */

export const AUDIT_ACTIONS = [
  'api_key.minted',
  'api_key.revoked',
  'onboarding_session.approved',
  'onboarding_session.rejected',
  'loan_application.approved',
  'loan_application.declined',
  'loan_product.created',
  'loan_product.updated',
  'loan_collateral.added',
  'loan_document.attached',
  'payment.reversed',
  'payment.returned',
  'payment_method.corrected',
  'loan.charged_off',
  'interest_accrual.completed',
  'test_data.wiped',
  'operator.added',
  'operator.disabled',
  'operator.signed_in',
  'operator.signed_out',
  'operator.sessions_revoked',
  'operator.password_reset',
  'operator.role_changed',
  'operator.enabled',
  'operator_request.created',
  'operator_request.rejected',
  'webhook_delivery.retried',
] as const
/** One of `AUDIT_ACTIONS`: key mints and revocations, and every internal decision. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** The kinds of record an event is about. */
export const AUDIT_SUBJECT_TYPES = [
  'api_key',
  'onboarding_session',
  'loan_application',
  'loan_product',
  'collateral_item',
  'loan_document',
  'payment',
  'payment_method',
  'loan',
  'interest_accrual_run',
  'api_client',
  'operator',
  'operator_request',
  'webhook_endpoint',
] as const
/** One of `AUDIT_SUBJECT_TYPES`. */
export type AuditSubjectType = (typeof AUDIT_SUBJECT_TYPES)[number]

/**
 * `operator` with an `id`: a named operator signed in to the console (decision 149); without one:
 * the mint secret, the internal token or the CLI. `api_key`: a partner key. `system`: work the
 * service starts itself.
 */
export type AuditActor =
  | { readonly type: 'operator' }
  | { readonly type: 'operator'; readonly id: OperatorId }
  | { readonly type: 'api_key'; readonly id: string }
  | { readonly type: 'system' }

/** A JSON value in an event's details. */
export type AuditJson = string | number | boolean | null | readonly AuditJson[] | { readonly [field: string]: AuditJson }
/** What an event records of its action, snake_case; never a secret. */
export type AuditDetails = { readonly [field: string]: AuditJson }

/** One append-only entry of the audit log. */
export type AuditEvent = {
  readonly id: string
  readonly occurredAt: Date
  readonly actor: AuditActor
  readonly action: AuditAction
  readonly subject: { readonly type: AuditSubjectType; readonly id: string }
  readonly apiClientId: ClientId | null
  readonly partyId: PartyId | null
  /** The `X-Request-Id` of the request that made the change; null outside HTTP. */
  readonly requestId: string | null
  readonly details: AuditDetails
}

/** What a use case needs to know about the request it serves, to audit it. */
export type AuditContext = { readonly actor: AuditActor; readonly requestId: string | null }

/** The operator as actor: whoever holds the internal token or runs the CLI. */
export const OPERATOR: AuditActor = { type: 'operator' }
/** A named operator as actor. */
export const namedOperatorActor = (operator: Pick<Operator, 'id'>): AuditActor => ({ type: 'operator', id: operator.id })
/** The id an actor names: its key's or its named operator's; none for the token, the CLI and the system. */
export const actorId = (actor: AuditActor): string | null => ('id' in actor ? actor.id : null)
export const SYSTEM: AuditActor = { type: 'system' }

/** The event of a write that is not an audited action; writes require an event, so none is left out by omission. */
export const NOT_AUDITED = null

/** The context of a use case called outside HTTP by an operator (the CLI, an embedding service). */
export const OPERATOR_CONTEXT: AuditContext = { actor: OPERATOR, requestId: null }
/** The context of work the service starts by itself. */
export const SYSTEM_CONTEXT: AuditContext = { actor: SYSTEM, requestId: null }

/** The partner key behind a request, as actor. */
export const apiKeyActor = (caller: Pick<Caller, 'keyId'>): AuditActor => ({ type: 'api_key', id: caller.keyId })

/** Whose records an event concerns: the API client and the party (null when none). */
export type Concerning = { readonly apiClientId: ClientId | null; readonly partyId: PartyId | null }

const event = (
  id: string,
  context: AuditContext,
  at: Date,
  action: AuditAction,
  subject: AuditEvent['subject'],
  concerning: Concerning,
  details: AuditDetails,
): AuditEvent => ({ id, occurredAt: at, actor: context.actor, action, subject, ...concerning, requestId: context.requestId, details })

// ---- one constructor per action: the only fields each event carries ------------------------

/** A key was minted; `client` is the client it was minted under (new or existing). Never the key or its hash. */
export const keyMintedEvent = (id: string, context: AuditContext, client: ApiClient, key: ApiKey): AuditEvent =>
  event(id, context, key.createdAt, 'api_key.minted', { type: 'api_key', id: key.id }, { apiClientId: client.id, partyId: key.partyId }, {
    key_prefix: key.prefix,
    environment: key.environment,
    scopes: [...key.scopes],
    client_name: client.name,
  })

export const keyRevokedEvent = (id: string, context: AuditContext, key: ApiKey, at: Date): AuditEvent =>
  event(id, context, at, 'api_key.revoked', { type: 'api_key', id: key.id }, { apiClientId: key.clientId, partyId: key.partyId }, {
    key_prefix: key.prefix,
  })

/** A session was approved (as the session will be stored) and its party created. */
export const sessionApprovedEvent = (id: string, context: AuditContext, session: OnboardingSession, webhookEventId: string, at: Date): AuditEvent =>
  event(id, context, at, 'onboarding_session.approved', { type: 'onboarding_session', id: session.id }, { apiClientId: session.clientId, partyId: session.partyId }, {
    reviewed_by: session.review?.reviewedBy ?? null,
    webhook_event_id: webhookEventId,
  })

/** A session was rejected (as the session will be stored). */
export const sessionRejectedEvent = (id: string, context: AuditContext, session: OnboardingSession, at: Date): AuditEvent =>
  event(id, context, at, 'onboarding_session.rejected', { type: 'onboarding_session', id: session.id }, { apiClientId: session.clientId, partyId: null }, {
    reviewed_by: session.review?.reviewedBy ?? null,
    reason: session.review?.reason ?? null,
  })

export const applicationApprovedEvent = (id: string, context: AuditContext, application: LoanApplication, loan: Loan, at: Date): AuditEvent =>
  event(
    id,
    context,
    at,
    'loan_application.approved',
    { type: 'loan_application', id: application.id },
    { apiClientId: application.clientId, partyId: application.partyId },
    {
      decided_by: application.decision?.decidedBy ?? null,
      loan_id: loan.id,
      amount: application.amount,
      currency: application.currency,
      term_months: application.termMonths,
      interest_rate_bps: application.interestRateBps,
      origination_fee_bps: application.originationFeeBps,
    },
  )

export const applicationDeclinedEvent = (id: string, context: AuditContext, application: LoanApplication, at: Date): AuditEvent =>
  event(
    id,
    context,
    at,
    'loan_application.declined',
    { type: 'loan_application', id: application.id },
    { apiClientId: application.clientId, partyId: application.partyId },
    { decided_by: application.decision?.decidedBy ?? null, reason: application.decision?.reason ?? null },
  )

/** The product's terms, without its id and timestamps (the event has its own). */
const productTerms = (p: LoanProduct): AuditDetails => {
  const { product_id: _id, created_at: _created, updated_at: _updated, ...terms } = loanProductView(p)
  return terms
}

/** A product was created: its terms. */
export const productCreatedEvent = (id: string, context: AuditContext, product: LoanProduct): AuditEvent =>
  event(id, context, product.createdAt, 'loan_product.created', { type: 'loan_product', id: product.id }, { apiClientId: null, partyId: null }, productTerms(product))

/** A product was changed: each field that changed, with its value before and after. */
export const productUpdatedEvent = (id: string, context: AuditContext, before: LoanProduct, after: LoanProduct): AuditEvent => {
  const old = productTerms(before)
  const now = productTerms(after)
  const changes = Object.fromEntries(
    Object.keys(now)
      .filter((field) => JSON.stringify(old[field]) !== JSON.stringify(now[field]))
      .map((field) => [field, { from: old[field] ?? null, to: now[field] ?? null }]),
  )
  return event(id, context, after.updatedAt, 'loan_product.updated', { type: 'loan_product', id: after.id }, { apiClientId: null, partyId: null }, { changes })
}

export const collateralAddedEvent = (id: string, context: AuditContext, item: CollateralItem, loan: Loan): AuditEvent =>
  event(id, context, item.createdAt, 'loan_collateral.added', { type: 'collateral_item', id: item.id }, { apiClientId: null, partyId: loan.partyId }, {
    loan_id: loan.id,
    type: item.type,
    valuation: item.valuation,
    currency: item.currency,
    lien_position: item.lienPosition,
  })

/** The maker-checker request an action carried out (decision 152): its actor is the checker. */
export type CheckedRequest = Pick<OperatorRequest, 'id' | 'requestedBy'>

/** The request and its maker, in the details of the action a checker approved. */
const checkedDetails = (checked: CheckedRequest | null): AuditDetails => (checked === null ? {} : { operator_request_id: checked.id, requested_by: checked.requestedBy })

/** A document was attached to a loan. Its storage reference is left out: it may be a signed URL. */
export const documentAttachedEvent = (id: string, context: AuditContext, document: LoanDocument, loan: Loan): AuditEvent =>
  event(id, context, document.createdAt, 'loan_document.attached', { type: 'loan_document', id: document.id }, { apiClientId: null, partyId: loan.partyId }, {
    loan_id: loan.id,
    type: document.type,
    period_start: document.periodStart,
    period_end: document.periodEnd,
  })

export const paymentReversedEvent = (
  id: string,
  context: AuditContext,
  payment: Payment,
  loan: Loan,
  reversalTransactionId: string,
  reason: string | null,
  at: Date,
  checked: CheckedRequest | null = null,
): AuditEvent =>
  event(id, context, at, 'payment.reversed', { type: 'payment', id: payment.id }, { apiClientId: payment.clientId, partyId: loan.partyId }, {
    loan_id: loan.id,
    amount: payment.amount,
    currency: payment.currency,
    reversal_transaction_id: reversalTransactionId,
    reason,
    ...checkedDetails(checked),
  })

/**
 * A bank debit returned by the borrower's bank, applied from an inbound file: its code, the file
 * (null for a test helper's return, which came in none), and the ledger entry that reversed it.
 */
export const paymentReturnedEvent = (
  id: string,
  context: AuditContext,
  payment: Payment,
  loan: Loan,
  reversalTransactionId: string,
  inboundFileId: string | null,
  at: Date,
): AuditEvent =>
  event(id, context, at, 'payment.returned', { type: 'payment', id: payment.id }, { apiClientId: payment.clientId, partyId: loan.partyId }, {
    loan_id: loan.id,
    amount: payment.amount,
    currency: payment.currency,
    return_code: payment.returnCode ?? null,
    inbound_file_id: inboundFileId,
    reversal_transaction_id: reversalTransactionId,
  })

/** What a notice of change corrected of a bank account, before and after: never more of its number than the last four digits. */
export type CorrectedAccount = { readonly last4: string; readonly routingNumber: string | null; readonly accountType: 'checking' | 'savings' | null }

/** A bank account corrected by its bank's notice of change (`changeCode`, from inbound file `inboundFileId`). */
export const paymentMethodCorrectedEvent = (
  id: string,
  context: AuditContext,
  method: { readonly id: string; readonly loanId: string },
  concerning: Concerning,
  change: { readonly changeCode: string; readonly inboundFileId: string; readonly originalTrace: string; readonly before: CorrectedAccount; readonly after: CorrectedAccount },
  at: Date,
): AuditEvent => {
  const account = (a: CorrectedAccount) => ({ last4: a.last4, routing_number: a.routingNumber, account_type: a.accountType })
  return event(id, context, at, 'payment_method.corrected', { type: 'payment_method', id: method.id }, concerning, {
    loan_id: method.loanId,
    change_code: change.changeCode,
    inbound_file_id: change.inboundFileId,
    original_trace: change.originalTrace,
    before: account(change.before),
    after: account(change.after),
  })
}

/**
 * An operator sent an event to a partner's endpoint again (docs/console.md "Webhook deliveries"):
 * the subject is the endpoint, the event in the details, with the delivery as it was.
 */
export const deliveryRetriedEvent = (
  id: string,
  context: AuditContext,
  delivery: Pick<DeliveryRecord, 'endpointId' | 'eventId' | 'eventType' | 'status' | 'attempts' | 'clientId' | 'partyId'>,
  at: Date,
): AuditEvent =>
  event(id, context, at, 'webhook_delivery.retried', { type: 'webhook_endpoint', id: delivery.endpointId }, { apiClientId: delivery.clientId, partyId: delivery.partyId }, {
    webhook_endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    type: delivery.eventType,
    status_before: delivery.status,
    attempts_before: delivery.attempts,
  })

/** A loan written off: what it owed when it was charged off, and the ledger entry that wrote it off. */
export const loanChargedOffEvent = (
  id: string,
  context: AuditContext,
  loan: Loan,
  owed: { readonly principal: number; readonly interest: number; readonly fees: number },
  chargeOffTransactionId: string,
  reason: string | null,
  at: Date,
  checked: CheckedRequest | null = null,
): AuditEvent =>
  event(id, context, at, 'loan.charged_off', { type: 'loan', id: loan.id }, { apiClientId: null, partyId: loan.partyId }, {
    charged_off_on: loan.chargedOffOn,
    currency: loan.currency,
    principal: owed.principal,
    interest: owed.interest,
    fees: owed.fees,
    charge_off_transaction_id: chargeOffTransactionId,
    reason,
    ...checkedDetails(checked),
  })

/** One run of the interest accrual job (the ledger holds what it posted on each loan): of every loan, or of one party's on its test clock (`partyId`). */
export const accrualCompletedEvent = (
  id: string,
  context: AuditContext,
  run: { readonly asOf: string; readonly loansExamined: number; readonly loansChanged: number; readonly accruals: number; readonly loansFailed: number },
  at: Date,
  partyId: PartyId | null = null,
): AuditEvent =>
  event(id, context, at, 'interest_accrual.completed', { type: 'interest_accrual_run', id }, { apiClientId: null, partyId }, {
    as_of: run.asOf,
    loans_examined: run.loansExamined,
    loans_changed: run.loansChanged,
    accruals: run.accruals,
    loans_failed: run.loansFailed,
  })

/** A partner wiped its API client's test world (decision 132): how many of each record went. */
export const testDataWipedEvent = (id: string, context: AuditContext, clientId: ClientId, wiped: WipedTestData, at: Date): AuditEvent =>
  event(id, context, at, 'test_data.wiped', { type: 'api_client', id: clientId }, { apiClientId: clientId, partyId: null }, wipedTestDataView(wiped))


/** An operator was added (`lendgate operators add`). Never the password or its hash. */
export const operatorAddedEvent = (id: string, context: AuditContext, operator: Operator): AuditEvent =>
  event(id, context, operator.createdAt, 'operator.added', { type: 'operator', id: operator.id }, { apiClientId: null, partyId: null }, {
    email: operator.email,
    role: operator.role,
  })

/** An operator was disabled; `sessions` is how many live sessions that ended. */
export const operatorDisabledEvent = (id: string, context: AuditContext, operator: Operator, sessions: number, at: Date): AuditEvent =>
  event(id, context, at, 'operator.disabled', { type: 'operator', id: operator.id }, { apiClientId: null, partyId: null }, {
    email: operator.email,
    sessions_revoked: sessions,
  })

/** An operator signed in to the console; the actor is the operator. Never the session's token. */
export const operatorSignedInEvent = (id: string, requestId: string | null, operator: Operator, session: OperatorSession): AuditEvent =>
  event(id, { actor: namedOperatorActor(operator), requestId }, session.createdAt, 'operator.signed_in', { type: 'operator', id: operator.id }, { apiClientId: null, partyId: null }, {
    session_id: session.id,
    expires_at: instantText(session.expiresAt),
  })

/** An operator signed out of the console; the actor is the operator. */
export const operatorSignedOutEvent = (id: string, requestId: string | null, operator: Operator, session: OperatorSession, at: Date): AuditEvent =>
  event(id, { actor: namedOperatorActor(operator), requestId }, at, 'operator.signed_out', { type: 'operator', id: operator.id }, { apiClientId: null, partyId: null }, {
    session_id: session.id,
  })

/** An operator was changed (`lendgate operators reset-password|set-role|enable`): what changed, never a password or its hash. */
export const operatorChangedEvent = (id: string, context: AuditContext, before: Operator, after: Operator, sessions: number, at: Date): AuditEvent => {
  const concerning = { apiClientId: null, partyId: null }
  const subject = { type: 'operator', id: after.id } as const
  if (before.role !== after.role) return event(id, context, at, 'operator.role_changed', subject, concerning, { email: after.email, from: before.role, to: after.role })
  if (before.disabledAt !== null && after.disabledAt === null) return event(id, context, at, 'operator.enabled', subject, concerning, { email: after.email })
  return event(id, context, at, 'operator.password_reset', subject, concerning, { email: after.email, sessions_revoked: sessions })
}

/** Every live session of an operator was revoked (`lendgate operators revoke-sessions`). */
export const operatorSessionsRevokedEvent = (id: string, context: AuditContext, operator: Operator, sessions: number, at: Date): AuditEvent =>
  event(id, context, at, 'operator.sessions_revoked', { type: 'operator', id: operator.id }, { apiClientId: null, partyId: null }, {
    email: operator.email,
    sessions_revoked: sessions,
  })

/** An operator asked for a second operator's approval (decision 152): what, of what, and why. */
export const operatorRequestCreatedEvent = (id: string, context: AuditContext, request: OperatorRequest, loan: Pick<Loan, 'partyId'>): AuditEvent =>
  event(id, context, request.createdAt, 'operator_request.created', { type: 'operator_request', id: request.id }, { apiClientId: null, partyId: loan.partyId }, {
    kind: request.kind,
    loan_id: request.loanId,
    payment_id: request.paymentId,
    reason: request.reason,
  })

/** A request was rejected (by its maker, withdrawing it, or by a checker): nothing was done. */
export const operatorRequestRejectedEvent = (id: string, context: AuditContext, request: OperatorRequest, loan: Pick<Loan, 'partyId'>, at: Date): AuditEvent =>
  event(id, context, at, 'operator_request.rejected', { type: 'operator_request', id: request.id }, { apiClientId: null, partyId: loan.partyId }, {
    kind: request.kind,
    loan_id: request.loanId,
    payment_id: request.paymentId,
    requested_by: request.requestedBy,
    reason: request.rejectionReason,
  })
