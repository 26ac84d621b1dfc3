import type { ColumnType, Generated, GeneratedAlways } from 'kysely'
import type {
  AddressId, ApiKeyId, ClientId, DocumentId, EndpointId, EventId, LoanId, OperatorId, OperatorRequestId, OperatorRequestKind, OperatorRequestState, OperatorRole, OperatorSessionId, PartyId,
  PaymentId, SessionId, TestClockId,
} from '@lendgate/core'
import type {
  LoanProductsTable, LoanApplicationsTable, LoansTable, LoanInstallmentsTable, LoanTransactionsTable, LoanBalancesTable, PaymentMethodsTable, BankAccountSecretsTable, PaymentsTable, CollateralItemsTable, LoanDocumentsTable,
  AchFilesTable, AchEntriesTable, AchTraceCounterTable, AchInboundFilesTable, AchReturnsTable, AchNoticesTable, AchSandboxFilesTable,
} from './lending-tables.js'

/**
 * Table types. Timestamps are written by the application clock (millisecond precision), never
 * by `now()` in SQL, so cursors built from them compare exactly. `int8` columns come back as
 * JavaScript numbers from both drivers (see database.ts). The lending tables are in
 * lending-tables.ts.
 */

export type ApiClientsTable = {
  id: ClientId
  party_id: PartyId
  name: string
  created_at: Date
}

export type ApiKeysTable = {
  id: ApiKeyId
  client_id: ClientId
  party_id: PartyId
  id_segment: string
  key_prefix: string
  key_hash: string
  environment: 'live' | 'test'
  scopes: string[]
  status: 'active' | 'revoked'
  created_at: Date
  revoked_at: Date | null
  last_used_at: Date | null
}

export type OnboardingSessionsTable = {
  id: SessionId
  client_id: ClientId
  type: string
  country_of_incorporation: string
  entry_channel: string
  locale: string
  status: string
  current_step: string
  phone: string | null
  phone_verified_at: Date | null
  email: string | null
  email_verified_at: Date | null
  /** The applicant profile as JSON (`ProfileJson` in onboarding-session-repository.ts). */
  profile: ColumnType<unknown, string | null, string | null>
  version: ColumnType<number, number | undefined, number>
  submitted_at: Date | null
  party_id: PartyId | null
  review_decision: 'APPROVED' | 'REJECTED' | null
  reviewed_by: string | null
  review_reason: string | null
  decided_at: Date | null
  created_at: Date
  updated_at: Date
}

export type PartiesTable = {
  id: PartyId
  session_id: SessionId
  client_id: ClientId
  type: string
  legal_name: string
  trading_name: string | null
  legal_form: string | null
  registration_number: string | null
  incorporation_date: string | null
  industry_code: string | null
  website: string | null
  tax_id: string | null
  country_of_incorporation: string
  email: string | null
  phone: string | null
  created_at: Date
}

/** Same columns as onboarding addresses, owned by a party. */
export type PartyAddressesTable = Omit<OnboardingAddressesTable, 'session_id'> & { party_id: PartyId }

export type OnboardingAddressesTable = {
  id: AddressId
  session_id: SessionId
  type: 'registered' | 'operating' | 'mailing'
  line1: string
  line2: string | null
  city: string
  region: string | null
  postal_code: string
  country: string
  created_at: Date
  updated_at: Date
}

export type IdempotencyKeysTable = {
  scope: string
  key: string
  fingerprint: string
  claimed_at: Date
  completed_at: Date | null
  status_code: number | null
  response_body: string | null
}

export type VerificationChallengesTable = {
  id: string
  session_id: SessionId
  channel: 'phone' | 'email'
  destination: string
  code_hash: string
  created_at: Date
  expires_at: Date
  attempts: number
  closed_at: Date | null
}

export type DocumentsTable = {
  id: DocumentId
  session_id: SessionId | null
  type: string
  storage_ref: string
  file_name: string | null
  content_type: string | null
  description: string | null
  created_at: Date
}

export type WebhookEndpointsTable = {
  session_id: SessionId
  url: string
  sealed_secret: string
  created_at: Date
  updated_at: Date
}

export type WebhookEventsTable = {
  id: EventId
  session_id: SessionId
  type: string
  body: string
  status: 'pending' | 'delivered' | 'failed'
  attempts: number
  next_attempt_at: Date
  created_at: Date
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  last_error: ColumnType<string | null, string | null | undefined, string | null>
}

export type WebhookAttemptsTable = {
  id: Generated<number>
  event_id: EventId
  attempt_number: number
  url: string
  started_at: Date
  duration_ms: number
  status_code: number | null
  error: string | null
}

/** Request counts per bucket and fixed window (rate limiting, issue 9). */
export type RateLimitsTable = {
  bucket: string
  window_start: Date
  window_end: Date
  count: number
}

/** When each instance sharing the synced rate limits last synced (migration 0015). */
export type RateLimitInstancesTable = {
  instance: string
  seen_at: Date
}

/** Leases on scheduled jobs and their latest completed runs (migration 0014). */
export type JobLeasesTable = {
  job: string
  run_key: string
  holder: string | null
  leased_until: Date | null
  progress: string | null
  completed_run_key: string | null
  completed_at: Date | null
}

/** Test clocks (migration 0018, decision 131). */
export type TestClocksTable = {
  id: TestClockId
  party_id: PartyId
  name: string | null
  frozen_time: Date
  advancing_to: Date | null
  leased_until: Date | null
  created_at: Date
}

/** The event log (migration 0019): `data` and `previous` are JSON text, kept as written. */
export type EventsTable = {
  seq: GeneratedAlways<number>
  id: EventId
  type: string
  party_id: PartyId
  client_id: ClientId | null
  loan_id: LoanId | null
  loan_sequence: number | null
  resource_id: string
  data: string
  previous: string | null
  created_at: Date
}

/** Partners' webhook endpoints (migration 0020): the secrets only sealed. */
export type EventEndpointsTable = {
  id: EndpointId
  client_id: ClientId
  party_id: PartyId
  url: string
  description: string | null
  enabled_events: string[]
  status: 'enabled' | 'disabled'
  sealed_secret: string
  previous_sealed_secret: string | null
  previous_secret_expires_at: Date | null
  created_at: Date
  updated_at: Date
}

/** One event for one endpoint (migration 0020), leased by delivery workers. */
export type EventDeliveriesTable = {
  id: GeneratedAlways<number>
  endpoint_id: EndpointId
  event_id: EventId
  status: 'pending' | 'delivered' | 'failed'
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Date
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  last_error: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Date
}

/** Every attempt of a delivery to an endpoint (migration 0020). */
export type EventDeliveryAttemptsTable = {
  id: GeneratedAlways<number>
  delivery_id: number
  attempt_number: number
  url: string
  started_at: Date
  duration_ms: number
  status_code: number | null
  error: string | null
}

/** The append-only audit log (migration 0012). `details` is JSON written as text, read back parsed. */
export type AuditEventsTable = {
  id: string
  occurred_at: Date
  actor_type: 'operator' | 'api_key' | 'system'
  actor_id: string | null
  action: string
  subject_type: string
  subject_id: string
  api_client_id: ClientId | null
  party_id: PartyId | null
  request_id: string | null
  details: ColumnType<unknown, string, never>
}

/** Named operators (migration 0029): shared by both worlds, in the live schema only. */
export type OperatorsTable = {
  id: OperatorId
  email: string
  role: OperatorRole
  /** Null for an operator without a password (single sign-on, later). */
  password_hash: string | null
  created_at: Date
  disabled_at: Date | null
}

/** Operators' console sessions: a session's token is kept only as its hash. */
export type OperatorSessionsTable = {
  id: OperatorSessionId
  operator_id: OperatorId
  token_hash: string
  created_at: Date
  expires_at: Date
  revoked_at: Date | null
}

/** Maker-checker requests (migration 0031, decision 152): records of their loan, in each world. */
export type OperatorRequestsTable = {
  id: OperatorRequestId
  loan_id: LoanId
  kind: OperatorRequestKind
  payment_id: PaymentId | null
  reason: string
  state: OperatorRequestState
  requested_by: OperatorId
  created_at: Date
  decided_by: OperatorId | null
  decided_at: Date | null
  rejection_reason: string | null
}

export type Database = {
  api_clients: ApiClientsTable
  api_keys: ApiKeysTable
  onboarding_sessions: OnboardingSessionsTable
  onboarding_addresses: OnboardingAddressesTable
  verification_challenges: VerificationChallengesTable
  documents: DocumentsTable
  parties: PartiesTable
  party_addresses: PartyAddressesTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_events: WebhookEventsTable
  webhook_attempts: WebhookAttemptsTable
  idempotency_keys: IdempotencyKeysTable
  loan_products: LoanProductsTable
  loan_applications: LoanApplicationsTable
  loans: LoansTable
  loan_installments: LoanInstallmentsTable
  loan_transactions: LoanTransactionsTable
  loan_balances: LoanBalancesTable
  payment_methods: PaymentMethodsTable
  bank_account_secrets: BankAccountSecretsTable
  payments: PaymentsTable
  collateral_items: CollateralItemsTable
  loan_documents: LoanDocumentsTable
  rate_limits: RateLimitsTable
  rate_limit_instances: RateLimitInstancesTable
  audit_events: AuditEventsTable
  job_leases: JobLeasesTable
  test_clocks: TestClocksTable
  events: EventsTable
  event_endpoints: EventEndpointsTable
  event_deliveries: EventDeliveriesTable
  event_delivery_attempts: EventDeliveryAttemptsTable
  ach_files: AchFilesTable
  ach_entries: AchEntriesTable
  ach_trace_counter: AchTraceCounterTable
  ach_inbound_files: AchInboundFilesTable
  ach_returns: AchReturnsTable
  ach_notices: AchNoticesTable
  ach_sandbox_files: AchSandboxFilesTable
  operators: OperatorsTable
  operator_sessions: OperatorSessionsTable
  operator_requests: OperatorRequestsTable
}
