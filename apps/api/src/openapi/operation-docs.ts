import {
  SignInInput,
  AccrualQuery,
  MAX_ENDPOINTS_PER_CLIENT,
  AddressInput,
  AddressPatch,
  ApplicantProfileInput,
  ApplicationStatusFilter,
  ApproveApplicationInput,
  ApproveSessionInput,
  AuditEventFilters,
  AutopayInput,
  ChargeOffInput,
  CodeInput,
  CollateralInput,
  CreateEndpointInput,
  CreateOnboardingSessionInput,
  DeclineApplicationInput,
  DocumentInput,
  EmailInput,
  EmptyInput,
  EventFilters,
  LoanApplicationInput,
  LoanApplicationPatch,
  LoanDocumentInput,
  LoanFilters,
  OperatorLoanFilters,
  OperatorRequestFilters,
  DeliveryFilters,
  OperatorRequestInput,
  RejectRequestInput,
  ApproveRequestInput,
  LoanProductInput,
  LoanProductPatch,
  MintApiKeyInput,
  PaymentInput,
  PaymentMethodInput,
  PaymentMethodPatch,
  PayoffQuery,
  PhoneInput,
  ProductActiveFilter,
  RecoverInput,
  RegisterWebhookInput,
  RejectSessionInput,
  ReturnPaymentInput,
  ReversePaymentInput,
  RotateSecretInput,
  SchedulePreviewQuery,
  CreateTestClockInput,
  AdvanceTestClockInput,
  SessionStatusFilter,
  TransactionFilters,
  UpdateEndpointInput,
} from '@lendgate/core'
import type * as t from 'io-ts'
import type { OperationId } from '../routes/operations.js'
import { documented, sample, type DocumentedProblem } from './errors.js'

/**
 * What the OpenAPI documents say of each operation beyond the route table (issue 39): its tag,
 * summary and description, the codecs of its body and query, and the problems particular to
 * it, each with why it happens. The problems every operation of its kind has (authentication,
 * rate limits, malformed input, outages) are added by document.ts.
 */

/** The codec of every request body, by the name of its component schema. */
export const REQUEST_BODIES = {
  MintApiKeyInput,
  CreateOnboardingSessionInput,
  AddressInput,
  AddressPatch,
  ApplicantProfileInput,
  EmailInput,
  PhoneInput,
  CodeInput,
  RegisterWebhookInput,
  EmptyInput,
  DocumentInput,
  LoanApplicationInput,
  LoanApplicationPatch,
  PaymentMethodInput,
  PaymentMethodPatch,
  AutopayInput,
  PaymentInput,
  ApproveSessionInput,
  RejectSessionInput,
  ApproveApplicationInput,
  DeclineApplicationInput,
  CollateralInput,
  LoanDocumentInput,
  ReversePaymentInput,
  ReturnPaymentInput,
  CreateTestClockInput,
  AdvanceTestClockInput,
  ChargeOffInput,
  LoanProductInput,
  LoanProductPatch,
  CreateWebhookEndpointInput: CreateEndpointInput,
  UpdateWebhookEndpointInput: UpdateEndpointInput,
  RotateWebhookSecretInput: RotateSecretInput,
  RecoverWebhookEventsInput: RecoverInput,
  SignInInput,
  OperatorRequestInput,
  RejectRequestInput,
  ApproveRequestInput,
} as const satisfies Readonly<Record<string, t.Mixed>>

export type RequestBodyName = keyof typeof REQUEST_BODIES

/** The tags of the partner document and of the operator document, with what each groups. */
export const PARTNER_TAGS = {
  keys: 'API keys of the partner\'s API client: mint (with the mint secret), list, revoke.',
  onboarding: 'Onboard a business borrower: a session, its contacts verified by code, profile, addresses and documents, then submission for review.',
  webhooks: 'The signed `party.ready` webhook of an onboarding session: where it goes, and every delivery attempt.',
  parties: 'An approved borrower (a party): its record, addresses, applications and the products it can apply for.',
  applications: 'Loan applications: draft, update, preview the schedule, submit for decisioning, withdraw.',
  servicing: 'Booked loans: schedule, balances, payoff, ledger, collateral, documents, payment methods, autopay and payments.',
  events:
    'The event log: what happened to the borrowers the partner onboarded and to their applications, loans and payments, each event with the resource as its route answers it; ' +
    'and the webhook endpoints that receive those events as they are written, signed, with type filters, secret rotation, resend and recovery.',
  testing:
    'Test helpers (test keys only): take the decisions an operator would and the returns a bank would, on your own test records, so a test-mode integration runs end to end without Lendgate. See the Testing guide.',
  reference: 'This document.',
} as const

export const OPERATOR_TAGS = {
  probes: 'Liveness and readiness probes for load balancers and orchestrators (no credential).',
  review: 'Review submitted onboarding sessions: approving one creates the party and sends `party.ready`.',
  decisioning: 'Credit decisions on submitted loan applications: approving one books the loan.',
  loans: "Every party's booked loans: the delinquency queue, a loan's schedule, ledger, payments and balances as its party reads them, and operator actions: collateral, documents, payment reversals, charge-offs.",
  products: 'The loan product catalogue.',
  jobs: 'Jobs the scheduler runs every day, which operators can also run on demand.',
  ach: 'Files the bank sends back on the ACH rails: returns of bank debits and notices of change.',
  audit: 'The append-only audit log of keys and operator decisions.',
  webhooks: "Partners' webhook deliveries: where each event went, every attempt, and sending one again.",
  console:
    "Named operators' console sessions (decision 149): sign in with an e-mail and password for a session cookie and its CSRF token, read the session, sign out. Operators are added and disabled with the CLI.",
  reference: 'This document.',
} as const

export type Tag = keyof typeof PARTNER_TAGS | keyof typeof OPERATOR_TAGS

export type OperationDoc = {
  readonly tag: Tag
  readonly summary: string
  /** What it does and its side effects (CommonMark); idempotency and errors are added from the route table. */
  readonly description: string
  /** The request body's component schema. */
  readonly body?: RequestBodyName
  /** Filters of the query (a strict object codec); list routes add `limit` and `cursor`. */
  readonly query?: t.Mixed
  readonly list?: boolean
  /** Problems particular to the operation, beyond those of its kind. */
  readonly errors?: readonly DocumentedProblem[]
}

const notFound = (resource: string, why: string): DocumentedProblem => documented({ _tag: 'NotFound', resource }, why)
const invalidState = (resource: string, status: string, action: string, why: string): DocumentedProblem =>
  documented({ _tag: 'InvalidState', resource, status, action }, why)
const invalidRequest = (detail: string, param: string, why: string): DocumentedProblem => documented({ _tag: 'InvalidRequest', detail, param }, why)

// ---- problems shared by groups of operations ----------------------------------------------------

const SESSION_NOT_FOUND = notFound('onboarding_session', 'No onboarding session with this id belongs to the API client.')
const sessionClosed = (action: string): DocumentedProblem =>
  invalidState('onboarding_session', 'SUBMITTED', action, 'The session is no longer `IN_PROGRESS` (submitted, approved or rejected): it cannot change.')
const SESSION_CLOSED = sessionClosed('edit')
const PARTY_NOT_FOUND = notFound('party', "The key's party is not a borrower's party (only an approved onboarding creates one).")
const LOAN_NOT_FOUND = notFound('loan', 'No loan with this id belongs to the party.')
const ANY_LOAN_NOT_FOUND = notFound('loan', 'No loan with this id.')
/** What a maker-checker request's body names that does not exist. */
const ACTION_NOT_FOUND = [notFound('payment', 'No payment with this id (a reversal).'), notFound('loan', 'No loan with this id (a charge-off).')]
const APPLICATION_NOT_FOUND = notFound('loan_application', "No application with this id belongs to the key's party.")
const NOT_DRAFT = invalidState('loan_application', 'SUBMITTED', 'update', 'The application is no longer `DRAFT`.')
const PRODUCT_REFUSED = invalidRequest(
  'product_id 2c4b7e10-5a3d-4f6e-9b8a-1d2e3f4a5b6c is not an active loan product.',
  'product_id',
  'The product does not exist or is inactive, or the amount, currency or term does not fit it (`param` names the field).',
)
const ADDRESS_NOT_FOUND = notFound('address', 'No address with this id belongs to the holder.')
const SECOND_REGISTERED = invalidRequest(
  'type: the holder already has a registered address; update it instead',
  'type',
  'A second `registered` address, or a 21st address, is refused: update the first instead.',
)
const ADDRESS_RACE = documented({ _tag: 'AlreadyExists', entity: 'registered_address' }, 'A concurrent request added the registered address first.')
const NO_SENDER = documented({ _tag: 'ServerMisconfigured', setting: 'VERIFICATION_DELIVERY_URL' }, 'The server has no way to deliver verification codes configured: codes cannot be sent or checked.')
const DELIVERY_PROBLEMS: readonly DocumentedProblem[] = [
  SESSION_NOT_FOUND,
  sessionClosed('send a code for'),
  sample('RateLimited', 'A code was sent less than 30 seconds ago; `retry_after_seconds` says when another may be.'),
  sample('VerificationDeliveryFailed', 'The code could not be delivered: nothing was stored, no wait is imposed; retry.'),
  NO_SENDER,
]
const verifyProblems = (channel: 'phone' | 'email'): readonly DocumentedProblem[] => [
  SESSION_NOT_FOUND,
  sessionClosed('verify a contact of'),
  documented(
    { _tag: 'NoPendingVerification', channel, alreadyVerified: true },
    'No code awaits verification: `reason` is `already_verified` (the contact is verified; to recover a lost answer, repeat the first request\'s Idempotency-Key) or `no_pending_code`.',
  ),
  sample('InvalidCode', 'The code is wrong; `attempts_remaining` says how many more may be tried.'),
  sample('CodeExpired', 'The code is older than 10 minutes: request a new one with the retry route.'),
  sample('TooManyAttempts', 'Five wrong codes were tried: request a new one with the retry route.'),
  NO_SENDER,
]
const CHARGED_OFF = invalidState('loan', 'CHARGED_OFF', 'pay', 'The loan is charged off: it takes no payments.')
const SUBMITTED_ONLY = (resource: string, what: string, action: string): DocumentedProblem =>
  invalidState(resource, 'APPROVED', action, `Only a \`SUBMITTED\` ${what} can be decided; this one was decided already or is not submitted.`)

const DELIVERY_NOT_FOUND = notFound('webhook_delivery', 'No delivery of this event to this endpoint.')
const ENDPOINT_NOT_FOUND = notFound('webhook_endpoint', "No webhook endpoint with this id belongs to the caller's API client (another client's is not found either).")
const URL_REFUSED = invalidRequest(
  'url must be an https URL of a public host',
  'url',
  'The URL is not https, or resolves to a private, loopback or link-local address (`param` is `url`).',
)
const ENDPOINTS_FULL = documented(
  { _tag: 'InvalidRequest', detail: `An API client has at most ${MAX_ENDPOINTS_PER_CLIENT} webhook endpoints: delete one, or widen the enabled_events of one you have.` },
  `The API client already has ${MAX_ENDPOINTS_PER_CLIENT} endpoints.`,
)
const noSealing = (what: string): DocumentedProblem =>
  documented({ _tag: 'ServerMisconfigured', setting: 'WEBHOOK_SECRET_KEY' }, `The server has no key to seal webhook secrets with configured: ${what}.`)
const SHOWN_ONCE =
  'the server generates one (`whsec_` and 24 random bytes) and answers it once, in `secret` of this response only: an idempotent replay answers without it, and no read shows it again'

const doc = (tag: Tag, summary: string, description: string, extra: Omit<OperationDoc, 'tag' | 'summary' | 'description'> = {}): OperationDoc => ({
  tag,
  summary,
  description,
  ...extra,
})

const ADDRESS_TYPE_DEFAULT = (holder: 'session' | 'party'): string =>
  `\`type\` is optional: without it, the ${holder}'s first address is \`registered\` and any later one \`operating\`; ` +
  'the response always states the type. A holder has at most one `registered` address and at most 20 addresses.'

const MERGE_PATCH =
  'A JSON Merge Patch (RFC 7396), sent as `application/json` or `application/merge-patch+json`: a field left out keeps its value, ' +
  '`null` clears a field that may be empty, and `null` on a field that cannot be empty is refused (400 naming the field). ' +
  'An empty object is refused (400).'

/** What autopay debits, when, and under which key (docs/ach.md "Scheduled (autopay) debits"). */
const AUTOPAY =
  "While autopay is on, each installment is debited from the loan's default payment method (an active bank account) in the first ACH file of the last banking day before it falls due " +
  "(a file effective on its due date, or on the next banking day when it falls on a weekend or a holiday), " +
  "for what the installment owes on its due date less the loan's pending debits (nothing is debited when that is nothing, as after paying ahead). " +
  'The debit is a payment like any other: the waterfall applies it to what is past due first, so autopay alone does not bring a loan in arrears up to date. ' +
  'One debit per installment, under the API client that turned autopay on, listed with the loan\'s payments. ' +
  'When the default method is a card or a `blocked` bank account, the installment\'s payment is `FAILED` with `failure_code` `payment_method_unusable`, and `payment.failed` is sent; autopay stays on.'

/** Every operation's documentation, by operationId: `Record<OperationId, …>`, so none can be missing. */
export const OPERATION_DOCS: Readonly<Record<OperationId, OperationDoc>> = {
  health: doc('probes', 'Liveness: the process is up', 'Answers 200 while the process runs; it reads nothing. Use it as a liveness probe.'),
  healthReady: doc(
    'probes',
    'Readiness: the database answers and its schema is current',
    'Answers 200 when the database answers and holds every migration of this build; 503 `not_ready` otherwise, so a load balancer sends no traffic to an instance that cannot serve it.',
    { errors: [sample('NotReady', 'The database does not answer, or its schema is still being migrated.')] },
  ),
  getOpenApiDocument: doc(
    'reference',
    'This OpenAPI document',
    'The partner document, served without a key (under `/public/v1` and `/public` alike). Its `servers` are version 1 of the API at its public address, with and without the version segment; its paths are relative to them.',
  ),
  getOperatorOpenApiDocument: doc(
    'reference',
    'This OpenAPI document',
    'The operator document: the `/internal` routes and the probes. `servers` is the address the request reached.',
  ),

  mintApiKey: doc(
    'keys',
    'Mint an API key',
    'Mints a key for the API client named by `party_id` and `client_name`, creating the client on first use (the same pair adds a key to the same client: rotation). ' +
      'Authenticated by the root mint secret, so only operators and partner backends mint, never browsers. ' +
      'The response is the only place the secret appears: it is never stored, so an idempotent replay answers without `api_key`. Writes an `api_key.minted` audit event.',
    { body: 'MintApiKeyInput' },
  ),
  listApiKeys: doc(
    'keys',
    "List the API client's keys",
    'Every key of the caller\'s API client in the caller\'s environment (a test key lists test keys only), active and revoked, oldest first: the prefix, scopes and dates, never the secret nor its hash. Needs the `keys:manage` scope.',
    { list: true },
  ),
  revokeApiKey: doc(
    'keys',
    'Revoke a key of the API client',
    'Revokes a key of the caller\'s API client in the caller\'s environment (the caller\'s own included; a test key cannot revoke a live one): every instance refuses it within a second. Revoking a revoked key answers the same record and changes nothing. ' +
      'Needs the `keys:manage` scope; writes an `api_key.revoked` audit event.',
    { errors: [notFound('api_key', 'No key with this id belongs to the API client in this environment.')] },
  ),

  createOnboardingSession: doc(
    'onboarding',
    'Start onboarding a borrower',
    'Creates an onboarding session owned by the caller\'s API client, `IN_PROGRESS` at `PHONE_VERIFICATION`. Other API clients get 404 for it.',
    { body: 'CreateOnboardingSessionInput' },
  ),
  getOnboardingSession: doc('onboarding', 'Get an onboarding session', 'The session with its status and `current_step`, the step of its first outstanding requirement.', {
    errors: [SESSION_NOT_FOUND],
  }),
  listOnboardingAddresses: doc('onboarding', "List the session's addresses", 'The session\'s addresses in creation order, in any status.', {
    list: true,
    errors: [SESSION_NOT_FOUND],
  }),
  createOnboardingAddress: doc('onboarding', 'Add an address to the session', `Adds a postal address while the session is \`IN_PROGRESS\`. ${ADDRESS_TYPE_DEFAULT('session')}`, {
    body: 'AddressInput',
    errors: [SESSION_NOT_FOUND, SESSION_CLOSED, SECOND_REGISTERED],
  }),
  updateOnboardingAddress: doc('onboarding', 'Update an address of the session', `Changes an address while the session is \`IN_PROGRESS\`. ${MERGE_PATCH}`, {
    body: 'AddressPatch',
    errors: [SESSION_NOT_FOUND, ADDRESS_NOT_FOUND, SESSION_CLOSED, SECOND_REGISTERED],
  }),
  upsertApplicantProfile: doc(
    'onboarding',
    'Create or replace the applicant profile',
    'Stores the business applicant while the session is `IN_PROGRESS`: a PUT replaces the whole profile (fields left out are cleared); a PUT of what is stored changes nothing. ' +
      'The response never holds the tax id, only `tax_id_masked`.',
    { body: 'ApplicantProfileInput', errors: [SESSION_NOT_FOUND, SESSION_CLOSED] },
  ),
  submitOnboardingEmail: doc(
    'onboarding',
    'Submit the email to verify',
    'Sends a 6-digit code to the email (valid 10 minutes, 5 tries) and answers `pending`; resubmitting the verified address sends nothing and answers `verified`. ' +
      'A different address makes the email unverified again. Limited per key by the `verification` policy on top of the general one.',
    { body: 'EmailInput', errors: DELIVERY_PROBLEMS },
  ),
  retryOnboardingEmailVerification: doc(
    'onboarding',
    'Send a new email verification code',
    'Replaces the pending code with a new one, at least 30 seconds after the last was sent.',
    { body: 'EmptyInput', errors: [...DELIVERY_PROBLEMS, documented({ _tag: 'NoPendingVerification', channel: 'email', alreadyVerified: false }, 'No email awaits verification: none was submitted, or it is verified already.')] },
  ),
  verifyOnboardingEmail: doc(
    'onboarding',
    'Verify the email with its code',
    'Checks the code sent to the email; on success the email is verified and the session moves to its next step. Each check counts against the code\'s 5 tries before it is compared.',
    { body: 'CodeInput', errors: verifyProblems('email') },
  ),
  submitOnboardingPhone: doc(
    'onboarding',
    'Submit the phone to verify',
    'Sends a 6-digit code to the phone (E.164; valid 10 minutes, 5 tries) and answers `pending`; resubmitting the verified number sends nothing and answers `verified`. ' +
      'A different number makes the phone unverified again. Limited per key by the `verification` policy on top of the general one.',
    { body: 'PhoneInput', errors: DELIVERY_PROBLEMS },
  ),
  retryOnboardingPhoneVerification: doc(
    'onboarding',
    'Send a new phone verification code',
    'Replaces the pending code with a new one, at least 30 seconds after the last was sent.',
    { body: 'EmptyInput', errors: [...DELIVERY_PROBLEMS, documented({ _tag: 'NoPendingVerification', channel: 'phone', alreadyVerified: false }, 'No phone awaits verification: none was submitted, or it is verified already.')] },
  ),
  verifyOnboardingPhone: doc(
    'onboarding',
    'Verify the phone with its code',
    'Checks the code sent to the phone; on success the phone is verified and the session moves to its next step. Each check counts against the code\'s 5 tries before it is compared.',
    { body: 'CodeInput', errors: verifyProblems('phone') },
  ),
  listPendingOnboardingRequirements: doc(
    'onboarding',
    'List the outstanding requirements',
    'What must still be done before the session can be submitted, in order; empty once it can be. The list always fits one page.',
    { list: true, errors: [SESSION_NOT_FOUND] },
  ),
  submitOnboardingForReview: doc(
    'onboarding',
    'Submit the session for review',
    'Moves a session with no outstanding requirement to `SUBMITTED` at `REVIEW`; from then on it cannot change, and an operator approves or rejects it.',
    {
      body: 'EmptyInput',
      errors: [
        SESSION_NOT_FOUND,
        sessionClosed('submit'),
        sample('RequirementsOutstanding', 'Requirements are outstanding; `requirements` lists them.'),
      ],
    },
  ),
  getPartyBySessionId: doc(
    'onboarding',
    'Get the party of an approved session',
    'The party created when the session was approved, as it is now (the `party.ready` webhook carries it as of approval, in `data`). Only the API client whose session it was can read it here.',
    { errors: [notFound('party', 'No session with this id belongs to the API client, or it is not approved yet.')] },
  ),
  registerOnboardingSessionWebhook: doc(
    'webhooks',
    'Register the party.ready webhook',
    'Sets where the `party.ready` event of this session is POSTed, signed by the Standard Webhooks scheme. Without `webhook_secret` the server generates one and answers it once, in this response only. ' +
      'A URL must be https and resolve to a public address unless the server allows otherwise. A registration after approval delivers the event then.',
    {
      body: 'RegisterWebhookInput',
      errors: [
        SESSION_NOT_FOUND,
        invalidRequest('webhook_url must be an https URL of a public host', 'webhook_url', 'The URL is not https, or resolves to a private, loopback or link-local address.'),
        noSealing('secrets cannot be stored'),
      ],
    },
  ),
  listOnboardingSessionWebhookDeliveries: doc(
    'webhooks',
    'List webhook events and their delivery attempts',
    'Every event of the session, oldest first, with each delivery attempt: when, how long, the receiver\'s status or the error.',
    { list: true, errors: [SESSION_NOT_FOUND] },
  ),
  retryOnboardingSessionWebhookDelivery: doc(
    'webhooks',
    'Deliver a webhook event again, now',
    'Makes a pending or failed event due now, so a worker delivers it within seconds with the same `webhook-id`. Limited per event by the `webhook_retry` policy.',
    {
      body: 'EmptyInput',
      errors: [
        SESSION_NOT_FOUND,
        notFound('webhook_event', 'No event with this id belongs to the session.'),
        invalidState('webhook_event', 'delivered', 'retry', 'The event was delivered already.'),
      ],
    },
  ),
  listDocumentsForOnboardingSession: doc('onboarding', "List the session's documents", 'Document metadata of the session, oldest first, in any status.', {
    list: true,
    errors: [SESSION_NOT_FOUND],
  }),
  createOnboardingDocumentMetadata: doc(
    'onboarding',
    'Register document metadata',
    'Records where the partner keeps a document of the session (`storage_ref`) and what it is, while the session is `IN_PROGRESS`. Lendgate stores metadata, never the file.',
    { body: 'DocumentInput', errors: [SESSION_NOT_FOUND, SESSION_CLOSED] },
  ),

  getParty: doc(
    'parties',
    'Get the party',
    'The approved borrower the key belongs to, with its addresses; the tax id only masked.',
    { errors: [PARTY_NOT_FOUND] },
  ),
  listPartyAddresses: doc('parties', "List the party's addresses", 'The party\'s addresses in creation order (copied from its session at approval, then its own).', {
    list: true,
    errors: [PARTY_NOT_FOUND],
  }),
  createPartyAddress: doc('parties', 'Add an address to the party', `Adds a postal address to the party. ${ADDRESS_TYPE_DEFAULT('party')}`, {
    body: 'AddressInput',
    errors: [PARTY_NOT_FOUND, SECOND_REGISTERED, ADDRESS_RACE],
  }),
  updatePartyAddress: doc('parties', 'Update an address of the party', `Changes an address of the party. ${MERGE_PATCH}`, {
    body: 'AddressPatch',
    errors: [PARTY_NOT_FOUND, ADDRESS_NOT_FOUND, SECOND_REGISTERED, ADDRESS_RACE],
  }),
  listPartyApplications: doc('parties', "List the party's loan applications", 'The party\'s applications, oldest first, optionally of one status.', {
    list: true,
    query: ApplicationStatusFilter,
  }),
  listAvailableLoanProductsForParty: doc('parties', 'List the products the party can apply for', 'The active loan products, oldest first, with their pricing and servicing rules.', {
    list: true,
  }),

  createLoanApplication: doc(
    'applications',
    'Create a loan application',
    'Creates a `DRAFT` application of the key\'s party for an active product; amount, currency and term must fit the product. ' +
      'Its pricing is copied from the product now and at each update, and frozen at submission.',
    { body: 'LoanApplicationInput', errors: [PRODUCT_REFUSED, notFound('party', "The key's party is not a borrower's party (only an approved onboarding creates one).")] },
  ),
  getLoanApplication: doc('applications', 'Get a loan application', 'The application with its status, pricing and decision.', { errors: [APPLICATION_NOT_FOUND] }),
  updateLoanApplication: doc('applications', 'Update a draft application', `Changes a \`DRAFT\` application; the result must still fit the product. ${MERGE_PATCH}`, {
    body: 'LoanApplicationPatch',
    errors: [APPLICATION_NOT_FOUND, NOT_DRAFT, PRODUCT_REFUSED],
  }),
  submitLoanApplication: doc(
    'applications',
    'Submit the application for decisioning',
    'Moves a `DRAFT` application to `SUBMITTED`, freezing the product\'s pricing on it; an operator then approves (booking the loan) or declines it.',
    { body: 'EmptyInput', errors: [APPLICATION_NOT_FOUND, invalidState('loan_application', 'SUBMITTED', 'submit', 'The application is not `DRAFT`.'), PRODUCT_REFUSED] },
  ),
  withdrawLoanApplication: doc(
    'applications',
    'Withdraw the application',
    'Moves a `DRAFT` or `SUBMITTED` application to `WITHDRAWN`; a decided application cannot be withdrawn.',
    { body: 'EmptyInput', errors: [APPLICATION_NOT_FOUND, invalidState('loan_application', 'APPROVED', 'withdraw', 'The application was decided or withdrawn already.')] },
  ),
  previewLoanApplicationSchedule: doc(
    'applications',
    'Preview the repayment schedule',
    'The schedule, fee and Truth in Lending disclosure the application\'s loan would have if booked on `start_date` (today by default). Reads only.',
    { query: SchedulePreviewQuery, errors: [APPLICATION_NOT_FOUND] },
  ),

  listLoansForParty: doc('servicing', "List the party's loans", 'The party\'s loans, oldest first, optionally of one delinquency bucket (as of today in each loan\'s time zone).', {
    list: true,
    query: LoanFilters,
  }),
  getLoanForParty: doc(
    'servicing',
    'Get a loan',
    'The loan with its servicing rules, `days_past_due`, `delinquency_bucket` (as of today in its time zone) and disclosure.',
    { errors: [LOAN_NOT_FOUND] },
  ),
  listLoanBalancesForParty: doc('servicing', 'List balance snapshots', 'Every balance snapshot, oldest first: one is written after each ledger change.', {
    list: true,
    errors: [LOAN_NOT_FOUND],
  }),
  getLatestLoanBalanceForParty: doc(
    'servicing',
    'Get the latest balance',
    'The latest snapshot brought forward to today: interest accrued since it was written is included.',
    { errors: [LOAN_NOT_FOUND] },
  ),
  listCollateralForPartyLoan: doc('servicing', 'List collateral', 'The collateral securing the loan, oldest first.', { list: true, errors: [LOAN_NOT_FOUND] }),
  listPaymentsForPartyLoan: doc(
    'servicing',
    "List the loan's payments",
    'The loan\'s payments, oldest first, in every status (`SUCCEEDED`, `FAILED` with `failure_code`, `REVERSED`), each with its allocation.',
    { list: true, errors: [LOAN_NOT_FOUND] },
  ),
  getLoanPayoffForParty: doc(
    'servicing',
    'Quote the payoff',
    'What pays the loan off on `as_of` (today by default, up to 60 days ahead), assuming no other payment before then. Reads only.',
    {
      query: PayoffQuery,
      errors: [LOAN_NOT_FOUND, invalidState('loan', 'CHARGED_OFF', 'quote a payoff', 'The loan is charged off: it has no payoff.')],
    },
  ),
  listPaymentMethodsForPartyLoan: doc('servicing', 'List payment methods', 'The loan\'s bank accounts and card tokens, oldest first: `last4`, never the number.', {
    list: true,
    errors: [LOAN_NOT_FOUND],
  }),
  createPaymentMethodForPartyLoan: doc(
    'servicing',
    'Add a bank account or card token',
    'Tokenizes a bank account with the payment processor (the number is never stored) or records a card token. The loan\'s first method becomes its default.',
    {
      body: 'PaymentMethodInput',
      errors: [LOAN_NOT_FOUND, sample('ProcessorUnavailable', 'The payment processor could not be reached to tokenise the account; nothing was stored. Retry.')],
    },
  ),
  updatePaymentMethodForPartyLoan: doc('servicing', 'Rename a payment method or make it the default', `Changes a payment method of the loan. ${MERGE_PATCH}`, {
    body: 'PaymentMethodPatch',
    errors: [LOAN_NOT_FOUND, notFound('payment_method', 'No payment method with this id belongs to the loan.')],
  }),
  getLoanAutopayForParty: doc(
    'servicing',
    "Get the loan's autopay",
    'Whether autopay is on for the loan, and since when (`enabled_at`, null while it is off). Off until a partner turns it on. See setLoanAutopayForParty for what it debits.',
    { errors: [LOAN_NOT_FOUND] },
  ),
  setLoanAutopayForParty: doc(
    'servicing',
    "Turn the loan's autopay on or off",
    `\`{"enabled": true}\` turns autopay on, \`{"enabled": false}\` off. ${AUTOPAY}\n\n` +
      'Turning it on when it is on already keeps it as it is (the same `enabled_at`, the same client) and answers it; turning it off when it is off answers it off. ' +
      'Only an `ACTIVE` loan\'s autopay may be turned on (409 `invalid_state` otherwise), and only where the lender collects by ACH ' +
      '(409 `invalid_state` with `status` `unavailable` otherwise: in test mode, where the sandbox bank runs); any loan\'s may be turned off.',
    {
      body: 'AutopayInput',
      errors: [
        LOAN_NOT_FOUND,
        invalidState('loan', 'CHARGED_OFF', 'turn autopay on', 'The loan is not `ACTIVE` (paid off or charged off): its autopay cannot be turned on.'),
        invalidState('autopay', 'unavailable', 'turn autopay on where the lender does not collect by ACH', 'The lender does not collect by ACH in this world: no file would take the debits.'),
      ],
    },
  ),
  createPaymentIntentForPartyLoan: doc(
    'servicing',
    'Pay',
    'Charges the payment method and, when the processor accepts, posts the payment to the ledger today: fees, then interest, then principal of the oldest installment first; ' +
      'anything beyond what is due prepays principal. A declined charge is stored as `FAILED` and answered 201. ' +
      'An `Idempotency-Key` is required and kept for good: a retry can never pay twice.',
    {
      body: 'PaymentInput',
      errors: [
        LOAN_NOT_FOUND,
        invalidRequest(
          'payment_method_id 9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f is not a payment method of this loan.',
          'payment_method_id',
          'The payment method is not one of the loan\'s, or the currency is not the loan\'s (`param` names the field).',
        ),
        CHARGED_OFF,
        sample('Overpayment', 'The amount is more than the payoff amount today (0 for a paid-off loan); `payoff_amount` says what it is.'),
        sample('ProcessorUnavailable', 'The payment processor could not be reached; nothing was charged or stored. Retry with the same Idempotency-Key.'),
      ],
    },
  ),
  listLoanScheduleForParty: doc('servicing', 'List the installments', 'The installments by due date, each with what is due and paid and its status as of today.', {
    list: true,
    errors: [LOAN_NOT_FOUND],
  }),
  listTransactionsForPartyLoan: doc(
    'servicing',
    'List ledger transactions',
    'The append-only ledger in ledger order, optionally of one type or effective-date range.',
    { list: true, query: TransactionFilters, errors: [LOAN_NOT_FOUND] },
  ),
  listDocumentsForPartyLoan: doc('servicing', "List the loan's documents", 'Documents an operator attached to the loan (statements, agreements), oldest first.', {
    list: true,
    errors: [LOAN_NOT_FOUND],
  }),

  listEvents: doc(
    'events',
    'List events',
    'The events the caller sees, oldest first (in the order they were written): those of the parties its API client onboarded (the parties its onboarding sessions made) ' +
      "and those of the key's own party, and no other. Borrowers approved (`party.ready`), applications submitted and decided, " +
      'loans booked, moved between delinquency buckets, paid off and charged off, late fees charged, payments settled, declined and reversed. ' +
      'Each event\'s `data` is the resource as its own route answers it, as of the change; `previous_attributes` holds the fields of `data` the change moved, as they were.\n\n' +
      'The events of a loan (`loan.*` and `payment.*`) carry `sequence`, which only grows per loan (1 for its first event, then one more for each, with no gap): ' +
      'keep the highest `sequence` applied per loan and drop an event with a lower one, it is stale. Events of no loan have none; order them by `occurred_at`.\n\n' +
      'Filters, each optional: `type` (one type of the catalogue), `resource_id` (the id of `data`: a party, application, loan, payment or ledger entry), ' +
      '`since` (inclusive) and `until` (exclusive), instants in UTC; `since` must be before `until`. ' +
      'Events are kept at least 30 days. Two changes committing at the same moment can be listed in either order: to reconcile, read recent windows again with an overlapping `since` and deduplicate on `id`.',
    {
      list: true,
      query: EventFilters,
      errors: [invalidRequest('since must be before until.', 'until', '`since` is not before `until`.')],
    },
  ),
  createWebhookEndpoint: doc(
    'events',
    'Create a webhook endpoint',
    "Registers an endpoint of the caller's API client, `enabled`, that receives the events the client sees (those listEvents lists) of the types in `enabled_events` " +
      '(`*` for all; duplicates removed), each POSTed as listEvents shows it, with the Standard Webhooks headers: `webhook-id` (the event\'s `id`), `webhook-timestamp` and ' +
      '`webhook-signature`. Deliveries are queued as events are written, from now on: recoverWebhookEvents queues earlier ones. ' +
      `Without \`secret\` ${SHOWN_ONCE}; a \`secret\` you send is never shown. ` +
      'The URL must be https and resolve only to public addresses unless the server allows otherwise; it is checked again before every attempt.',
    {
      body: 'CreateWebhookEndpointInput',
      errors: [URL_REFUSED, ENDPOINTS_FULL, noSealing('signing secrets cannot be stored')],
    },
  ),
  listWebhookEndpoints: doc('events', 'List webhook endpoints', "The caller's API client's endpoints, oldest first, never with a secret.", { list: true }),
  getWebhookEndpoint: doc('events', 'Get a webhook endpoint', "One endpoint of the caller's API client, never with its secret.", { errors: [ENDPOINT_NOT_FOUND] }),
  updateWebhookEndpoint: doc(
    'events',
    'Update a webhook endpoint',
    'Changes the endpoint\'s `url` (checked as at creation), `enabled_events`, `status` (`enabled` or `disabled`) or `description` (`null` clears it); the secret changes only by rotation. ' +
      'A `disabled` endpoint is sent nothing, and no delivery is queued for it while it is: enable it again and recover the window it missed with recoverWebhookEvents. ' +
      MERGE_PATCH,
    {
      body: 'UpdateWebhookEndpointInput',
      errors: [ENDPOINT_NOT_FOUND, URL_REFUSED],
    },
  ),
  deleteWebhookEndpoint: doc(
    'events',
    'Delete a webhook endpoint',
    'Deletes the endpoint with its pending deliveries: nothing more is sent to it. Answers the endpoint as it was, with `deleted: true`; a second delete is 404.',
    { errors: [ENDPOINT_NOT_FOUND] },
  ),
  rotateWebhookEndpointSecret: doc(
    'events',
    "Rotate a webhook endpoint's signing secret",
    `Gives the endpoint a new signing secret: \`secret\`, or without it ${SHOWN_ONCE}. The new secret signs at once; the old one keeps signing beside it for ` +
      '`grace_period_seconds` (0 to 604800, default 86400), until `previous_secret_expires_at`. Meanwhile every delivery carries two signatures in `webhook-signature`, ' +
      'space-separated, and either secret verifies it, so the receiver can switch at its own pace. `0` retires the old secret at once (`previous_secret_expires_at` is null); ' +
      'a rotation during a grace period retires the secret the previous rotation kept at once. The body is optional.',
    {
      body: 'RotateWebhookSecretInput',
      errors: [ENDPOINT_NOT_FOUND, noSealing('signing secrets cannot be stored')],
    },
  ),
  resendWebhookEvent: doc(
    'events',
    'Send an event to a webhook endpoint again, now',
    "Queues the event for the endpoint again, due now, whatever its type, if the endpoint's API client sees it: a worker delivers it within seconds, with the same `webhook-id`. " +
      'Asked for while an attempt of the same delivery is under way, it joins that attempt, whose outcome stands (resend again if it failed). Answers the delivery, `pending`. Limited per event by the `webhook_retry` policy, as the session webhook\'s retry is.',
    {
      body: 'EmptyInput',
      errors: [
        ENDPOINT_NOT_FOUND,
        notFound('event', "No event with this id is one the endpoint's API client sees: it does not exist, is past retention (30 days), or is another partner's."),
      ],
    },
  ),
  recoverWebhookEvents: doc(
    'events',
    'Recover the events a webhook endpoint missed',
    'Queues again, due now, every event written in [`since`, `until`) (`until` defaults to now) that the endpoint takes (its `enabled_events`, among the events its API client sees) ' +
      'and has not had delivered: after it was down, failed for good, or was disabled. Answers how many were queued (`recovered`); recovering the same window again queues only what is still undelivered. ' +
      'Events are kept 30 days. Limited per endpoint by the `webhook_retry` policy.',
    {
      body: 'RecoverWebhookEventsInput',
      errors: [
        ENDPOINT_NOT_FOUND,
        invalidRequest(
          'since must be before until (default: now).',
          'until',
          '`since` is not before `until` (`param` is `until`) or, without `until`, not before now (`param` is `since`).',
        ),
      ],
    },
  ),

  simulateOnboardingApproval: doc(
    'testing',
    'Approve your submitted test session',
    'Test mode only. Approves a submitted session of your API client as a reviewer would, with the same effects: the party is created and `party.ready` is queued. The audit log names your key.',
    { body: 'ApproveSessionInput', errors: [notFound('onboarding_session', 'No session with this id belongs to the API client in the test world.'), SUBMITTED_ONLY('onboarding_session', 'session', 'approve')] },
  ),
  simulateOnboardingRejection: doc('testing', 'Reject your submitted test session', 'Test mode only. Rejects a submitted session of your API client as a reviewer would, with its reason.', {
    body: 'RejectSessionInput',
    errors: [notFound('onboarding_session', 'No session with this id belongs to the API client in the test world.'), SUBMITTED_ONLY('onboarding_session', 'session', 'reject')],
  }),
  simulateApplicationApproval: doc(
    'testing',
    "Approve your party's submitted test application",
    "Test mode only. Approves a submitted application of the key's party as a credit officer would, booking its loan with its schedule and opening ledger entries.",
    { body: 'ApproveApplicationInput', errors: [notFound('loan_application', "No application with this id belongs to the key's party in the test world."), SUBMITTED_ONLY('loan_application', 'application', 'approve')] },
  ),
  simulateApplicationDecline: doc('testing', "Decline your party's submitted test application", "Test mode only. Declines a submitted application of the key's party as a credit officer would, with its reason.", {
    body: 'DeclineApplicationInput',
    errors: [notFound('loan_application', "No application with this id belongs to the key's party in the test world."), SUBMITTED_ONLY('loan_application', 'application', 'decline')],
  }),
  createTestClock: doc(
    'testing',
    "Put the key's party on a test clock",
    "Test mode only. Freezes the time of the key's party (a test-world party; one clock each) at `frozen_time`, now by default, at most a year ahead: " +
      "from then on the party's requests read that time as now (a loan booked is booked on that day, a payment is made on it), and its loans no longer follow the calendar, only the clock.",
    { body: 'CreateTestClockInput', errors: [notFound('party', "The key's party does not exist in the test world."), documented({ _tag: 'AlreadyExists', entity: 'test_clock' }, 'The party has a clock already.')] },
  ),
  getTestClock: doc('testing', "Read the party's test clock", 'Test mode only. The clock, `advancing` while an advance is under way (poll until `ready`).', {
    errors: [notFound('test_clock', "No clock with this id belongs to the key's party.")],
  }),
  advanceTestClock: doc(
    'testing',
    'Advance the test clock',
    'Test mode only. Moves the clock forward to `frozen_time` (at most two years at a time) and answers at once, `advancing`: for each day crossed, in order, ' +
      "the party's loans are serviced as the daily job services them (interest, due dates, late fees, delinquency), then `frozen_time` moves to that day. " +
      'Poll the clock until it is `ready`. Asking again for the advance under way answers the clock as it is.',
    {
      body: 'AdvanceTestClockInput',
      errors: [
        notFound('test_clock', "No clock with this id belongs to the key's party."),
        invalidState('test_clock', 'ADVANCING', 'advance', 'The clock is advancing to another time: wait until it is `ready`.'),
      ],
    },
  ),
  simulatePaymentReturn: doc(
    'testing',
    'Return a test payment as the bank would',
    'Test mode only. The borrower\'s bank returns a payment with a NACHA `return_code` (R01 insufficient funds by default; R02, R03, R04, R10, R29). ' +
      'A bank debit of the sandbox bank (`SUBMITTED` or `SETTLED`) is returned as a return file returns it: it becomes `RETURNED` with its `return_code` (`payment.returned`), what it paid is owed again with the loan\'s `returned_payment_fee`, and R02, R03, R04, R10 and R29 block its payment method. ' +
      'A `SUCCEEDED` payment becomes `REVERSED` and what it paid is owed again, as an operator\'s reversal does.',
    {
      body: 'ReturnPaymentInput',
      errors: [
        notFound('payment', 'No payment with this id belongs to this loan.'),
        invalidState('payment', 'REVERSED', 'reverse', 'Only a `SUCCEEDED`, `SUBMITTED` or `SETTLED` payment can be returned (a `SUCCEEDED` one of a charged-off loan cannot).'),
      ],
    },
  ),
  wipeTestData: doc(
    'testing',
    "Delete your API client's test data",
    "Test mode only, with `keys:manage`. Deletes at once every test-world record of the key's API client: its onboarding sessions, the parties they made, every application and loan of those parties " +
      "with their schedules, ledgers, payments, payment methods, collateral and documents, their test clocks, webhook events and audit trail, and the client's idempotency records. " +
      "API keys stay: a key of a deleted party finds nothing of it any more (404). Nothing of the live world is touched. The answer counts what went.",
    {
      errors: [invalidState('test_data', 'ach_file_in_progress', 'wipe', 'A payment to delete is in a test-world bank file being made at this moment (the sandbox bank\'s cut-offs take seconds): nothing was deleted; retry.')],
    },
  ),

  listOnboardingSessionsForReview: doc('review', 'List sessions for review', 'The sessions of every API client, oldest first, optionally of one status (`SUBMITTED` for the queue).', {
    list: true,
    query: SessionStatusFilter,
  }),
  approveOnboardingSession: doc(
    'review',
    'Approve a submitted session',
    'In one transaction: the session becomes `APPROVED`, the party is created from its profile, contacts and addresses, the `party.ready` event is queued and an audit event written.',
    { body: 'ApproveSessionInput', errors: [notFound('onboarding_session', 'No session with this id.'), SUBMITTED_ONLY('onboarding_session', 'session', 'approve')] },
  ),
  rejectOnboardingSession: doc('review', 'Reject a submitted session', 'Records the rejection, its reason and who decided; the session can change no more.', {
    body: 'RejectSessionInput',
    errors: [notFound('onboarding_session', 'No session with this id.'), SUBMITTED_ONLY('onboarding_session', 'session', 'reject')],
  }),
  getOnboardingSessionForReview: doc(
    'review',
    'Read a session before deciding',
    "Any API client's session: its review record, its contacts and whether each is verified, the applicant profile (the tax id masked) and the addresses. Its documents are listed apart.",
    { errors: [notFound('onboarding_session', 'No session with this id.')] },
  ),
  listOnboardingDocumentsForReview: doc('review', "List a session's documents", "The document metadata of any API client's session, oldest first, in any status.", {
    list: true,
    errors: [notFound('onboarding_session', 'No session with this id.')],
  }),
  listLoanApplicationsForReview: doc('decisioning', 'List applications for decisioning', 'The applications of every party, oldest first, optionally of one status.', {
    list: true,
    query: ApplicationStatusFilter,
  }),
  getLoanApplicationForReview: doc('decisioning', 'Read an application before deciding', "Any party's application, with its terms as priced by its product.", {
    errors: [notFound('loan_application', 'No application with this id.')],
  }),
  previewLoanApplicationScheduleForReview: doc(
    'decisioning',
    "Preview an application's schedule and APR",
    "What the party's own preview answers, for any party's application: the schedule, fee and Truth in Lending disclosure (APR, finance charge) its loan would have if booked on `start_date` (today by default). Reads only.",
    { query: SchedulePreviewQuery, errors: [notFound('loan_application', 'No application with this id.')] },
  ),
  approveLoanApplication: doc(
    'decisioning',
    'Approve an application and book its loan',
    'In one transaction: the application becomes `APPROVED` and its loan is booked with its schedule, opening ledger entries and first balance snapshot; an audit event is written.',
    { body: 'ApproveApplicationInput', errors: [notFound('loan_application', 'No application with this id.'), SUBMITTED_ONLY('loan_application', 'application', 'approve')] },
  ),
  declineLoanApplication: doc('decisioning', 'Decline an application', 'Records the decline, its reason and who decided.', {
    body: 'DeclineApplicationInput',
    errors: [notFound('loan_application', 'No application with this id.'), SUBMITTED_ONLY('loan_application', 'application', 'decline')],
  }),
  accrueInterest: doc(
    'jobs',
    'Run the daily servicing job to a date',
    'Posts interest accrued and late fees due up to `as_of` on every active loan (by default each loan\'s own today, in its time zone), as the scheduler does each day, and writes an audit event. ' +
      'A second run to the same date posts nothing more.',
    { query: AccrualQuery },
  ),
  originateAchFile: doc(
    'jobs',
    'Cut an ACH file now',
    'Runs the ACH origination job for a cut-off at the end of this minute, New York time, as the scheduler does at each configured cut-off of a banking day: ' +
      'the bank-account payments accepted `PENDING` until now are submitted (posted today, `payment.submitted`) or failed, and written in one NACHA file to the outbox, effective the next banking day. ' +
      'A file an earlier run left unfinished is finished first. Asked again in the same minute, it answers that run\'s file (`not_due`). Account numbers are never in the answer.',
    { errors: [invalidState('ach_origination', 'disabled', 'cut a file', 'The ACH rails are off on this deployment: bank accounts are charged on the sandbox rails.')] },
  ),
  ingestAchInboundFile: doc(
    'ach',
    'Ingest a return file from the bank',
    'Takes a NACHA file the bank sent back (the body, `Content-Type: text/plain`, gzip allowed as `Content-Encoding`) and applies its returns: each is matched by its original trace number to a debit of ours, ' +
      'which becomes `RETURNED` with its `return_code` (`payment.returned`): what it paid is owed again, so its installment can be past due again; codes that forbid another debit (R02, R03, R04, R08, R16 and the unauthorized codes) block its payment method. ' +
      'The whole file is read first: a file that does not parse is refused naming its record and field, and nothing is applied. A file is known by its SHA-256: sent again, it answers the same record and changes nothing; ' +
      'a return already applied from another file is reported `duplicate`. Returns that match no debit of ours are reported `unmatched`, never dropped. ' +
      "Notices of change (COR) correct the debited payment method's account (C01 account number, C02 routing number, C03 both, C05 account type, C06 and C07 with the type), audited as `payment_method.corrected`; other change codes are reported `unsupported` for an operator. " +
      'With `Lendgate-Mode: test` it answers 409: the test world has no ACH rails yet.',
    {
      errors: [
        invalidRequest('The file is refused at record 3, amount: not 10 digits. Nothing was applied.', 'file', 'The file does not parse as NACHA (the record and field are named); nothing was applied.'),
        invalidState('ach_origination', 'disabled', 'ingest a bank file', 'The ACH rails are off on this deployment (or the request is for the test world).'),
      ],
    },
  ),
  getAchReturnRates: doc(
    'ach',
    'Return rates per partner',
    "Nacha's return rates of the last 60 days (New York dates, today included), per API client (the partner whose payments the debits were): the returns received in the window over the debit entries effective in it, " +
      'unauthorized (R05, R07, R10, R11, R29, R51), administrative (R02, R03, R04) and overall, each against Nacha\'s threshold (0.5 %, 3 %, 15 %); `over` when past it. The same figures are in `/metrics` (`lendgate_ach_return_rate`).',
    { query: EmptyInput, errors: [invalidState('ach_origination', 'disabled', 'read return rates', 'The ACH rails are off on this deployment (or the request is for the test world).')] },
  ),
  getAchInboundFile: doc('ach', 'An ingested bank file', 'The file as recorded when it was ingested: what became of each of its returns.', {
    errors: [notFound('ach_inbound_file', 'No inbound file with this id.'), invalidState('ach_origination', 'disabled', 'read a bank file', 'The ACH rails are off on this deployment.')],
  }),
  listLoans: doc(
    'loans',
    "List every party's loans",
    "Every party's loans, oldest first or in another `sort`, optionally one party's (`party_id`), of one `status`, and of one delinquency bucket (as of today in each loan's time zone, on its party's test clock in the test world): " +
      'the delinquency queue. A bucket holds active loans only: a paid-off or charged-off loan is in none. Each carries `days_past_due`. A `next_cursor` continues the order it came from; a cursor of another order is refused (400).',
    { list: true, query: OperatorLoanFilters },
  ),
  getDelinquencySummary: doc(
    'loans',
    "The portfolio's delinquency",
    'Every active loan counted in its delinquency bucket on its own today (its time zone; its party\'s test clock in the test world), with the principal outstanding and past-due amount of its latest balance snapshot, summed per currency (amounts of different currencies are never added). ' +
      'Every bucket is listed, an empty one with zeros; a currency with no active loan is not. Paid-off and charged-off loans are in no bucket. The figures are read in one query over the book.',
    { query: EmptyInput },
  ),
  getLoan: doc('loans', 'Get any loan', "Any party's loan, as its party's read answers it: servicing rules, `days_past_due`, `delinquency_bucket` and disclosure.", { errors: [ANY_LOAN_NOT_FOUND] }),
  listLoanSchedule: doc('loans', "List a loan's installments", "Any party's loan's installments by due date, as its party's read answers them.", { list: true, errors: [ANY_LOAN_NOT_FOUND] }),
  listLoanTransactions: doc('loans', "List a loan's ledger", "Any party's loan's ledger in ledger order, optionally of one type or effective-date range, as its party's read answers it.", {
    list: true,
    query: TransactionFilters,
    errors: [ANY_LOAN_NOT_FOUND],
  }),
  listLoanPayments: doc('loans', "List a loan's payments", "Any party's loan's payments whatever their status, oldest first, as its party's read answers them.", { list: true, errors: [ANY_LOAN_NOT_FOUND] }),
  listLoanBalances: doc('loans', "List a loan's balance snapshots", "Any party's loan's balance after each change, oldest first: its balance over time.", { list: true, errors: [ANY_LOAN_NOT_FOUND] }),
  askOperatorRequest: doc(
    'loans',
    'Ask for a reversal or a charge-off (maker)',
    "A named operator holding `service_loans`, in a console session (the internal token is refused: 403 `operator_session_required`), asks for a payment reversal (`payment_id`) or a charge-off (`loan_id`) with a `reason`; another operator approves it, which carries it out. Refused at once when the action could not be done now (as the action would be), or when the same is already pending; writes `operator_request.created` to the audit log and changes nothing else.",
    {
      body: 'OperatorRequestInput',
      errors: [
        ...ACTION_NOT_FOUND,
        invalidState('payment', 'FAILED', 'reverse', 'The action could not be done now: the payment is not reversible, or the loan is not `ACTIVE`.'),
        documented({ _tag: 'AlreadyExists', entity: 'pending payment_reversal request of this payment' }, 'The same action is already asked and pending.'),
        sample('OperatorRequired'),
      ],
    },
  ),
  listOperatorRequests: doc('loans', 'List maker-checker requests', 'Every loan\'s requests, oldest first, optionally of one `state` (`PENDING`: the checkers\' inbox).', {
    list: true,
    query: OperatorRequestFilters,
  }),
  previewOperatorAction: doc(
    'loans',
    'Preview a reversal or a charge-off',
    "What the action of the body would do if carried out now, on the loan's party's today: the loan's status and what it owes before (its latest snapshot, `before.as_of`) and after, the ledger entries it would post. Planned under the loan's lock as the action would be, and written nowhere; a role with `service_loans` only.",
    {
      body: 'OperatorRequestInput',
      errors: [
        ...ACTION_NOT_FOUND,
        invalidState('payment', 'REVERSED', 'reverse', 'The payment is not reversible now.'),
        invalidState('loan', 'CHARGED_OFF', 'charge off', 'The loan is not `ACTIVE`.'),
      ],
    },
  ),
  getOperatorRequest: doc('loans', 'Get a maker-checker request', 'The request, whichever loan\'s.', { errors: [notFound('operator_request', 'No request with this id.')] }),
  previewOperatorRequest: doc(
    'loans',
    'Preview what approving would do',
    'What approving the pending request would do now (a checker reads it before deciding): as `previewOperatorAction` answers for what it asks.',
    {
      errors: [
        notFound('operator_request', 'No request with this id.'),
        invalidState('operator_request', 'APPROVED', 'preview', 'The request was decided already.'),
        invalidState('payment', 'RETURNED', 'reverse', 'What it asks could not be done now (the payment was returned or reversed meanwhile, or the loan is not `ACTIVE`).'),
      ],
    },
  ),
  approveOperatorRequest: doc(
    'loans',
    'Approve a request (checker)',
    "Another named operator holding `service_loans`, in a console session, approves a pending request with the `preview_version` of the preview they read (previewOperatorRequest): in one transaction under the loan's lock the action is carried out as the direct route would (its audit event, `payment.reversed` or `loan.charged_off`, names the checker as actor and the request and its maker in its details) and the request becomes `APPROVED`. A loan that moved since that preview is refused (409 `preview_outdated`), as is an action no longer possible; refused, the request stays pending.",
    {
      body: 'ApproveRequestInput',
      errors: [
        sample('PreviewOutdated', 'The loan changed since the preview (a payment, a posting, or the day it would post on): preview again, and approve what it shows.'),
        notFound('operator_request', 'No request with this id.'),
        sample('SameOperator', 'The operator who asked tried to approve it.'),
        sample('OperatorRequired'),
        invalidState('operator_request', 'REJECTED', 'approve', 'The request was decided already.'),
        invalidState('payment', 'RETURNED', 'reverse', 'Its action could not be done now (the payment was returned or reversed meanwhile, or the loan is not `ACTIVE`): the request stays pending.'),
      ],
    },
  ),
  rejectOperatorRequest: doc(
    'loans',
    'Reject a request',
    'An operator holding `service_loans` (its maker, withdrawing it, or another) rejects a pending request with a `reason`: nothing is done, and `operator_request.rejected` is written to the audit log.',
    {
      body: 'RejectRequestInput',
      errors: [notFound('operator_request', 'No request with this id.'), invalidState('operator_request', 'APPROVED', 'reject', 'The request was decided already.'), sample('OperatorRequired')],
    },
  ),
  listWebhookDeliveries: doc(
    'webhooks',
    "List partners' webhook deliveries",
    "Every partner endpoint's deliveries, oldest first, optionally of one `status` (`failed`: what needs a look), one endpoint (`endpoint_id`) or one event (`event_id`: where did it go?), each with the endpoint's URL, API client and party.",
    { list: true, query: DeliveryFilters },
  ),
  getWebhookDelivery: doc('webhooks', 'Get a webhook delivery', 'The delivery of event `eventId` to endpoint `endpointId`, with every attempt: when, to which URL, how long it took, and what came back.', {
    errors: [DELIVERY_NOT_FOUND],
  }),
  retryEndpointWebhookDelivery: doc(
    'webhooks',
    'Send a delivery again, now',
    "Queues the delivery due now, whatever its status: a failed one is tried again (its attempt count kept), a delivered one is sent again, with the same `webhook-id`, signed with the endpoint's current secrets. One attempt at a time: a retry asked while an attempt is under way folds into it. Writes `webhook_delivery.retried` to the audit log; a role with `operate_rails` only.",
    { errors: [DELIVERY_NOT_FOUND] },
  ),
  addLoanCollateral: doc('loans', 'Record collateral of a loan', 'Adds a collateral item securing the loan; writes an audit event.', {
    body: 'CollateralInput',
    errors: [notFound('loan', 'No loan with this id.')],
  }),
  attachLoanDocument: doc('loans', 'Attach a document to a loan', 'Records a document of the loan (where it is kept, not the file); writes an audit event.', {
    body: 'LoanDocumentInput',
    errors: [notFound('loan', 'No loan with this id.')],
  }),
  reverseLoanPayment: doc(
    'loans',
    'Reverse a payment',
    'Marks a succeeded payment `REVERSED` and posts a reversal to the ledger, restoring what it paid; later payments are re-allocated. Writes an audit event. ' +
      "For automation (the internal token): a named operator's console session is refused (403 `checker_required`) and asks through `askOperatorRequest` instead, for a second operator's approval.",
    {
      body: 'ReversePaymentInput',
      errors: [
        notFound('payment', 'No payment with this id.'),
        invalidState('payment', 'REVERSED', 'reverse', 'Only a `SUCCEEDED` payment can be reversed, and none of a charged-off loan.'),
        sample('CheckerRequired', "A named operator's console session: a person's reversal needs a second operator's approval."),
      ],
    },
  ),
  chargeOffLoan: doc(
    'loans',
    'Charge off a loan',
    'Posts the interest and late fees due to today, then writes off everything the loan owes (principal, interest, fees) with a charge-off entry; the loan becomes `CHARGED_OFF` and takes no more payments. Writes an audit event. ' +
      "For automation (the internal token): a named operator's console session is refused (403 `checker_required`) and asks through `askOperatorRequest` instead, for a second operator's approval.",
    {
      body: 'ChargeOffInput',
      errors: [
        notFound('loan', 'No loan with this id.'),
        invalidState('loan', 'CHARGED_OFF', 'charge off', 'The loan is not `ACTIVE`.'),
        sample('CheckerRequired', "A named operator's console session: a person's charge-off needs a second operator's approval."),
      ],
    },
  ),
  listLoanProducts: doc('products', 'List the loan product catalogue', 'Every product, oldest first, optionally only the active (or inactive) ones.', {
    list: true,
    query: ProductActiveFilter,
  }),
  createLoanProduct: doc(
    'products',
    'Create a loan product',
    'Adds a product to the catalogue; every loan it can book must amortize (its minimum must not exceed its maximum). Writes an audit event. Not idempotent: each call adds a product.',
    { body: 'LoanProductInput' },
  ),
  updateLoanProduct: doc('products', 'Update a loan product', `Changes a product; loans already booked keep their terms. Writes an audit event with what changed. ${MERGE_PATCH}`, {
    body: 'LoanProductPatch',
    errors: [notFound('loan_product', 'No product with this id.')],
  }),
  signInOperator: doc(
    'console',
    'Sign in to the console',
    'Checks a named operator\'s e-mail (any case) and password and opens a console session: the answer sets the session\'s cookie (`__Host-lendgate_operator`: HttpOnly, Secure, SameSite=Strict, ' +
      'for `OPERATOR_SESSION_MINUTES`) and carries its `csrf_token`. A wrong e-mail, a wrong password and a disabled operator are one `invalid_credentials`. ' +
      'Failed sign-ins are limited per client address (`sign_in`) and per e-mail over 15 minutes (`sign_in_account`); a right password never counts. Writes an `operator.signed_in` audit event.',
    {
      body: 'SignInInput',
      errors: [
        sample('InvalidCredentials'),
        documented(
          { _tag: 'RateLimitExceeded', policy: 'sign_in_account', limit: 10, windowSeconds: 900, retryAfterSeconds: 600 },
          'Failed sign-ins to this e-mail (`sign_in_account`) or from this client address (`sign_in`) are used up: every attempt is refused, a right password too, until the window ends.',
        ),
      ],
    },
  ),
  getOperatorSession: doc('console', 'Read the console session', 'The signed-in operator, the session\'s end and its `csrf_token` (for a page that was reloaded). Takes the session cookie only.'),
  signOutOperator: doc('console', 'Sign out of the console', 'Ends the session now and clears its cookie; the session can never be used again. Takes the session cookie and its `X-CSRF-Token`.'),
  listAuditEvents: doc('audit', 'List the audit log', 'Audit events newest first, filtered by any of action, subject, API client and party.', {
    list: true,
    query: AuditEventFilters,
  }),
}

/** The documentation of `operationId`, or undefined for an id the route table lacks. */
export const operationDocOf = (operationId: string): OperationDoc | undefined => (OPERATION_DOCS as Readonly<Record<string, OperationDoc | undefined>>)[operationId]

/** The codec of `operationId`'s request body, or undefined when it takes none. */
export const bodyCodecOf = (operationId: string): t.Mixed | undefined => {
  const name = operationDocOf(operationId)?.body
  return name === undefined ? undefined : REQUEST_BODIES[name]
}
