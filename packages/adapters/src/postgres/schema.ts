import type { ColumnType, Generated } from 'kysely'

/**
 * Table types. Timestamps are written by the application clock (millisecond precision), never
 * by `now()` in SQL, so cursors built from them compare exactly. `int8` columns come back as
 * JavaScript numbers from both drivers (see database.ts).
 */

export type ApiClientsTable = {
  id: string
  party_id: string
  name: string
  created_at: Date
}

export type ApiKeysTable = {
  id: string
  client_id: string
  party_id: string
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
  id: string
  client_id: string
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
  party_id: string | null
  review_decision: 'APPROVED' | 'REJECTED' | null
  reviewed_by: string | null
  review_reason: string | null
  decided_at: Date | null
  created_at: Date
  updated_at: Date
}

export type PartiesTable = {
  id: string
  session_id: string
  client_id: string
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
export type PartyAddressesTable = Omit<OnboardingAddressesTable, 'session_id'> & { party_id: string }

export type OnboardingAddressesTable = {
  id: string
  session_id: string
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
  session_id: string
  channel: 'phone' | 'email'
  destination: string
  code_hash: string
  created_at: Date
  expires_at: Date
  attempts: number
  closed_at: Date | null
}

export type DocumentsTable = {
  id: string
  session_id: string | null
  type: string
  storage_ref: string
  file_name: string | null
  content_type: string | null
  description: string | null
  created_at: Date
}

export type WebhookEndpointsTable = {
  session_id: string
  url: string
  sealed_secret: string
  created_at: Date
  updated_at: Date
}

export type WebhookEventsTable = {
  id: string
  session_id: string
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
  event_id: string
  attempt_number: number
  url: string
  started_at: Date
  duration_ms: number
  status_code: number | null
  error: string | null
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
}
