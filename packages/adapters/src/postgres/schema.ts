import type { ColumnType, Generated } from 'kysely'
import type { AddressId, ApiKeyId, ApplicationId, ClientId, DocumentId, EventId, LoanId, PartyId, PaymentId, PaymentMethodId, ProductId, SessionId } from '@lendgate/core'

/**
 * Table types. Timestamps are written by the application clock (millisecond precision), never
 * by `now()` in SQL, so cursors built from them compare exactly. `int8` columns come back as
 * JavaScript numbers from both drivers (see database.ts).
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

export type LoanProductsTable = {
  id: ProductId
  name: string
  description: string | null
  currency: string
  min_amount: number
  max_amount: number
  min_term_months: number
  max_term_months: number
  interest_rate_bps: number
  origination_fee_bps: number
  repayment_frequency: 'MONTHLY'
  active: boolean
  day_count: 'THIRTY_360' | 'ACTUAL_365'
  prepayment: 'REDUCE_TERM' | 'REDUCE_INSTALLMENT'
  late_fee_flat: number
  late_fee_bps: number
  late_fee_grace_days: number
  time_zone: string
  created_at: Date
  updated_at: Date
}

export type LoanApplicationsTable = {
  id: ApplicationId
  party_id: PartyId
  client_id: ClientId
  product_id: ProductId
  amount: number
  currency: string
  term_months: number
  purpose: string | null
  interest_rate_bps: number
  origination_fee_bps: number
  status: 'DRAFT' | 'SUBMITTED' | 'APPROVED' | 'DECLINED' | 'WITHDRAWN'
  submitted_at: Date | null
  decision: 'APPROVED' | 'DECLINED' | null
  decision_reason: string | null
  decided_by: string | null
  decided_at: Date | null
  loan_id: LoanId | null
  version: number
  created_at: Date
  updated_at: Date
}

/** Calendar dates are `date` columns read back as `YYYY-MM-DD` strings (database.ts). */
export type LoansTable = {
  id: LoanId
  party_id: PartyId
  application_id: ApplicationId
  product_id: ProductId
  status: 'ACTIVE' | 'PAID_OFF' | 'CHARGED_OFF'
  currency: string
  principal: number
  interest_rate_bps: number
  term_months: number
  payment_amount: number
  origination_fee: number
  disbursed_amount: number
  start_date: string
  first_due_date: string
  maturity_date: string
  day_count: 'THIRTY_360' | 'ACTUAL_365'
  prepayment: 'REDUCE_TERM' | 'REDUCE_INSTALLMENT'
  late_fee_flat: number
  late_fee_bps: number
  late_fee_grace_days: number
  total_of_payments: number | null
  finance_charge: number | null
  apr_thousandths: number | null
  time_zone: string
  oldest_unpaid_due_date: string | null
  charged_off_on: string | null
  /** JSON of the servicing replay's checkpoint (`Loan.checkpoint`). */
  checkpoint: unknown
  created_at: Date
}

export type LoanInstallmentsTable = {
  loan_id: LoanId
  number: number
  due_date: string
  principal_due: number
  interest_due: number
  fees_due: number
  principal_paid: number
  interest_paid: number
  fees_paid: number
  interest_accrued: ColumnType<boolean, boolean | undefined, boolean>
}

export type LoanTransactionsTable = {
  id: string
  loan_id: LoanId
  type: string
  effective_date: string
  amount: number
  principal: number
  interest: number
  fees: number
  payment_id: PaymentId | null
  reverses_id: string | null
  seq: Generated<number>
  created_at: Date
}

export type LoanBalancesTable = {
  id: string
  loan_id: LoanId
  transaction_id: string
  as_of: string
  principal_outstanding: number
  interest_outstanding: number
  fees_outstanding: number
  payoff_amount: number
  past_due_amount: number
  next_due_date: string | null
  next_due_amount: number | null
  seq: Generated<number>
  created_at: Date
}

export type PaymentMethodsTable = {
  id: PaymentMethodId
  loan_id: LoanId
  type: 'bank_account' | 'card'
  nickname: string | null
  is_default: boolean
  status: 'active'
  token: string
  last4: string
  account_holder_name: string | null
  account_type: 'checking' | 'savings' | null
  brand: string | null
  exp_month: number | null
  exp_year: number | null
  created_at: Date
  updated_at: Date
}

export type PaymentsTable = {
  id: PaymentId
  loan_id: LoanId
  client_id: ClientId
  idempotency_key: string
  payment_method_id: PaymentMethodId
  amount: number
  /** What the order asked, when more than `amount` (migration 0016); null, it asked `amount`. */
  requested_amount: number | null
  currency: string
  status: 'SUCCEEDED' | 'FAILED' | 'REVERSED'
  failure_code: string | null
  allocation: ColumnType<unknown, string | null, string | null>
  per_installment: ColumnType<unknown, string, string>
  transaction_id: string | null
  effective_date: string
  created_at: Date
}

export type CollateralItemsTable = {
  id: string
  loan_id: LoanId
  type: string
  description: string
  valuation: number
  currency: string
  lien_position: number
  created_at: Date
}

export type LoanDocumentsTable = {
  id: DocumentId
  loan_id: LoanId
  type: string
  period_start: string | null
  period_end: string | null
  storage_ref: string
  file_name: string | null
  content_type: string | null
  created_at: Date
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
  payments: PaymentsTable
  collateral_items: CollateralItemsTable
  loan_documents: LoanDocumentsTable
  rate_limits: RateLimitsTable
  rate_limit_instances: RateLimitInstancesTable
  audit_events: AuditEventsTable
  job_leases: JobLeasesTable
}
