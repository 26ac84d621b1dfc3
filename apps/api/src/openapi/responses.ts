import {
  OPERATOR_ROLES,
  type OperatorSessionView,
  type OperatorView,
  type AchFileView,
  type AchInboundFileView,
  type CategoryRateView,
  type ReturnRateReportView,
  type DelinquencySummaryView,
  type AchNoticeView,
  type AchOriginationRunView,
  type AchReturnView,
  ADDRESS_TYPES,
  AUDIT_ACTIONS,
  AUDIT_SUBJECT_TYPES,
  APPLICATION_STATUSES,
  COLLATERAL_TYPES,
  CONTACT_CHANNELS,
  DOCUMENT_TYPES,
  ENTRY_CHANNELS,
  INSTALLMENT_STATUSES,
  KEY_ENVIRONMENTS,
  KNOWN_SCOPES,
  LEGAL_FORMS,
  LOAN_DOCUMENT_TYPES,
  LOAN_STATUSES,
  MAX_TERM_MONTHS,
  ONBOARDING_STATUSES,
  ONBOARDING_STEPS,
  REPAYMENT_FREQUENCIES,
  DAY_COUNTS,
  DELINQUENCY_BUCKETS,
  ENDPOINT_STATUSES,
  EVENT_TYPES,
  PREPAYMENT_MODES,
  SESSION_TYPES,
  TRANSACTION_TYPES,
  type AddressView,
  type ApiKeyView,
  type ApplicantProfileView,
  type AuditEventView,
  type autopayView,
  type balanceView,
  type payoffView,
  type collateralView,
  type ContactVerificationView,
  type DocumentView,
  type EndpointDeliveryView,
  type DeliveryRecordView,
  type DeliveryWithAttemptsView,
  type EventEndpointView,
  type EventType,
  type EventView,
  type installmentView,
  type JsonSchema,
  type loanDocumentView,
  type LoanApplicationView,
  type LoanProductView,
  type LoanView,
  type MintedKeyView,
  type OnboardingSessionView,
  type PartyView,
  type PaymentMethodView,
  type paymentView,
  type Requirement,
  type reviewView,
  type reviewDetailView,
  type operatorRequestView,
  type actionPreviewView,
  type entryView,
  OPERATOR_REQUEST_KINDS,
  OPERATOR_REQUEST_STATES,
  type SchedulePreview,
  type transactionView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookEventView,
  type TestClockView,
  type WipedTestDataView,
} from '@lendgate/core'
import type { OperationId } from '../routes/operations.js'

/**
 * JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of every success body (issue 7):
 * the named component schemas, one per view function of @lendgate/core, and for each
 * operation of the route table the schema of what it answers on success.
 *
 * Each object schema lists every field its view returns, all required unless the view (or an
 * idempotent replay) can leave it out, and refuses any other. The compiler checks the field
 * names against the view's type: a field added to or removed from a view fails the typecheck
 * until its schema follows.
 */

// ---- building blocks ----------------------------------------------------------------------

type Keys<V> = Extract<keyof V, string>

/**
 * The schema of the object a view returns: `properties` must name exactly the keys of `V`
 * (the compiler refuses a missing or an unknown one); all are required but `optional`.
 */
const objectOf =
  <V>() =>
  <const P extends { readonly [K in Keys<V>]-?: JsonSchema }>(
    description: string,
    properties: P & { readonly [K in Exclude<keyof P, Keys<V>>]: never },
    optional: readonly Keys<V>[] = [],
  ): JsonSchema => ({
    type: 'object',
    description,
    required: Object.keys(properties).filter((key) => !(optional as readonly string[]).includes(key)),
    additionalProperties: false,
    properties,
  })

/** `schema` or null (for objects and references; scalars use a type list). */
const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] })

const enumOf = (values: readonly string[], description?: string): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...(description === undefined ? {} : { description }),
})
const nullableEnumOf = (values: readonly string[], description?: string): JsonSchema => ({
  type: ['string', 'null'],
  enum: [...values, null],
  ...(description === undefined ? {} : { description }),
})

const uuid: JsonSchema = { type: 'string', format: 'uuid' }
const nullableUuid: JsonSchema = { type: ['string', 'null'], format: 'uuid' }
const string: JsonSchema = { type: 'string' }
const nullableString: JsonSchema = { type: ['string', 'null'] }
const boolean: JsonSchema = { type: 'boolean' }
const timestamp: JsonSchema = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' }
const nullableTimestamp: JsonSchema = { type: ['string', 'null'], format: 'date-time', description: 'ISO 8601 UTC with milliseconds' }
const date: JsonSchema = { type: 'string', format: 'date' }
const nullableDate: JsonSchema = { type: ['string', 'null'], format: 'date' }
const currency: JsonSchema = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' }
const country: JsonSchema = { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' }
const integer = (description?: string, range: { readonly minimum?: number; readonly maximum?: number } = {}): JsonSchema => ({
  type: 'integer',
  ...range,
  ...(description === undefined ? {} : { description }),
})
const nullableInteger = (description?: string, range: { readonly minimum?: number; readonly maximum?: number } = {}): JsonSchema => ({
  type: ['integer', 'null'],
  ...range,
  ...(description === undefined ? {} : { description }),
})
/** An amount of money in minor units of the record's currency. */
const minor = (description = 'minor units', minimum?: number): JsonSchema => ({
  ...integer(description, minimum === undefined ? {} : { minimum }),
  format: 'int64',
})
const count = (description?: string): JsonSchema => integer(description, { minimum: 0 })
const basisPoints = (description: string): JsonSchema => integer(description, { minimum: 0, maximum: 10_000 })
const termMonths: JsonSchema = integer('months', { minimum: 1, maximum: MAX_TERM_MONTHS })

/**
 * A union of named schemas told apart by `property`: a `oneOf` of references with an OpenAPI
 * `discriminator` mapping each value of `property` to its branch. Each branch is a whole object
 * schema whose `property` is a `const`, so exactly one branch takes a body.
 */
const unionOf = (description: string, property: string, branches: Readonly<Record<string, string>>): JsonSchema => ({
  type: 'object',
  description,
  oneOf: [...new Set(Object.values(branches))].map((name) => ({ $ref: `#/components/schemas/${name}` })),
  discriminator: { propertyName: property, mapping: Object.fromEntries(Object.entries(branches).map(([value, name]) => [value, `#/components/schemas/${name}`])) },
})

/** Every scope a key can hold: the known scopes, `*`, and `<namespace>:*` of their namespaces. */
const SCOPE_VALUES = [...KNOWN_SCOPES, '*', ...[...new Set(KNOWN_SCOPES.map((scope) => scope.split(':')[0]))].map((ns) => `${ns}:*`)]
const scopes: JsonSchema = { type: 'array', items: enumOf(SCOPE_VALUES), minItems: 1, maxItems: 20, uniqueItems: true }
const keyStatus = enumOf(['active', 'revoked'])
const livemode: JsonSchema = {
  type: 'boolean',
  description: 'true for an object of the live world, false for one of the test world (test-mode keys); see Testing.',
}
/** An API key's `livemode`: its own world, whichever key lists or mints it. */
const keyLivemode: JsonSchema = { ...livemode, description: 'The key\'s own world: true for a live key, false for a test key' }
const keyPrefix: JsonSchema = { type: 'string', pattern: '^lgk_(live|test)_[0-9A-Za-z]{16}$', description: 'lgk_<environment>_<id>: not secret' }

const REQUIREMENT_CODES = [
  'phone_missing',
  'phone_unverified',
  'email_missing',
  'email_unverified',
  'applicant_profile_missing',
  'registered_address_missing',
] as const satisfies readonly Requirement['code'][]

const PAYMENT_STATUSES = ['SUCCEEDED', 'PENDING', 'SUBMITTED', 'SETTLED', 'RETURNED', 'FAILED', 'REVERSED'] as const satisfies readonly ReturnType<typeof paymentView>['status'][]
const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'discover', 'other'] as const

type Health = { readonly status: 'ok' }
type Ready = { readonly status: 'ready'; readonly database: 'up' }
/** A bank file of an origination run (inlined: the run is its only container). */
const ACH_FILE: JsonSchema = objectOf<AchFileView>()('A bank file of debits (NACHA): its figures once built; account numbers are never shown', {
  ach_file_id: uuid,
  run_key: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$', description: 'The cut-off it was made for, YYYY-MM-DDTHH:MM New York time' },
  status: enumOf(['claiming', 'posting', 'built', 'written', 'empty'], '`written`: in the outbox for the bank; `empty`: nothing was left to send; the others: being made'),
  name: { ...nullableString, description: 'The file name in the outbox, once built' },
  effective_entry_date: { ...date, description: 'The banking day the debits settle' },
  entry_count: nullableInteger('debit entries, once built', { minimum: 1 }),
  debit_total: { ...nullableInteger('the debits\' total in cents, once built', { minimum: 1 }), format: 'int64' },
  entry_hash: nullableInteger("the file control's entry hash, once built", { minimum: 0 }),
  sha256: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$', description: "The file's SHA-256, hex, once built" },
  created_at: timestamp,
  written_at: nullableTimestamp,
})

/** One category of a partner's returns (inlined: the return rates are its only container). */
const CATEGORY_RATE: JsonSchema = objectOf<CategoryRateView>()("One category of returns: how many, their ratio to the debits, and Nacha's threshold", {
  returns: count('returns of our debits received in the window'),
  rate: { type: ['number', 'null'], minimum: 0, description: 'returns ÷ debits (0.005 is 0.5 %); null without debits' },
  threshold: { type: 'number', description: "Nacha's threshold: 0.005 unauthorized, 0.03 administrative, 0.15 overall" },
  over: { ...boolean, description: 'The rate is past the threshold: the ODFI must act' },
})

type AccrualRunView = { readonly as_of: string; readonly loans_examined: number; readonly loans_changed: number; readonly accruals: number; readonly loans_failed: number }
type ReviewView = ReturnType<typeof reviewView>
type ReviewDetailView = ReturnType<typeof reviewDetailView>
type PaymentView = ReturnType<typeof paymentView>
type Allocation = NonNullable<PaymentView['allocation']>

/** The fields of a payment method that depend on its type: a bank account's or a card's, the other's null. */
type PaymentMethodBranchFields = { readonly [K in 'account_holder_name' | 'account_type' | 'brand' | 'exp_month' | 'exp_year']: JsonSchema }

/** The payment method of `type`: every field of the view, those of the other type null. */
const paymentMethodOf = (type: PaymentMethodView['type'], description: string, fields: PaymentMethodBranchFields): JsonSchema =>
  objectOf<PaymentMethodView>()(description, {
    payment_method_id: uuid,
    loan_id: uuid,
    type: { type: 'string', const: type },
    nickname: nullableString,
    is_default: { ...boolean, description: 'Exactly one payment method of a loan is its default' },
    status: enumOf(['active', 'blocked'], "`blocked`: the borrower's bank returned a debit with a code that forbids another (account closed, not authorized, …); it takes no payment. Add the account again with a new authorization"),
    last4: { type: 'string', pattern: '^\\d{4}$' },
    ...fields,
    created_at: timestamp,
    updated_at: timestamp,
  })

/** What a payment paid: past due first, then the current buckets (minor units). */
const ALLOCATION: JsonSchema = objectOf<Allocation>()('What the payment paid: past due first, then the current buckets (minor units)', {
  past_due: objectOf<Allocation['past_due']>()('Paid on installments past due', {
    fees: minor('minor units', 0),
    interest: minor('minor units', 0),
    principal: minor('minor units', 0),
  }),
  fees: minor('minor units', 0),
  interest: minor('minor units', 0),
  principal: minor('minor units', 0),
})

/** The payment of `status`: every field of the view, `allocation` and `failure_code` as that status has them. */
const paymentOf = (
  status: (typeof PAYMENT_STATUSES)[number],
  description: string,
  fields: { readonly allocation: JsonSchema; readonly failure_code: JsonSchema },
): JsonSchema =>
  objectOf<PaymentView>()(description, {
    payment_id: uuid,
    loan_id: uuid,
    status: { type: 'string', const: status },
    amount: minor('minor units', 1),
    currency,
    payment_method_id: uuid,
    ...fields,
    return_code:
      status === 'RETURNED'
        ? { type: 'string', pattern: '^R[0-9A-Z]{2}$', description: "The NACHA return reason code the borrower's bank gave, such as R01 (insufficient funds) or R02 (account closed)" }
        : { type: 'null', description: 'Set on a `RETURNED` bank debit only' },
    effective_date: date,
    created_at: timestamp,
  })

// ---- component schemas ----------------------------------------------------------------------


/** What the applicant profile and the party both say of the business (the tax id only masked). */
const PROFILE_FIELDS = {
    legal_name: string,
    trading_name: nullableString,
    legal_form: nullableEnumOf(LEGAL_FORMS),
    registration_number: nullableString,
    incorporation_date: nullableDate,
    industry_code: { type: ['string', 'null'], pattern: '^\\d{2,6}$', description: 'NAICS code' },
    website: nullableString,
    tax_id_masked: { type: ['string', 'null'], description: 'All but the last four characters replaced by *' },
}

/** The servicing rules of a product, frozen on each loan at booking (docs/servicing.md). */
const SERVICING_TERMS = {
  day_count: { ...enumOf(DAY_COUNTS), description: 'The day-count convention interest accrues by: `ACTUAL_365` counts calendar days in a 365-day year; `THIRTY_360` a 360-day year of twelve 30-day months' },
  prepayment: { ...enumOf(PREPAYMENT_MODES), description: 'What a prepayment does: REDUCE_TERM keeps the installment, REDUCE_INSTALLMENT keeps the term' },
  late_fee_flat: minor('minor units charged once on an installment still unpaid after the grace period', 0),
  late_fee_bps: basisPoints('basis points of what the late installment still owes, added to late_fee_flat'),
  late_fee_grace_days: integer('days after the due date before the late fee', { minimum: 0, maximum: 365 }),
  returned_payment_fee: minor("minor units charged when the borrower's bank returns a bank debit (a `RETURN_FEE` ledger entry; 0: none)", 0),
  time_zone: { type: 'string', description: 'The business time zone (IANA): start, due and posting dates and "today" are calendar dates there' },
} as const

/** The Truth in Lending figures of a schedule (docs/servicing.md "Disclosure"). */
const DISCLOSURE = orNull(
  objectOf<NonNullable<LoanView['disclosure']>>()('The Truth in Lending figures of the schedule (Regulation Z): the amount financed, the finance charge, the total of payments and the APR', {
    amount_financed: minor('principal − origination fee (a prepaid finance charge)'),
    finance_charge: minor('total_of_payments − amount_financed: interest and the origination fee'),
    total_of_payments: minor('the sum of the scheduled payments'),
    annual_percentage_rate: { type: 'string', pattern: '^[0-9]+\\.[0-9]{3}$', description: 'APR by Regulation Z Appendix J, percent with three decimals', examples: ['12.683'] },
  }),
)

/** A ledger entry's fields but its place in the ledger (`sequence`) and `created_at`: a Transaction's, and a LedgerEntry's. */
const ENTRY_FIELDS = {
  transaction_id: uuid,
  loan_id: uuid,
  type: enumOf(TRANSACTION_TYPES),
  effective_date: date,
  amount: minor('minor units, ≥ 0', 0),
  currency,
  principal: minor('signed change, minor units'),
  interest: minor('signed change, minor units'),
  fees: minor('signed change, minor units'),
  payment_id: { ...nullableUuid, description: 'The payment a PAYMENT entry records, or that a REVERSAL undoes' },
  reverses_transaction_id: { ...nullableUuid, description: 'The entry a REVERSAL reverses' },
} as const

/** An address; also within a party, where it carries no `livemode` of its own. */
const ADDRESS = objectOf<AddressView>()('A postal address of a session or a party', {
  address_id: uuid,
  type: enumOf(ADDRESS_TYPES),
  line1: string,
  line2: nullableString,
  city: string,
  region: nullableString,
  postal_code: string,
  country,
  created_at: timestamp,
  updated_at: timestamp,
})

/** An outstanding requirement; also within a `requirements_outstanding` error, where it carries no `livemode`. */
export const REQUIREMENT = objectOf<Requirement>()('An outstanding requirement of a session', {
  code: enumOf(REQUIREMENT_CODES),
  step: enumOf(ONBOARDING_STEPS),
  description: string,
})

/** What a webhook endpoint shows of itself (`EventEndpointView` but its one-time `secret`). */
const ENDPOINT_DELIVERY_FIELDS = {
  webhook_endpoint_id: uuid,
  event_id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$', description: "The event's `id`: the `webhook-id` of every attempt" },
  type: enumOf(EVENT_TYPES),
  status: enumOf(['pending', 'delivered', 'failed'], '`pending` until an attempt gets a 2xx (`delivered`) or the retry schedule runs out or the receiver answers 410 (`failed`)'),
  attempts: count('Attempts made so far'),
  next_attempt_at: { ...nullableTimestamp, description: 'When the next attempt is due while `pending`; null once delivered or failed' },
  last_error: { ...nullableString, description: 'Why the last attempt failed: `HTTP <status>` of the receiver, or the connection error; null when none was made or the last succeeded' },
  created_at: { ...timestamp, description: 'When the delivery was queued: as the event was written, or by a recovery' },
} as const

const DELIVERY_RECORD_FIELDS = {
  ...ENDPOINT_DELIVERY_FIELDS,
  url: { type: 'string', format: 'uri', description: "The endpoint's URL now" },
  api_client_id: { ...uuid, description: 'The API client that owns the endpoint' },
  party_id: { ...uuid, description: "The endpoint's owner's party" },
} as const

const ENDPOINT_FIELDS = {
  webhook_endpoint_id: uuid,
  url: { type: 'string', description: 'The https URL the events are POSTed to' },
  description: { ...nullableString, description: "For the partner's own records" },
  enabled_events: {
    type: 'array',
    items: enumOf(['*', ...EVENT_TYPES]),
    minItems: 1,
    maxItems: EVENT_TYPES.length + 1,
    uniqueItems: true,
    description: 'The event types the endpoint takes; `*` for all',
  },
  status: enumOf(ENDPOINT_STATUSES, '`enabled` receives; `disabled` is sent nothing, and no delivery is queued for it while it is (recover the window afterwards)'),
  previous_secret_expires_at: {
    ...nullableTimestamp,
    description: 'Until when the secret the last rotation replaced signs beside the current one (two signatures per delivery); null when no rotation kept one',
  },
  created_at: timestamp,
  updated_at: timestamp,
} as const

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

const APPLICANT_PROFILE = objectOf<ApplicantProfileView>()('The business applicant; the tax id is only ever shown masked', {
  ...PROFILE_FIELDS,
  updated_at: timestamp,
})

/** What a loan owes in a snapshot (an action's preview, before and after). */
const OWED = objectOf<ReturnType<typeof actionPreviewView>['before']>()('What the loan owes, in minor units', {
  as_of: date,
  principal_outstanding: minor(),
  interest_outstanding: minor(),
  fees_outstanding: minor(),
  past_due_amount: minor(),
  payoff_amount: minor(),
})

/** The fields of a session's review record, in the queue and on the session's page. */
const REVIEW_RECORD = {
  session_id: uuid,
  client_id: uuid,
  type: enumOf(SESSION_TYPES),
  country_of_incorporation: country,
  locale: { type: 'string', pattern: '^[a-z]{2,3}-[A-Z]{2}$' },
  status: enumOf(ONBOARDING_STATUSES),
  current_step: enumOf(ONBOARDING_STEPS),
  submitted_at: nullableTimestamp,
  party_id: { ...nullableUuid, description: 'The party created at approval' },
  review: orNull(
    objectOf<NonNullable<ReviewView['review']>>()('The internal decision', {
      decision: enumOf(['APPROVED', 'REJECTED']),
      reviewed_by: string,
      reason: { type: ['string', 'null'], description: 'Why it was rejected; null for an approval' },
      decided_at: timestamp,
    }),
  ),
  created_at: timestamp,
  updated_at: timestamp,
} as const

/** A contact of a session as a reviewer sees it. */
const REVIEWED_CONTACT = orNull(
  objectOf<NonNullable<ReviewDetailView['email']>>()('A contact and whether its code was confirmed', {
    value: string,
    verified: { type: 'boolean', description: 'Whether the applicant confirmed the code sent to it' },
    verified_at: nullableTimestamp,
  }),
)

const SCHEMAS = {
  Health: objectOf<Health>()('Liveness: the process is up', { status: { type: 'string', const: 'ok' } }),
  Ready: objectOf<Ready>()('Readiness: the database answers', { status: { type: 'string', const: 'ready' }, database: { type: 'string', const: 'up' } }),

  MintedKey: objectOf<MintedKeyView>()(
    'A freshly minted key. `api_key` is the only place the secret ever appears; an idempotent replay of the mint answers without it',
    {
      api_key: { type: 'string', pattern: '^lgk_(live|test)_[0-9A-Za-z]{16}_[0-9A-Za-z]{38,128}$', description: 'The secret key, shown once' },
      api_key_id: uuid,
      key_prefix: keyPrefix,
      party_id: uuid,
      client_id: uuid,
      client_name: string,
      environment: enumOf(KEY_ENVIRONMENTS),
      livemode: keyLivemode,
      scopes,
      status: keyStatus,
      created_at: timestamp,
    },
    ['api_key'],
  ),
  ApiKey: objectOf<ApiKeyView>()('The listing record of a key: never the secret nor its hash', {
    api_key_id: uuid,
    key_prefix: keyPrefix,
    status: keyStatus,
    environment: enumOf(KEY_ENVIRONMENTS),
    livemode: keyLivemode,
    scopes,
    created_at: timestamp,
    revoked_at: nullableTimestamp,
    last_used_at: { ...nullableTimestamp, description: 'Written in batches every few seconds, not per request' },
  }),

  OnboardingSession: objectOf<OnboardingSessionView>()('An onboarding session as its partner sees it', {
    session_id: uuid,
    type: enumOf(SESSION_TYPES),
    country_of_incorporation: country,
    entry_channel: enumOf(ENTRY_CHANNELS),
    locale: { type: 'string', pattern: '^[a-z]{2,3}-[A-Z]{2}$', description: 'language-region tag such as en-US' },
    status: enumOf(ONBOARDING_STATUSES),
    current_step: enumOf(ONBOARDING_STEPS, 'The step of the first outstanding requirement; REVIEW once none is outstanding'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  Address: ADDRESS,
  ApplicantProfile: APPLICANT_PROFILE,
  ContactVerification: {
    ...objectOf<ContactVerificationView>()(
      'Where the verification of a phone or email stands after a submit or retry: `pending` with the code just sent, or `verified` (nothing sent)',
      {
        session_id: uuid,
        channel: enumOf(CONTACT_CHANNELS),
        destination: { type: 'string', description: 'The phone number (E.164) or email address' },
        status: enumOf(['pending', 'verified']),
        expires_at: { ...nullableTimestamp, description: 'When the code just sent stops working; null when none was sent' },
        resend_available_at: { ...nullableTimestamp, description: 'When another code can be requested; null when none was sent' },
        current_step: enumOf(ONBOARDING_STEPS),
      },
    ),
    oneOf: [
      { type: 'object', required: ['status'], properties: { status: { const: 'pending' }, expires_at: { type: 'string' }, resend_available_at: { type: 'string' } } },
      { type: 'object', required: ['status'], properties: { status: { const: 'verified' }, expires_at: { type: 'null' }, resend_available_at: { type: 'null' } } },
    ],
  },
  Requirement: REQUIREMENT,
  Document: objectOf<DocumentView>()('Document metadata of an onboarding session (Lendgate stores where the file is, not the file)', {
    document_id: uuid,
    type: enumOf(DOCUMENT_TYPES),
    storage_ref: string,
    file_name: nullableString,
    content_type: nullableString,
    description: nullableString,
    created_at: timestamp,
  }),
  Party: objectOf<PartyView>()('The approved borrower; also the data of the party.ready webhook. The tax id is only ever shown masked', {
    party_id: uuid,
    session_id: uuid,
    type: enumOf(SESSION_TYPES),
    ...PROFILE_FIELDS,
    country_of_incorporation: country,
    email: { type: ['string', 'null'], format: 'email' },
    phone: { type: ['string', 'null'], pattern: '^\\+[1-9]\\d{7,14}$', description: 'E.164' },
    addresses: { type: 'array', items: ADDRESS },
    created_at: timestamp,
  }),

  WebhookEndpoint: objectOf<WebhookEndpointView>()(
    'The registration of the party.ready webhook; `webhook_secret` only when the server generated it, in that response only (not in an idempotent replay)',
    {
      session_id: uuid,
      webhook_url: string,
      webhook_secret: { type: 'string', pattern: '^whsec_', description: 'The generated signing secret, shown once' },
      created_at: timestamp,
      updated_at: timestamp,
    },
    ['webhook_secret'],
  ),
  WebhookEvent: objectOf<WebhookEventView>()('An outbound webhook event', {
    event_id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$', description: 'The webhook-id of every attempt' },
    type: { type: 'string', const: 'party.ready' },
    status: enumOf(['pending', 'delivered', 'failed']),
    attempts: count(),
    next_attempt_at: { ...nullableTimestamp, description: 'When the next attempt is due; null once delivered or failed' },
    created_at: timestamp,
  }),
  WebhookDelivery: objectOf<WebhookDeliveryView>()('An outbound webhook event and every attempt to deliver it', {
    event_id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$', description: 'The webhook-id of every attempt' },
    type: { type: 'string', const: 'party.ready' },
    status: enumOf(['pending', 'delivered', 'failed']),
    attempts: count(),
    next_attempt_at: { ...nullableTimestamp, description: 'When the next attempt is due; null once delivered or failed' },
    created_at: timestamp,
    attempt_log: {
      type: 'array',
      items: objectOf<WebhookDeliveryView['attempt_log'][number]>()('One delivery attempt', {
        attempt_number: integer(undefined, { minimum: 1 }),
        started_at: timestamp,
        duration_ms: count(),
        status_code: nullableInteger('The receiver\'s HTTP status; null when none was received'),
        error: nullableString,
      }),
    },
  }),

  EventEndpoint: objectOf<EventEndpointView>()(
    "A webhook endpoint of the partner's API client (see the Webhooks guide): where the events the client sees are POSTed, of the types it enables. " +
      'Never its secret, but `secret` in the answer that made one (a creation or rotation without `secret`), in that answer only (not in an idempotent replay)',
    { ...ENDPOINT_FIELDS, secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret the server generated, shown once: in this answer only' } },
    ['secret'],
  ),
  DeletedEventEndpoint: objectOf<Omit<EventEndpointView, 'secret'> & { readonly deleted: true }>()(
    'A webhook endpoint as it was when deleted: nothing more is sent to it, and its pending deliveries are gone',
    { ...ENDPOINT_FIELDS, deleted: { type: 'boolean', const: true } },
  ),
  EndpointDelivery: objectOf<EndpointDeliveryView>()('The delivery of an event to a webhook endpoint', ENDPOINT_DELIVERY_FIELDS),
  EndpointDeliveryRecord: objectOf<DeliveryRecordView>()("The delivery of an event to a partner's webhook endpoint, with the endpoint's URL, API client and party", DELIVERY_RECORD_FIELDS),
  EndpointDeliveryWithAttempts: objectOf<DeliveryWithAttemptsView>()("The delivery of an event to a partner's webhook endpoint and every attempt so far, oldest first", {
    ...DELIVERY_RECORD_FIELDS,
    attempt_log: {
      type: 'array',
      items: objectOf<DeliveryWithAttemptsView['attempt_log'][number]>()('One delivery attempt', {
        attempt_number: integer(undefined, { minimum: 1 }),
        url: { type: 'string', format: 'uri', description: 'Where this attempt was sent: the endpoint\'s URL at the time' },
        started_at: timestamp,
        duration_ms: count(),
        status_code: nullableInteger('The receiver\'s HTTP status; null when none was received'),
        error: nullableString,
      }),
    },
  }),
  EventRecovery: objectOf<{ readonly recovered: number }>()('What a recovery queued again', {
    recovered: count('How many events of the window were queued again for the endpoint (0 when none was left undelivered)'),
  }),

  ReviewRecord: objectOf<ReviewView>()('What reviewers see of an onboarding session', REVIEW_RECORD),
  ReviewDetail: objectOf<ReviewDetailView>()(
    'A session as a reviewer reads it before deciding: the review record, its contacts and whether each is verified, the applicant profile (tax id masked) and the addresses; documents are listed apart',
    {
      ...REVIEW_RECORD,
      entry_channel: enumOf(ENTRY_CHANNELS),
      email: REVIEWED_CONTACT,
      phone: REVIEWED_CONTACT,
      applicant_profile: orNull(APPLICANT_PROFILE),
      addresses: { type: 'array', items: ADDRESS },
    },
  ),

  OperatorRequest: objectOf<ReturnType<typeof operatorRequestView>>()(
    "A maker-checker request (decision 152): one operator asks for a payment reversal or a charge-off; another, holding `service_loans`, approves it (which carries it out) or rejects it",
    {
      operator_request_id: uuid,
      kind: enumOf(OPERATOR_REQUEST_KINDS),
      loan_id: uuid,
      payment_id: { ...nullableUuid, description: 'The payment to reverse; null for a charge-off' },
      reason: { type: 'string', description: 'Why the maker asks: kept in the audit event of the action' },
      state: enumOf(OPERATOR_REQUEST_STATES, '`PENDING` until decided; `APPROVED` once carried out, in the same transaction; `REJECTED` with nothing done'),
      requested_by: { ...uuid, description: 'The operator who asked' },
      requested_at: timestamp,
      decided_by: { ...nullableUuid, description: 'The operator who approved or rejected it' },
      decided_at: nullableTimestamp,
      rejection_reason: nullableString,
    },
  ),
  ActionPreview: objectOf<ReturnType<typeof actionPreviewView>>()(
    'What a payment reversal or a charge-off would do if carried out now, planned under the loan\'s lock and written nowhere: the loan\'s status and what it owes before and after, and the ledger entries it would post (money in minor units of `currency`)',
    {
      kind: enumOf(OPERATOR_REQUEST_KINDS),
      loan_id: uuid,
      payment_id: { ...nullableUuid, description: 'The payment to reverse; null for a charge-off' },
      currency,
      status_before: enumOf(LOAN_STATUSES),
      status_after: enumOf(LOAN_STATUSES),
      before: OWED,
      after: OWED,
      transactions: {
        type: 'array',
        description: 'The entries the action would post, in ledger order',
        items: objectOf<ReturnType<typeof entryView>>()('A ledger entry the action would post', { ...ENTRY_FIELDS, created_at: timestamp }),
      },
      payment: orNull(
        objectOf<NonNullable<ReturnType<typeof actionPreviewView>['payment']>>()('The payment a reversal would undo', {
          payment_id: uuid,
          amount: minor('what it paid, minor units', 1),
          effective_date: date,
        }),
      ),
      preview_version: { ...string, description: "What this preview was of (the loan's latest balance snapshot and the day the action would post): a checker approves with it, and a loan that moved since is refused" },
    },
  ),
  LoanProduct: objectOf<LoanProductView>()('A loan product of the catalogue; money in minor units of `currency`', {
    product_id: uuid,
    name: string,
    description: nullableString,
    currency,
    min_amount: minor('minor units', 1),
    max_amount: minor('minor units', 1),
    min_term_months: termMonths,
    max_term_months: termMonths,
    interest_rate_bps: basisPoints('annual rate in basis points'),
    origination_fee_bps: basisPoints('basis points of the principal'),
    repayment_frequency: enumOf(REPAYMENT_FREQUENCIES),
    ...SERVICING_TERMS,
    active: boolean,
    created_at: timestamp,
    updated_at: timestamp,
  }),
  LoanApplication: objectOf<LoanApplicationView>()('A loan application; pricing is copied from the product and frozen at submission', {
    application_id: uuid,
    party_id: uuid,
    product_id: uuid,
    status: enumOf(APPLICATION_STATUSES),
    amount: minor('minor units', 1),
    currency,
    term_months: termMonths,
    purpose: nullableString,
    interest_rate_bps: basisPoints('annual rate in basis points'),
    origination_fee_bps: basisPoints('basis points of the amount'),
    submitted_at: nullableTimestamp,
    decision: orNull(
      objectOf<NonNullable<LoanApplicationView['decision']>>()('The credit decision', {
        decision: enumOf(['APPROVED', 'DECLINED']),
        reason: { type: ['string', 'null'], description: 'Why it was declined; null for an approval' },
        decided_by: string,
        decided_at: timestamp,
      }),
    ),
    loan_id: { ...nullableUuid, description: 'The loan booked at approval' },
    created_at: timestamp,
    updated_at: timestamp,
  }),
  SchedulePreview: objectOf<SchedulePreview>()('The schedule the application\'s loan would have if booked on `start_date`; money in minor units', {
    application_id: uuid,
    currency,
    principal: minor('minor units', 1),
    interest_rate_bps: basisPoints('annual rate in basis points'),
    term_months: termMonths,
    start_date: date,
    payment_amount: minor('The level installment (the last one may differ by the rounding it absorbs)'),
    total_interest: minor(),
    total_of_payments: minor(),
    origination_fee: minor(),
    disbursed_amount: minor('principal − origination_fee'),
    disclosure: DISCLOSURE,
    installments: {
      type: 'array',
      items: objectOf<SchedulePreview['installments'][number]>()('One installment of the schedule', {
        number: integer(undefined, { minimum: 1 }),
        due_date: date,
        payment: minor(),
        principal: minor(),
        interest: minor(),
        balance_after: minor('principal outstanding after this installment'),
      }),
    },
  }),
  Loan: objectOf<LoanView>()('A booked loan; money in minor units of `currency`', {
    loan_id: uuid,
    party_id: uuid,
    application_id: uuid,
    product_id: uuid,
    status: enumOf(LOAN_STATUSES),
    currency,
    principal: minor('minor units', 1),
    interest_rate_bps: basisPoints('annual rate in basis points'),
    term_months: termMonths,
    payment_amount: minor('The level installment (the last one may differ by the rounding it absorbs)'),
    origination_fee: minor(),
    disbursed_amount: minor('principal − origination_fee'),
    start_date: date,
    first_due_date: date,
    maturity_date: { ...date, description: 'The contractual maturity: the last due date of the schedule as booked' },
    ...SERVICING_TERMS,
    days_past_due: integer('days since the oldest unpaid installment fell due, as of today in time_zone (0 when none is past due)', { minimum: 0 }),
    delinquency_bucket: { ...enumOf(DELINQUENCY_BUCKETS), description: 'CURRENT, or days past due 1–30, 31–60, 61–90, 90+' },
    charged_off_on: { ...nullableDate, description: 'The date the loan was charged off; null if it was not' },
    disclosure: DISCLOSURE,
    created_at: timestamp,
  }),
  Balance: objectOf<ReturnType<typeof balanceView>>()('A balance snapshot, written after every ledger change; money in minor units of `currency`', {
    balance_id: uuid,
    loan_id: uuid,
    as_of: date,
    currency,
    principal_outstanding: minor(),
    interest_outstanding: minor('accrued interest outstanding'),
    fees_outstanding: minor(),
    payoff_amount: minor(),
    past_due_amount: minor(),
    next_due_date: nullableDate,
    next_due_amount: { ...nullableInteger('minor units'), format: 'int64' },
    transaction_id: { ...uuid, description: 'The ledger entry after which the snapshot was taken' },
    sequence: integer('The latest snapshot has the highest sequence'),
    created_at: timestamp,
  }),
  Payoff: objectOf<ReturnType<typeof payoffView>>()('What pays the loan off on `as_of` (assuming no other payment before then); money in minor units', {
    loan_id: uuid,
    as_of: date,
    currency,
    principal: minor('principal outstanding'),
    interest: minor('interest accrued to as_of, unpaid'),
    fees: minor('fees assessed by as_of, unpaid'),
    payoff_amount: minor('principal + interest + fees: a payment of exactly this on as_of pays the loan off'),
    pending_amount: minor('bank debits accepted and not yet sent (`PENDING`), 0 when none: they count against the payoff, so while they are pending a payment of more than payoff_amount − pending_amount is refused (422 overpayment)', 0),
  }),
  Transaction: objectOf<ReturnType<typeof transactionView>>()(
    'An append-only ledger entry: `amount` is its size; `principal`, `interest` and `fees` the signed changes it makes to what is outstanding',
    {
      ...ENTRY_FIELDS,
      sequence: integer('Orders the whole ledger (entries written together share created_at)'),
      created_at: timestamp,
    },
  ),
  LedgerEntry: objectOf<Omit<ReturnType<typeof transactionView>, 'sequence'>>()(
    'A ledger entry as an event shows it (`loan.late_fee_assessed`): a Transaction without `sequence`, its place in the ledger, given on write',
    {
      ...ENTRY_FIELDS,
      created_at: timestamp,
    },
  ),
  Installment: objectOf<ReturnType<typeof installmentView>>()('An installment of a loan with its status as of today (in the loan\'s time zone); money in minor units of `currency`', {
    installment_number: integer(undefined, { minimum: 1 }),
    due_date: date,
    currency,
    principal_due: minor(),
    interest_due: minor('the projection until the due date, then the accrued interest'),
    fees_due: minor(),
    total_due: minor(),
    principal_paid: minor(),
    interest_paid: minor(),
    fees_paid: minor(),
    total_paid: minor(),
    interest_accrued: boolean,
    status: enumOf(INSTALLMENT_STATUSES),
  }),
  TestClock: objectOf<TestClockView>()(
    "A test-world party's own time (test mode): its requests read `frozen_time` as now, and an advance services its loans for each day it crosses",
    {
      test_clock_id: uuid,
      party_id: uuid,
      name: nullableString,
      frozen_time: { ...timestamp, description: "The party's now (ISO 8601 UTC with milliseconds)" },
      status: enumOf(['ready', 'advancing'], '`advancing` while an advance is under way: `frozen_time` moves a day at a time to `advancing_to`'),
      advancing_to: nullableTimestamp,
      created_at: timestamp,
    },
  ),
  TestDataWipe: objectOf<{ readonly deleted: WipedTestDataView }>()("What a wipe of the API client's test world deleted (test mode)", {
    deleted: objectOf<WipedTestDataView>()('How many records of each kind were deleted, with everything that hangs off them (addresses, documents, schedules, ledgers, payment methods, collateral)', {
      onboarding_sessions: count(),
      parties: count(),
      loan_applications: count(),
      loans: count(),
      payments: count(),
      events: count(),
      webhook_events: count(),
      test_clocks: count(),
    }),
  }),
  Collateral: objectOf<ReturnType<typeof collateralView>>()('A collateral item securing a loan', {
    collateral_id: uuid,
    loan_id: uuid,
    type: enumOf(COLLATERAL_TYPES),
    description: string,
    valuation: minor('minor units', 1),
    currency,
    lien_position: integer(undefined, { minimum: 1, maximum: 10 }),
    created_at: timestamp,
  }),
  LoanDocument: objectOf<ReturnType<typeof loanDocumentView>>()('Document metadata of a loan (statements, notices, disclosures…)', {
    document_id: uuid,
    loan_id: uuid,
    type: enumOf(LOAN_DOCUMENT_TYPES),
    period_start: nullableDate,
    period_end: nullableDate,
    storage_ref: string,
    file_name: nullableString,
    content_type: nullableString,
    created_at: timestamp,
  }),
  // Each union of a success body is a `oneOf` of named, mutually exclusive branches (a `const`
  // discriminator and every field of the view), so a generator (Prism's dynamic mock) fills one
  // branch in whole rather than mixing the fields of two (issue 58).
  PaymentMethod: unionOf('A bank account or card of a loan, by its `type`: never a full number, routing number or token', 'type', {
    bank_account: 'BankAccountPaymentMethod',
    card: 'CardPaymentMethod',
  } satisfies Record<PaymentMethodView['type'], string>),
  BankAccountPaymentMethod: paymentMethodOf('bank_account', 'A bank account of a loan: only the last four digits of its number, never its routing number or token', {
    account_holder_name: string,
    account_type: enumOf(['checking', 'savings']),
    brand: { type: 'null', description: 'Cards only' },
    exp_month: { type: 'null', description: 'Cards only' },
    exp_year: { type: 'null', description: 'Cards only' },
  }),
  CardPaymentMethod: paymentMethodOf('card', "A card of a loan, by the token of the partner's card vault: only its last four digits, never the token", {
    account_holder_name: { type: 'null', description: 'Bank accounts only' },
    account_type: { type: 'null', description: 'Bank accounts only' },
    brand: nullableEnumOf(CARD_BRANDS, 'null when the partner did not say'),
    exp_month: integer(undefined, { minimum: 1, maximum: 12 }),
    exp_year: integer(undefined, { minimum: 2000, maximum: 2100 }),
  }),
  LoanAutopay: objectOf<ReturnType<typeof autopayView>>()(
    "A loan's autopay: while it is on, each installment is debited from the loan's default payment method in an ACH file effective on its due date (or the next banking day)",
    {
      loan_id: uuid,
      enabled: { ...boolean, description: 'true while autopay is on' },
      enabled_at: { ...nullableTimestamp, description: 'When autopay was turned on (ISO 8601 UTC with milliseconds); null while it is off' },
    },
  ),
  Payment: unionOf(
    'A borrower payment, by its `status`: `allocation` and no `failure_code` once it is posted (and after it is undone); `failure_code` and no allocation when it failed; neither while a bank debit waits for its file. `PENDING`, `SUBMITTED`, `SETTLED` and `RETURNED` are the states of bank debits (ACH): in live mode, where the lender collects repayments by ACH, a payment from a bank account is accepted `PENDING`, sent in the lender\'s next file (`SUBMITTED`, posted that day) and `SETTLED` two banking days after its effective date, or `RETURNED` when the borrower\'s bank sends it back (`return_code` says why). Cards, test mode and lenders without ACH answer `SUCCEEDED` or `FAILED` at once',
    'status',
    {
      SUCCEEDED: 'SucceededPayment',
      PENDING: 'PendingPayment',
      SUBMITTED: 'SubmittedPayment',
      SETTLED: 'SettledPayment',
      RETURNED: 'ReturnedPayment',
      REVERSED: 'ReversedPayment',
      FAILED: 'FailedPayment',
    } satisfies Record<PaymentView['status'], string>,
  ),
  SucceededPayment: paymentOf('SUCCEEDED', 'A payment that settled: `allocation` says what it paid', { allocation: ALLOCATION, failure_code: { type: 'null' } }),
  PendingPayment: paymentOf('PENDING', 'A bank debit accepted and waiting for its file: nothing is posted yet, so it has no `allocation`', {
    allocation: { type: 'null' },
    failure_code: { type: 'null' },
  }),
  SubmittedPayment: paymentOf('SUBMITTED', "A bank debit sent to the borrower's bank in a file and posted on its `effective_date`, the day of the file: `allocation` says what it paid. Its bank may still return it", {
    allocation: ALLOCATION,
    failure_code: { type: 'null' },
  }),
  SettledPayment: paymentOf('SETTLED', 'A bank debit whose return window has passed: `allocation` says what it paid', { allocation: ALLOCATION, failure_code: { type: 'null' } }),
  ReturnedPayment: paymentOf('RETURNED', "A bank debit the borrower's bank returned (`return_code` says why): `allocation` is what it had paid, owed again since", {
    allocation: ALLOCATION,
    failure_code: { type: 'null' },
  }),
  ReversedPayment: paymentOf('REVERSED', 'A payment that settled and was then reversed (by an operator, or a test-mode return): `allocation` is what it had paid', {
    allocation: ALLOCATION,
    failure_code: { type: 'null' },
  }),
  FailedPayment: paymentOf('FAILED', 'A payment the processor refused: `failure_code` says why, and it paid nothing', {
    allocation: { type: 'null' },
    failure_code: { type: 'string', description: 'Why the processor refused it, such as insufficient_funds' },
  }),
  AccrualRun: objectOf<AccrualRunView>()('What a run of the interest accrual job did', {
    as_of: date,
    loans_examined: count(),
    loans_changed: count(),
    accruals: count('INTEREST_ACCRUAL entries posted'),
    loans_failed: count('loans skipped because servicing them failed (logged; tried again on the next run)'),
  }),
  AchOriginationRun: objectOf<AchOriginationRunView>()('An operator\'s origination run: the cut-off of the minute it was asked, and its file', {
    run_key: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$', description: 'YYYY-MM-DDTHH:MM, New York time' },
    outcome: enumOf(['completed', 'not_due', 'stopped', 'lease_lost'], '`completed`: this request made the file; `not_due`: the run of this minute was already made, or another process is making it'),
    file: { ...orNull(ACH_FILE), description: 'None while another process is still finishing an earlier run' },
  }),
  AchReturnRates: objectOf<ReturnRateReportView>()("Nacha's return rates per partner over a 60-day window", {
    from: { ...date, description: 'The first day of the window (New York)' },
    to: { ...date, description: 'The last day of the window, today (New York)' },
    clients: {
      type: 'array',
      description: 'Every API client with a debit effective or a return received in the window, by client_id',
      items: objectOf<ReturnRateReportView['clients'][number]>()("A partner's debits and return rates", {
        client_id: uuid,
        debits: count('debit entries of written files, effective in the window'),
        unauthorized: CATEGORY_RATE,
        administrative: CATEGORY_RATE,
        overall: CATEGORY_RATE,
      }),
    },
  }),
  DelinquencySummary: objectOf<DelinquencySummaryView>()("The portfolio's active loans by currency and delinquency bucket", {
    as_of: { ...timestamp, description: 'When it was read: each loan is judged on its today at this instant (its party\'s test clock in the test world)' },
    currencies: {
      type: 'array',
      description: 'One entry per currency with an active loan, by currency code; empty when there is none',
      items: objectOf<DelinquencySummaryView['currencies'][number]>()("One currency's active loans by bucket", {
        currency,
        buckets: {
          type: 'array',
          description: 'Every bucket, in order: CURRENT, DPD_1_30, DPD_31_60, DPD_61_90, DPD_90_PLUS',
          minItems: DELINQUENCY_BUCKETS.length,
          maxItems: DELINQUENCY_BUCKETS.length,
          items: objectOf<DelinquencySummaryView['currencies'][number]['buckets'][number]>()("A bucket's active loans and their latest snapshots' sums", {
            bucket: enumOf(DELINQUENCY_BUCKETS),
            loans: count('active loans in the bucket'),
            principal_outstanding: minor('principal outstanding of their latest snapshots, summed', 0),
            past_due_amount: minor('past-due amount of their latest snapshots, summed', 0),
          }),
        },
      }),
    },
  }),
  AchInboundFile: objectOf<AchInboundFileView>()('A file the bank sent back, as ingested: what became of each return and notice of change. Account numbers are never shown', {
    inbound_file_id: uuid,
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "The SHA-256 of the file's text (hex): the same file sent again is this one" },
    status: enumOf(['ingesting', 'ingested'], '`ingesting`: a run stopped half-way; send the file again to finish it'),
    received_at: timestamp,
    returns: {
      ...orNull({
        type: 'array',
        items: objectOf<AchReturnView>()('A return of the file, in file order', {
          record: integer('its entry detail record, 1-based line in the file', { minimum: 1 }),
          original_trace: { type: 'string', pattern: '^\\d{15}$', description: 'The trace number of the debit returned' },
          return_code: { type: 'string', description: 'R01, R02, … as the file has it' },
          amount: minor('cents, as the return entry has it', 0),
          payment_id: { ...orNull(uuid), description: 'The payment of the debit it matched; null when unmatched' },
          outcome: enumOf(
            ['applied', 'loan_charged_off', 'already_reversed', 'duplicate', 'not_sent', 'unmatched'],
            '`applied`: the payment is `RETURNED`; `loan_charged_off`: `RETURNED`, nothing posted (the loan is written off); `already_reversed`: an operator had reversed it; `duplicate`: applied before, from this file or another; `not_sent`: the debit never went in a file; `unmatched`: no debit of ours has this trace number',
          ),
          late: { ...boolean, description: "Received after its code's return window: applied all the same, to be looked at with the bank" },
        }),
      }),
      description: 'null while ingesting',
    },
    notices: {
      ...orNull({
        type: 'array',
        items: objectOf<AchNoticeView>()('A notice of change of the file, in file order: never its corrected data (an account number is a secret)', {
          record: integer('its entry detail record, 1-based line in the file', { minimum: 1 }),
          original_trace: { type: 'string', pattern: '^\\d{15}$', description: 'The trace number of the debit the bank corrects' },
          change_code: { type: 'string', description: 'C01, C02, … as the file has it' },
          payment_method_id: { ...orNull(uuid), description: 'The payment method of the debit it matched; null when unmatched' },
          outcome: enumOf(
            ['applied', 'duplicate', 'unsupported', 'method_blocked', 'unmatched'],
            "`applied`: the payment method's account is corrected (numbers, `last4`, `account_type`) and audited; `duplicate`: another file's notice of this debit was applied; `unsupported`: a change code not applied, corrected data that does not read, or a number the account does not keep (`detail` says which); `method_blocked`: the method takes no debit any more; `unmatched`: no debit of ours has this trace number",
          ),
          detail: { ...nullableString, description: 'Why it is `unsupported`, for an operator' },
        }),
      }),
      description: 'null while ingesting',
    },
    others: {
      ...orNull({
        type: 'array',
        items: objectOf<NonNullable<AchInboundFileView['others']>[number]>()('An entry that is neither a return nor a notice: reported, not applied', {
          record: integer(undefined, { minimum: 1 }),
          trace_number: { type: 'string', pattern: '^\\d{15}$' },
          amount: minor('cents', 0),
        }),
      }),
      description: 'null while ingesting',
    },
  }),

  AuditEvent: objectOf<AuditEventView>()('One entry of the append-only audit log (docs/api.md "Audit log")', {
    audit_event_id: uuid,
    occurred_at: timestamp,
    actor: {
      oneOf: [
        { type: 'object', required: ['type'], additionalProperties: false, properties: { type: { enum: ['operator', 'system'] } }, description: 'The holder of the mint secret or internal token (or the CLI), or the service itself' },
        { type: 'object', required: ['type', 'id'], additionalProperties: false, properties: { type: { const: 'operator' }, id: uuid }, description: 'A named operator signed in to the console, by its operator_id' },
        { type: 'object', required: ['type', 'id'], additionalProperties: false, properties: { type: { const: 'api_key' }, id: string }, description: 'A partner key, by its api_key_id' },
      ],
    },
    action: enumOf(AUDIT_ACTIONS),
    subject: {
      type: 'object',
      description: 'What the action was done to',
      required: ['type', 'id'],
      additionalProperties: false,
      properties: { type: enumOf(AUDIT_SUBJECT_TYPES), id: uuid },
    },
    api_client_id: { ...nullableUuid, description: 'The API client the change concerns' },
    party_id: { ...nullableUuid, description: 'The party the change concerns' },
    request_id: { ...nullableString, description: 'The X-Request-Id of the request; null outside HTTP (the operator CLI, jobs)' },
    details: { type: 'object', description: 'What the action decided, by action (never a secret)', additionalProperties: true },
  }),

  OperatorSession: objectOf<OperatorSessionView>()("The signed-in operator's console session (decision 149); its token is the cookie, never in a body", {
    session_id: uuid,
    operator: objectOf<OperatorView>()('A named operator', {
      operator_id: uuid,
      email: { type: 'string', format: 'email' },
      role: enumOf(OPERATOR_ROLES, 'What the operator may do: each internal route names the permission it needs, and which roles hold it'),
      created_at: timestamp,
      disabled_at: { ...nullableTimestamp, description: 'Always null here: a disabled operator has no session' },
    }),
    expires_at: { ...timestamp, description: 'When the session ends; sign in again then' },
    csrf_token: { type: 'string', description: 'Send it as `X-CSRF-Token` with every request of this session that changes something' },
  }),
  SignedOut: {
    type: 'object',
    description: 'The session that ended',
    required: ['session_id', 'signed_out'],
    additionalProperties: false,
    properties: { session_id: uuid, signed_out: { const: true } },
  },
} as const satisfies Record<string, JsonSchema>

export type ResponseSchemaName = keyof typeof SCHEMAS | keyof typeof EVENT_SCHEMAS

/** The schemas of no world: the probes' bodies. Every other schema is of a resource. */
const WORLDLESS: readonly (keyof typeof SCHEMAS)[] = ['Health', 'Ready', 'OperatorSession', 'SignedOut']

/**
 * `schema` with the required `livemode` every resource of a success body carries (the routes
 * add it: http/livemode.ts); an API key's schema names it already, with its own description.
 */
const withLivemode = (schema: JsonSchema): JsonSchema => {
  // A union (`unionOf`) has no fields of its own: each of its branches is a resource schema.
  if (schema['properties'] === undefined) return schema
  const { required, properties } = schema as { readonly required: readonly string[]; readonly properties: Readonly<Record<string, JsonSchema>> }
  return { ...schema, required: [...new Set([...required, 'livemode'])], properties: { ...properties, livemode: properties['livemode'] ?? livemode } }
}

/** The component schemas as the responses carry them: each resource's with `livemode`. */
const RESOURCE_SCHEMAS: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  Object.entries(SCHEMAS).map(([name, schema]) => [name, WORLDLESS.includes(name as keyof typeof SCHEMAS) ? schema : withLivemode(schema)]),
)

// ---- success bodies by operation ---------------------------------------------------------

// ---- events ----------------------------------------------------------------------------------

/**
 * An event with the optional fields of `EventView` that `Has` names: `sequence` (events of a
 * loan) and `previous_attributes` (events of a change that moved fields of `data`).
 */
type EventOf<Has extends 'sequence' | 'previous_attributes' = never> = Omit<EventView, Exclude<'sequence' | 'previous_attributes', Has>>

/** The fields every event has, before `sequence` and `data`. */
const eventHead = (type: EventType) => ({
  id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$', description: 'The event\'s id: deduplicate by it (a webhook delivery of the event carries it as `webhook-id`)' },
  type: { type: 'string', const: type },
  livemode: { ...livemode, description: 'The event\'s world: true for the live world, false for the test world (as `data.livemode`)' },
  timestamp: { ...timestamp, description: 'When the change happened, ISO 8601 UTC with milliseconds (the Standard Webhooks name of `occurred_at`)' },
  occurred_at: { ...timestamp, description: 'When the change happened: the same instant as `timestamp`' },
})

/** `sequence` of an event of a loan (`loan.*`, `payment.*`). */
const LOAN_SEQUENCE = integer(
  "The event's place among its loan's events: 1 for the first, then one more for each, with no gap. Keep the highest applied per loan and drop an event with a lower one: it is stale",
  { minimum: 1 },
)

/** `previous_attributes` of an event that moved `status`, from `from`. */
const previousStatus = (...from: readonly [string, ...string[]]): JsonSchema =>
  objectOf<{ readonly status: string }>()('The fields of `data` the change moved, as they were before it', { status: from.length === 1 ? { type: 'string', const: from[0] } : enumOf(from) })

/** The schema of each event type (docs/events.md "The catalogue"), by its component name. */
const EVENT_TYPE_SCHEMAS = {
  PartyReadyEvent: objectOf<EventOf>()(
    '`party.ready`: an onboarding session was approved and its party created. `data` is the party as getPartyBySessionId answers it (with `livemode`). Also the body of the `party.ready` webhook',
    { ...eventHead('party.ready'), data: ref('Party') },
  ),
  ApplicationSubmittedEvent: objectOf<EventOf<'previous_attributes'>>()('`application.submitted`: a loan application was submitted for decisioning. `data` is the application', {
    ...eventHead('application.submitted'),
    data: ref('LoanApplication'),
    previous_attributes: previousStatus('DRAFT'),
  }),
  ApplicationDecidedEvent: objectOf<EventOf<'previous_attributes'>>()(
    '`application.decided`: a loan application was approved or declined. `data` is the application, its `decision` inside',
    { ...eventHead('application.decided'), data: ref('LoanApplication'), previous_attributes: previousStatus('SUBMITTED') },
  ),
  LoanBookedEvent: objectOf<EventOf<'sequence'>>()('`loan.booked`: approval booked the loan. `data` is the loan', {
    ...eventHead('loan.booked'),
    sequence: LOAN_SEQUENCE,
    data: ref('Loan'),
  }),
  PaymentSucceededEvent: objectOf<EventOf<'sequence'>>()('`payment.succeeded`: a payment settled. `data` is the payment, with its allocation', {
    ...eventHead('payment.succeeded'),
    sequence: LOAN_SEQUENCE,
    data: ref('SucceededPayment'),
  }),
  PaymentFailedEvent: objectOf<EventOf<'sequence'>>()('`payment.failed`: the processor declined a payment. `data` is the payment, with its `failure_code`', {
    ...eventHead('payment.failed'),
    sequence: LOAN_SEQUENCE,
    data: ref('FailedPayment'),
  }),
  PaymentReversedEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()(
    '`payment.reversed`: an operator reversed a payment, or a test-mode return did. `data` is the payment, `REVERSED`',
    { ...eventHead('payment.reversed'), sequence: LOAN_SEQUENCE, data: ref('ReversedPayment'), previous_attributes: previousStatus('SUCCEEDED', 'SETTLED') },
  ),
  PaymentSubmittedEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()(
    "`payment.submitted`: a bank debit went to the borrower's bank in a file and is posted, dated the day of the file. `data` is the payment, `SUBMITTED`, with its allocation",
    { ...eventHead('payment.submitted'), sequence: LOAN_SEQUENCE, data: ref('SubmittedPayment'), previous_attributes: previousStatus('PENDING') },
  ),
  PaymentSettledEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()(
    '`payment.settled`: a bank debit\'s return window passed. `data` is the payment, `SETTLED`',
    { ...eventHead('payment.settled'), sequence: LOAN_SEQUENCE, data: ref('SettledPayment'), previous_attributes: previousStatus('SUBMITTED') },
  ),
  PaymentReturnedEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()(
    "`payment.returned`: the borrower's bank returned a bank debit; what it paid is owed again. `data` is the payment, `RETURNED`, with its `return_code`",
    { ...eventHead('payment.returned'), sequence: LOAN_SEQUENCE, data: ref('ReturnedPayment'), previous_attributes: previousStatus('SUBMITTED', 'SETTLED') },
  ),
  LoanLateFeeAssessedEvent: objectOf<EventOf<'sequence'>>()(
    '`loan.late_fee_assessed`: servicing charged a late fee. `data` is the `LATE_FEE` ledger entry as the transactions route shows it, without `sequence`',
    { ...eventHead('loan.late_fee_assessed'), sequence: LOAN_SEQUENCE, data: ref('LedgerEntry') },
  ),
  LoanDelinquencyChangedEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()(
    "`loan.delinquency_changed`: the loan's delinquency bucket moved, in or out. `data` is the loan",
    {
      ...eventHead('loan.delinquency_changed'),
      sequence: LOAN_SEQUENCE,
      data: ref('Loan'),
      previous_attributes: objectOf<Pick<LoanView, 'days_past_due' | 'delinquency_bucket'>>()('Where the loan stood at its previous posting', {
        days_past_due: integer(undefined, { minimum: 0 }),
        delinquency_bucket: enumOf(DELINQUENCY_BUCKETS),
      }),
    },
  ),
  LoanPaidOffEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()('`loan.paid_off`: nothing is owed on the loan any more. `data` is the loan, `PAID_OFF`', {
    ...eventHead('loan.paid_off'),
    sequence: LOAN_SEQUENCE,
    data: ref('Loan'),
    previous_attributes: previousStatus('ACTIVE'),
  }),
  LoanChargedOffEvent: objectOf<EventOf<'sequence' | 'previous_attributes'>>()('`loan.charged_off`: an operator charged the loan off. `data` is the loan, `CHARGED_OFF`', {
    ...eventHead('loan.charged_off'),
    sequence: LOAN_SEQUENCE,
    data: ref('Loan'),
    previous_attributes: previousStatus('ACTIVE'),
  }),
} as const satisfies Record<string, JsonSchema>

/** The schema of each event type, by the type: every type of the catalogue has one. */
export const EVENT_SCHEMA_OF: { readonly [T in EventType]: keyof typeof EVENT_TYPE_SCHEMAS } = {
  'party.ready': 'PartyReadyEvent',
  'application.submitted': 'ApplicationSubmittedEvent',
  'application.decided': 'ApplicationDecidedEvent',
  'loan.booked': 'LoanBookedEvent',
  'payment.succeeded': 'PaymentSucceededEvent',
  'payment.failed': 'PaymentFailedEvent',
  'payment.reversed': 'PaymentReversedEvent',
  'payment.submitted': 'PaymentSubmittedEvent',
  'payment.settled': 'PaymentSettledEvent',
  'payment.returned': 'PaymentReturnedEvent',
  'loan.late_fee_assessed': 'LoanLateFeeAssessedEvent',
  'loan.delinquency_changed': 'LoanDelinquencyChangedEvent',
  'loan.paid_off': 'LoanPaidOffEvent',
  'loan.charged_off': 'LoanChargedOffEvent',
}

/**
 * The event schemas: one per type, and `Event`, any of them by `type`. Each carries its own
 * `livemode` (the event's world) and its `data` the resource's schema with its `livemode`, so
 * none goes through `withLivemode`.
 */
const EVENT_SCHEMAS = {
  ...EVENT_TYPE_SCHEMAS,
  Event: {
    type: 'object',
    description:
      'Something that happened to a resource of the partner: `data` is the resource as its own route answers it, as of the change; ' +
      '`previous_attributes` the fields of `data` the change moved, as they were; `sequence` orders the events of one loan. One schema per `type`',
    oneOf: EVENT_TYPES.map((type) => ref(EVENT_SCHEMA_OF[type])),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, `#/components/schemas/${EVENT_SCHEMA_OF[type]}`])),
    },
  },
} as const satisfies Record<string, JsonSchema>

/** The body of the `party.ready` webhook: the event as the event list shows it. */
export const PARTY_READY_EVENT: JsonSchema = EVENT_SCHEMAS.PartyReadyEvent

/** The items of every list route, by the name of their schema; each list's body is `<name>Page`. */
const LISTED = [
  'ApiKey',
  'Address',
  'Requirement',
  'WebhookDelivery',
  'Document',
  'LoanApplication',
  'LoanProduct',
  'Loan',
  'Balance',
  'Collateral',
  'Payment',
  'PaymentMethod',
  'Installment',
  'Transaction',
  'LoanDocument',
  'ReviewRecord',
  'OperatorRequest',
  'AuditEvent',
  'Event',
  'EventEndpoint',
  'EndpointDeliveryRecord',
] as const satisfies readonly ResponseSchemaName[]

/** The list envelope of every list route, named `<items>Page`. */
const PAGES: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  LISTED.map((items) => [
    `${items}Page`,
    {
      type: 'object',
      description: `A page of ${items} records: \`next_cursor\` asks for the next page, and is null on the last`,
      required: ['data', 'next_cursor'],
      additionalProperties: false,
      properties: {
        data: { type: 'array', items: ref(items) },
        next_cursor: { type: ['string', 'null'], description: 'Opaque; pass it as `cursor` for the next page. Null on the last page' },
      },
    },
  ]),
)

const page = (items: (typeof LISTED)[number]): JsonSchema => ref(`${items}Page`)

/** Bodies that pair two records. */
const PAIRS: Readonly<Record<string, JsonSchema>> = {
  SessionApproval: {
    type: 'object',
    description: 'The approved session and the party created from it',
    required: ['session', 'party'],
    additionalProperties: false,
    properties: { session: ref('ReviewRecord'), party: ref('Party') },
  },
  LoanApproval: {
    type: 'object',
    description: 'The approved application and the loan booked for it',
    required: ['application', 'loan'],
    additionalProperties: false,
    properties: { application: ref('LoanApplication'), loan: ref('Loan') },
  },
  ApprovedRequest: {
    type: 'object',
    description: 'An approved request and what its action made: the payment reversed (a reversal) or the loan charged off (a charge-off); the other is null',
    required: ['operator_request', 'payment', 'loan'],
    additionalProperties: false,
    properties: { operator_request: ref('OperatorRequest'), payment: orNull(ref('Payment')), loan: orNull(ref('Loan')) },
  },
  OpenApiDocument: {
    type: 'object',
    description: 'An OpenAPI 3.1 document',
    required: ['openapi', 'info', 'paths'],
    additionalProperties: true,
    properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
  },
}

/** The named response schemas, for `components.schemas`. */
export const RESPONSE_SCHEMAS: Readonly<Record<string, JsonSchema>> = { ...RESOURCE_SCHEMAS, ...EVENT_SCHEMAS, ...PAGES, ...PAIRS }

/** The success body of every operation of the route table, by operationId: a named schema each. */
export const SUCCESS_BODIES: Readonly<Record<OperationId, JsonSchema>> = {
  health: ref('Health'),
  healthReady: ref('Ready'),
  getOpenApiDocument: ref('OpenApiDocument'),
  getOperatorOpenApiDocument: ref('OpenApiDocument'),
  signInOperator: ref('OperatorSession'),
  getOperatorSession: ref('OperatorSession'),
  signOutOperator: ref('SignedOut'),

  mintApiKey: ref('MintedKey'),
  listApiKeys: page('ApiKey'),
  revokeApiKey: ref('ApiKey'),

  createOnboardingSession: ref('OnboardingSession'),
  getOnboardingSession: ref('OnboardingSession'),
  listOnboardingAddresses: page('Address'),
  createOnboardingAddress: ref('Address'),
  updateOnboardingAddress: ref('Address'),
  upsertApplicantProfile: ref('ApplicantProfile'),
  submitOnboardingEmail: ref('ContactVerification'),
  retryOnboardingEmailVerification: ref('ContactVerification'),
  verifyOnboardingEmail: ref('OnboardingSession'),
  submitOnboardingPhone: ref('ContactVerification'),
  retryOnboardingPhoneVerification: ref('ContactVerification'),
  verifyOnboardingPhone: ref('OnboardingSession'),
  listPendingOnboardingRequirements: page('Requirement'),
  submitOnboardingForReview: ref('OnboardingSession'),
  getPartyBySessionId: ref('Party'),
  registerOnboardingSessionWebhook: ref('WebhookEndpoint'),
  listOnboardingSessionWebhookDeliveries: page('WebhookDelivery'),
  retryOnboardingSessionWebhookDelivery: ref('WebhookEvent'),
  listDocumentsForOnboardingSession: page('Document'),
  createOnboardingDocumentMetadata: ref('Document'),

  getParty: ref('Party'),
  listPartyAddresses: page('Address'),
  createPartyAddress: ref('Address'),
  updatePartyAddress: ref('Address'),
  listPartyApplications: page('LoanApplication'),
  listAvailableLoanProductsForParty: page('LoanProduct'),

  createLoanApplication: ref('LoanApplication'),
  getLoanApplication: ref('LoanApplication'),
  updateLoanApplication: ref('LoanApplication'),
  submitLoanApplication: ref('LoanApplication'),
  withdrawLoanApplication: ref('LoanApplication'),
  previewLoanApplicationSchedule: ref('SchedulePreview'),

  listLoansForParty: page('Loan'),
  getLoanForParty: ref('Loan'),
  listLoanBalancesForParty: page('Balance'),
  getLatestLoanBalanceForParty: ref('Balance'),
  listCollateralForPartyLoan: page('Collateral'),
  listPaymentsForPartyLoan: page('Payment'),
  getLoanPayoffForParty: ref('Payoff'),
  listPaymentMethodsForPartyLoan: page('PaymentMethod'),
  createPaymentMethodForPartyLoan: ref('PaymentMethod'),
  updatePaymentMethodForPartyLoan: ref('PaymentMethod'),
  getLoanAutopayForParty: ref('LoanAutopay'),
  setLoanAutopayForParty: ref('LoanAutopay'),
  createPaymentIntentForPartyLoan: ref('Payment'),
  listLoanScheduleForParty: page('Installment'),
  listTransactionsForPartyLoan: page('Transaction'),
  listDocumentsForPartyLoan: page('LoanDocument'),

  listEvents: page('Event'),
  createWebhookEndpoint: ref('EventEndpoint'),
  listWebhookEndpoints: page('EventEndpoint'),
  getWebhookEndpoint: ref('EventEndpoint'),
  updateWebhookEndpoint: ref('EventEndpoint'),
  deleteWebhookEndpoint: ref('DeletedEventEndpoint'),
  rotateWebhookEndpointSecret: ref('EventEndpoint'),
  resendWebhookEvent: ref('EndpointDelivery'),
  recoverWebhookEvents: ref('EventRecovery'),

  simulateOnboardingApproval: ref('SessionApproval'),
  simulateOnboardingRejection: ref('ReviewRecord'),
  simulateApplicationApproval: ref('LoanApproval'),
  simulateApplicationDecline: ref('LoanApplication'),
  simulatePaymentReturn: ref('Payment'),
  createTestClock: ref('TestClock'),
  getTestClock: ref('TestClock'),
  advanceTestClock: ref('TestClock'),
  wipeTestData: ref('TestDataWipe'),

  listOnboardingSessionsForReview: page('ReviewRecord'),
  approveOnboardingSession: ref('SessionApproval'),
  rejectOnboardingSession: ref('ReviewRecord'),
  getOnboardingSessionForReview: ref('ReviewDetail'),
  listOnboardingDocumentsForReview: page('Document'),
  listLoanApplicationsForReview: page('LoanApplication'),
  getLoanApplicationForReview: ref('LoanApplication'),
  previewLoanApplicationScheduleForReview: ref('SchedulePreview'),
  listLoans: page('Loan'),
  getLoan: ref('Loan'),
  listLoanSchedule: page('Installment'),
  listLoanTransactions: page('Transaction'),
  listLoanPayments: page('Payment'),
  listLoanBalances: page('Balance'),
  askOperatorRequest: ref('OperatorRequest'),
  listOperatorRequests: page('OperatorRequest'),
  previewOperatorAction: ref('ActionPreview'),
  getOperatorRequest: ref('OperatorRequest'),
  previewOperatorRequest: ref('ActionPreview'),
  approveOperatorRequest: ref('ApprovedRequest'),
  rejectOperatorRequest: ref('OperatorRequest'),
  listWebhookDeliveries: page('EndpointDeliveryRecord'),
  getWebhookDelivery: ref('EndpointDeliveryWithAttempts'),
  retryEndpointWebhookDelivery: ref('EndpointDelivery'),
  approveLoanApplication: ref('LoanApproval'),
  declineLoanApplication: ref('LoanApplication'),
  accrueInterest: ref('AccrualRun'),
  originateAchFile: ref('AchOriginationRun'),
  ingestAchInboundFile: ref('AchInboundFile'),
  getAchReturnRates: ref('AchReturnRates'),
  getDelinquencySummary: ref('DelinquencySummary'),
  getAchInboundFile: ref('AchInboundFile'),
  addLoanCollateral: ref('Collateral'),
  attachLoanDocument: ref('LoanDocument'),
  reverseLoanPayment: ref('Payment'),
  chargeOffLoan: ref('Loan'),
  listLoanProducts: page('LoanProduct'),
  createLoanProduct: ref('LoanProduct'),
  updateLoanProduct: ref('LoanProduct'),
  listAuditEvents: page('AuditEvent'),
}

const pin = (says: string, properties: Record<string, JsonSchema>): { readonly says: string; readonly schema: JsonSchema } => ({
  says,
  schema: { type: 'object', properties },
})

/**
 * What an operation always answers beyond its schema (the status it leaves a record in, a field
 * it always fills), as a schema the body must also match. The document says it in the success
 * response's description; the HTTP suites check every success body against it.
 */
const APPROVED_SESSION = pin('The session is `APPROVED`, with its `party_id` and `review`.', {
  session: { properties: { status: { const: 'APPROVED' }, party_id: { type: 'string' }, review: { type: 'object' } } },
})
const REJECTED_SESSION = pin('The session is `REJECTED`, with its `review`.', { status: { const: 'REJECTED' }, review: { type: 'object' } })
const APPROVED_APPLICATION = pin('The application is `APPROVED` with its `decision` and `loan_id`; the loan is `ACTIVE`.', {
  application: { properties: { status: { const: 'APPROVED' }, decision: { type: 'object' }, loan_id: { type: 'string' } } },
  loan: { properties: { status: { const: 'ACTIVE' } } },
})
const DECLINED_APPLICATION = pin('The application is `DECLINED`, with its `decision`.', { status: { const: 'DECLINED' }, decision: { type: 'object' } })
const REVERSED_PAYMENT = pin('The payment is `REVERSED`.', { status: { const: 'REVERSED' } })

export const SUCCESS_PINS: Readonly<Partial<Record<OperationId, { readonly says: string; readonly schema: JsonSchema }>>> = {
  mintApiKey: pin('The key is `active`.', { status: { const: 'active' } }),
  revokeApiKey: pin('The key is `revoked`, with `revoked_at`.', { status: { const: 'revoked' }, revoked_at: { type: 'string' } }),
  createOnboardingSession: pin('The session is `IN_PROGRESS` at `PHONE_VERIFICATION`.', { status: { const: 'IN_PROGRESS' }, current_step: { const: 'PHONE_VERIFICATION' } }),
  submitOnboardingEmail: pin('`channel` is `email`.', { channel: { const: 'email' } }),
  retryOnboardingEmailVerification: pin('`channel` is `email`, `status` `pending`.', { channel: { const: 'email' }, status: { const: 'pending' } }),
  verifyOnboardingEmail: pin('The session is `IN_PROGRESS`.', { status: { const: 'IN_PROGRESS' } }),
  submitOnboardingPhone: pin('`channel` is `phone`.', { channel: { const: 'phone' } }),
  retryOnboardingPhoneVerification: pin('`channel` is `phone`, `status` `pending`.', { channel: { const: 'phone' }, status: { const: 'pending' } }),
  verifyOnboardingPhone: pin('The session is `IN_PROGRESS`.', { status: { const: 'IN_PROGRESS' } }),
  listPendingOnboardingRequirements: pin('`next_cursor` is always null: the requirements fit one page.', { next_cursor: { type: 'null' } }),
  submitOnboardingForReview: pin('The session is `SUBMITTED` at `REVIEW`.', { status: { const: 'SUBMITTED' }, current_step: { const: 'REVIEW' } }),
  listAvailableLoanProductsForParty: pin('Every product is `active`.', { data: { items: { properties: { active: { const: true } } } } }),
  createLoanApplication: pin('The application is `DRAFT`.', { status: { const: 'DRAFT' } }),
  updateLoanApplication: pin('The application is `DRAFT`.', { status: { const: 'DRAFT' } }),
  submitLoanApplication: pin('The application is `SUBMITTED`.', { status: { const: 'SUBMITTED' } }),
  withdrawLoanApplication: pin('The application is `WITHDRAWN`.', { status: { const: 'WITHDRAWN' } }),
  approveOnboardingSession: pin('The session is `APPROVED`, with its `party_id` and `review`.', {
    session: { properties: { status: { const: 'APPROVED' }, party_id: { type: 'string' }, review: { type: 'object' } } },
  }),
  rejectOnboardingSession: pin('The session is `REJECTED`, with its `review`.', { status: { const: 'REJECTED' }, review: { type: 'object' } }),
  approveLoanApplication: pin('The application is `APPROVED` with its `decision` and `loan_id`; the loan is `ACTIVE`.', {
    application: { properties: { status: { const: 'APPROVED' }, decision: { type: 'object' }, loan_id: { type: 'string' } } },
    loan: { properties: { status: { const: 'ACTIVE' } } },
  }),
  declineLoanApplication: pin('The application is `DECLINED`, with its `decision`.', { status: { const: 'DECLINED' }, decision: { type: 'object' } }),
  createTestClock: pin('The clock is `ready`.', { status: { const: 'ready' } }),
  createWebhookEndpoint: pin('The endpoint is `enabled`.', { status: { const: 'enabled' } }),
  resendWebhookEvent: pin('The delivery is `pending`, due now.', { status: { const: 'pending' } }),
  reverseLoanPayment: pin('The payment is `REVERSED`.', { status: { const: 'REVERSED' } }),
}
