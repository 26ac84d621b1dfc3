import type {
  AchInboundFileView,
  ReturnRateReportView,
  DelinquencySummaryView,
  AchOriginationRunView,
  AddressInput,
  AddressPatch,
  AddressView,
  AnyId,
  ApiKeyView,
  AutopayInput,
  autopayView,
  ApplicantProfileInput,
  ApplicantProfileView,
  ApproveApplicationInput,
  ApproveSessionInput,
  AuditEventView,
  balanceView,
  ChargeOffInput,
  CodeInput,
  CollateralInput,
  collateralView,
  ContactVerificationView,
  CreateEndpointInput,
  CreateOnboardingSessionInput,
  DeclineApplicationInput,
  DocumentInput,
  DocumentView,
  EmailInput,
  EmptyInput,
  EndpointDeliveryView,
  DeliveryRecordView,
  DeliveryWithAttemptsView,
  EventDraft,
  EventEndpointView,
  EventView,
  installmentView,
  LoanApplicationInput,
  LoanApplicationPatch,
  LoanApplicationView,
  LoanDocumentInput,
  loanDocumentView,
  LoanProductInput,
  LoanProductPatch,
  LoanProductView,
  LoanView,
  MintApiKeyInput,
  MintedKeyView,
  OnboardingSessionView,
  PartyView,
  PaymentInput,
  PaymentMethodInput,
  PaymentMethodPatch,
  PaymentMethodView,
  paymentView,
  payoffView,
  PhoneInput,
  RecoverInput,
  RegisterWebhookInput,
  RejectSessionInput,
  Requirement,
  ReversePaymentInput,
  ReturnPaymentInput,
  RotateSecretInput,
  CreateTestClockInput,
  AdvanceTestClockInput,
  reviewView,
  reviewDetailView,
  operatorRequestView,
  actionPreviewView,
  OperatorRequestInput,
  RejectRequestInput,
  ApproveRequestInput,
  SchedulePreview,
  testClockView,
  transactionView,
  UpdateEndpointInput,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEventView,
} from '@lendgate/core'
import { createHmac } from 'node:crypto'
import { writeNachaFile } from '@lendgate/nacha'
import { eventView, type OperatorSessionView } from '@lendgate/core'
import type * as t from 'io-ts'
import { withLivemode } from '../http/livemode.js'
import { operation, type OperationId } from '../routes/operations.js'
import type { RequestBodyName } from './operation-docs.js'

/**
 * Examples for the OpenAPI document: a request body for every request codec, the success body
 * of every operation of the route table, and a value for every path and query parameter.
 *
 * They tell one story. The partner's backend (API client `acme-backend`) onboards Acme Supplies
 * LLC of Springfield, Illinois; an operator approves it, and the party applies for the
 * "Working Capital Term Loan", a product every fresh server is seeded with, which an operator
 * has set to 1,200 bps, America/Chicago and late fees (`LoanProductPatch`): USD 12,000.00
 * (1,200,000 minor units) over 12 months at 1,200 bps with a 200 bps origination fee, booked on
 * 2026-11-03 (America/Chicago) under 30/360.
 * The borrower pays USD 500.00 on 2026-11-16 and the daily job accrues interest to 2026-11-30,
 * the day the servicing reads are taken. The schedule, disclosure, balances, ledger, payoff and
 * payment allocation are the figures the service computes for that loan. The reversal and the
 * charge-off show what those operations answer for the same payment and loan; the withdrawn
 * and declined applications and the rejected duplicate session are records of their own.
 *
 * Records are typed with the views of @lendgate/core, so a renamed field fails the typecheck;
 * apps/api/test/openapi-examples.test.ts checks every example against its schema and codec.
 */

/** A value as JSON carries it: branded identifiers and instants are plain strings there. */
type Wire<V> = V extends AnyId | Date ? string : V extends readonly (infer I)[] ? readonly Wire<I>[] : V extends object ? { readonly [K in keyof V]: Wire<V[K]> } : V
/** A request body as a partner sends it: what the codec decodes, on the wire. */
type Sent<C extends t.Mixed> = Wire<t.TypeOf<C>>

type Health = { readonly status: 'ok' }
type Ready = { readonly status: 'ready'; readonly database: 'up' }
type AccrualRunView = { readonly as_of: string; readonly loans_examined: number; readonly loans_changed: number; readonly accruals: number; readonly loans_failed: number }
type ReviewView = Wire<ReturnType<typeof reviewView>>
type OperatorRequestView = Wire<ReturnType<typeof operatorRequestView>>
type ActionPreviewView = Wire<ReturnType<typeof actionPreviewView>>
type TestClockView = Wire<ReturnType<typeof testClockView>>
type BalanceView = Wire<ReturnType<typeof balanceView>>
type TransactionView = Wire<ReturnType<typeof transactionView>>
type InstallmentView = Wire<ReturnType<typeof installmentView>>
type PayoffView = Wire<ReturnType<typeof payoffView>>
type CollateralView = Wire<ReturnType<typeof collateralView>>
type LoanDocumentView = Wire<ReturnType<typeof loanDocumentView>>
type PaymentView = Wire<ReturnType<typeof paymentView>>
type LoanAutopayView = Wire<ReturnType<typeof autopayView>>

// ---- identifiers ------------------------------------------------------------------------------

/** The partner's own party, which its backend's keys are minted for. */
const PARTNER_PARTY_ID = '3f9b2c71-8d4e-4a05-b6f2-19c7e0d5a8b3'
/** `acme-backend` for the partner's own party. */
const PARTNER_CLIENT_ID = 'fb6a3888-3394-44d3-b64e-4a72d57507bf'
/** `acme-backend` for the borrower's party (the key it services the borrower with). */
const BORROWER_CLIENT_ID = '56f81bfe-41af-4b9f-8357-d7d5b8f6c50c'
const PARTNER_KEY_ID = '662a5cc8-94ce-4e32-b30d-d0f778d384a2'
const ROTATED_KEY_ID = '7603434e-4d8b-4659-8567-e1aa44cf4cf8'

const SESSION_ID = '25b64905-9b24-4b09-9743-b57ce55049aa'
const DUPLICATE_SESSION_ID = '0c600784-d55a-4021-a08e-6ca834240e95'
const SESSION_ADDRESS_ID = '8e629ec9-63a7-48bb-92e6-79b9c9e124be'
const CERTIFICATE_ID = 'cb356a05-affb-4982-a532-6f29df226d34'
const BANK_STATEMENT_ID = '2d65df1c-2b3f-45f5-8170-74dc0e92e8d6'
const EVENT_ID = 'evt_81145dfa4cd54d8190dc9f4006711a9b'
/** The partner's webhook endpoint for the events of its borrowers, and the staging one it replaced. */
const ENDPOINT_ID = '4be0c7d2-96a1-4f38-8e5d-2a7c1b90f6e3'
const STAGING_ENDPOINT_ID = 'a91f3e58-0d6b-4c27-b4e9-73c5d8a2f104'
const INBOUND_FILE_ID = '5c0e9a27-4d3b-4f81-9a6c-e2b7d1f04a58'

const PARTY_ID = '7d205940-6904-4566-870b-ec517ba63568'
const TEST_CLOCK_ID = '0c5e2b7a-3d41-4f6e-9a8b-2c7d1e5f9a03'
const PARTY_REGISTERED_ADDRESS_ID = '63af7362-d125-46f0-a497-69a992b3d0ed'
const PARTY_OPERATING_ADDRESS_ID = '5dc00658-6126-4970-9e85-648e2754155f'

/**
 * The product the story's applications are for: the seeded "Working Capital Term Loan" (the
 * catalogue of a fresh database), so the application examples work on a fresh server.
 */
const PRODUCT_ID = '5b0c1d2e-0001-4a00-8000-000000000001'
/** A product an operator adds to the catalogue (`createLoanProduct`). */
const CREATED_PRODUCT_ID = '265f3984-945e-4f5b-8c12-779ace5cfa2b'
const APPLICATION_ID = '3872feeb-f7ab-4373-ba03-35a068589ef0'
const WITHDRAWN_APPLICATION_ID = '1465e435-4f1d-447a-aeaa-9d0d57eb0209'
const DECLINED_APPLICATION_ID = 'fd332147-323c-44ea-b803-1d2a8046a352'

const LOAN_ID = '0999dd5b-ddad-480e-8d12-497e3520278c'
const COLLATERAL_ID = '20b0424e-5818-4aca-9b40-11b6506663ba'
const STATEMENT_ID = 'ae80d9ec-b049-4e84-96de-91e4b4b4f779'
const AGREEMENT_ID = '15f4ce5a-f2dd-46bb-9d53-3116468665d9'
const BANK_ACCOUNT_ID = '08159839-2f40-44d4-8188-e08df2282b00'
const CARD_ID = 'c998bc93-8b87-4f14-b877-d775bd19cb5b'
const PAYMENT_ID = '86b1f5a9-4589-4529-94df-68bc6196a322'

const REVIEWER = 'dana.okafor@lender.example'
const CREDIT_DESK = 'credit-desk:m.reyes'

// ---- keys ------------------------------------------------------------------------------------

const mintRequest: Sent<typeof MintApiKeyInput> = {
  party_id: PARTNER_PARTY_ID,
  client_name: 'acme-backend',
  environment: 'live',
  scopes: ['partner:api', 'keys:manage'],
}

/** The secret part is a placeholder: it has the form of a key and is none. */
const mintedKey: MintedKeyView = {
  api_key: 'lgk_live_olDm969D7viLo7XG_EXAMPLEonlyEXAMPLEonlyEXAMPLEonly00000',
  api_key_id: PARTNER_KEY_ID,
  key_prefix: 'lgk_live_olDm969D7viLo7XG',
  party_id: PARTNER_PARTY_ID,
  client_id: PARTNER_CLIENT_ID,
  client_name: 'acme-backend',
  environment: 'live',
  livemode: true,
  scopes: ['partner:api', 'keys:manage'],
  status: 'active',
  created_at: '2026-11-02T14:03:12.418Z',
}

/** The first key, revoked once its replacement was in use. */
const revokedKey: ApiKeyView = {
  api_key_id: PARTNER_KEY_ID,
  key_prefix: 'lgk_live_olDm969D7viLo7XG',
  status: 'revoked',
  environment: 'live',
  livemode: true,
  scopes: ['partner:api', 'keys:manage'],
  created_at: '2026-11-02T14:03:12.418Z',
  revoked_at: '2026-11-30T16:20:13.484Z',
  last_used_at: '2026-11-30T16:18:52.067Z',
}

const rotatedKey: ApiKeyView = {
  api_key_id: ROTATED_KEY_ID,
  key_prefix: 'lgk_live_45OwDowtCIC4osXR',
  status: 'active',
  environment: 'live',
  livemode: true,
  scopes: ['partner:api', 'keys:manage'],
  created_at: '2026-11-30T16:05:41.309Z',
  revoked_at: null,
  last_used_at: '2026-11-30T16:20:13.484Z',
}

// ---- onboarding ------------------------------------------------------------------------------

const sessionRequest: Sent<typeof CreateOnboardingSessionInput> = {
  country_of_incorporation: 'US',
  locale: 'en-US',
  type: 'business',
  entry_channel: 'partner_api',
}

const session: OnboardingSessionView = {
  session_id: SESSION_ID,
  type: 'business',
  country_of_incorporation: 'US',
  entry_channel: 'partner_api',
  locale: 'en-US',
  status: 'IN_PROGRESS',
  current_step: 'PHONE_VERIFICATION',
  created_at: '2026-11-02T14:05:48.903Z',
  updated_at: '2026-11-02T14:05:48.903Z',
}
const sessionPhoneVerified: OnboardingSessionView = { ...session, current_step: 'EMAIL_VERIFICATION', updated_at: '2026-11-02T14:07:52.811Z' }
const sessionEmailVerified: OnboardingSessionView = { ...session, current_step: 'APPLICANT_PROFILE', updated_at: '2026-11-02T14:10:03.448Z' }
const sessionSubmitted: OnboardingSessionView = { ...session, status: 'SUBMITTED', current_step: 'REVIEW', updated_at: '2026-11-02T14:16:30.562Z' }
const sessionApproved: OnboardingSessionView = { ...session, status: 'APPROVED', current_step: 'REVIEW', updated_at: '2026-11-02T16:42:05.129Z' }

/** What a fresh session still needs. */
const requirements: readonly Requirement[] = [
  { code: 'phone_missing', step: 'PHONE_VERIFICATION', description: "Submit the applicant's phone number." },
  { code: 'email_missing', step: 'EMAIL_VERIFICATION', description: "Submit the applicant's email address." },
  { code: 'applicant_profile_missing', step: 'APPLICANT_PROFILE', description: 'Submit the applicant profile (at least the legal name).' },
  { code: 'registered_address_missing', step: 'ADDRESSES', description: 'Add the registered address of the business.' },
]

const phoneRequest: Sent<typeof PhoneInput> = { phone: '+12175550143' }
const emailRequest: Sent<typeof EmailInput> = { email: 'finance@acmesupplies.example' }
const codeRequest: Sent<typeof CodeInput> = { code: '482913' }

const phoneVerification: ContactVerificationView = {
  session_id: SESSION_ID,
  channel: 'phone',
  destination: '+12175550143',
  status: 'pending',
  expires_at: '2026-11-02T14:16:31.052Z',
  resend_available_at: '2026-11-02T14:07:01.052Z',
  current_step: 'PHONE_VERIFICATION',
}
const phoneVerificationResent: ContactVerificationView = {
  ...phoneVerification,
  expires_at: '2026-11-02T14:17:18.264Z',
  resend_available_at: '2026-11-02T14:07:48.264Z',
}
const emailVerification: ContactVerificationView = {
  session_id: SESSION_ID,
  channel: 'email',
  destination: 'finance@acmesupplies.example',
  status: 'pending',
  expires_at: '2026-11-02T14:18:40.129Z',
  resend_available_at: '2026-11-02T14:09:10.129Z',
  current_step: 'EMAIL_VERIFICATION',
}
const emailVerificationResent: ContactVerificationView = {
  ...emailVerification,
  expires_at: '2026-11-02T14:19:22.706Z',
  resend_available_at: '2026-11-02T14:09:52.706Z',
}

const profileRequest: Sent<typeof ApplicantProfileInput> = {
  legal_name: 'Acme Supplies LLC',
  trading_name: 'Acme Supplies',
  legal_form: 'llc',
  registration_number: '08841275',
  incorporation_date: '2014-03-18',
  industry_code: '423840',
  website: 'https://www.acmesupplies.example',
  tax_id: '36-4821907',
}

const profile: ApplicantProfileView = {
  legal_name: 'Acme Supplies LLC',
  trading_name: 'Acme Supplies',
  legal_form: 'llc',
  registration_number: '08841275',
  incorporation_date: '2014-03-18',
  industry_code: '423840',
  website: 'https://www.acmesupplies.example',
  tax_id_masked: '******1907',
  updated_at: '2026-11-02T14:11:26.935Z',
}

const addressRequest: Sent<typeof AddressInput> = {
  type: 'registered',
  line1: '1200 N 9th St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62702',
  country: 'US',
}
const addressPatch: Sent<typeof AddressPatch> = { line2: 'Suite 400' }

const registeredAddressAsAdded: AddressView = {
  address_id: SESSION_ADDRESS_ID,
  type: 'registered',
  line1: '1200 N 9th St',
  line2: null,
  city: 'Springfield',
  region: 'IL',
  postal_code: '62702',
  country: 'US',
  created_at: '2026-11-02T14:12:09.514Z',
  updated_at: '2026-11-02T14:12:09.514Z',
}
const registeredAddress: AddressView = { ...registeredAddressAsAdded, line2: 'Suite 400', updated_at: '2026-11-02T14:12:47.286Z' }

const documentRequest: Sent<typeof DocumentInput> = {
  type: 'certificate_of_incorporation',
  storage_ref: 's3://acme-backend-onboarding/acme-supplies/articles-of-organization.pdf',
  file_name: 'articles-of-organization.pdf',
  content_type: 'application/pdf',
  description: 'Articles of organization filed with the Illinois Secretary of State, 2014-03-18',
}

const certificate: DocumentView = {
  document_id: CERTIFICATE_ID,
  type: 'certificate_of_incorporation',
  storage_ref: 's3://acme-backend-onboarding/acme-supplies/articles-of-organization.pdf',
  file_name: 'articles-of-organization.pdf',
  content_type: 'application/pdf',
  description: 'Articles of organization filed with the Illinois Secretary of State, 2014-03-18',
  created_at: '2026-11-02T14:14:02.377Z',
}
const bankStatement: DocumentView = {
  document_id: BANK_STATEMENT_ID,
  type: 'bank_statement',
  storage_ref: 's3://acme-backend-onboarding/acme-supplies/bank-statement-2026-10.pdf',
  file_name: 'bank-statement-2026-10.pdf',
  content_type: 'application/pdf',
  description: 'Operating account statement, October 2026',
  created_at: '2026-11-02T14:14:39.850Z',
}

/** Without `webhook_secret`: the server generates it and answers it once. */
const webhookRequest: Sent<typeof RegisterWebhookInput> = { webhook_url: 'https://api.acme-partner.example/webhooks/lendgate' }

/** The secret is a placeholder of the generated form (`whsec_` and base64 of 24 bytes). */
const webhookEndpoint: WebhookEndpointView = {
  session_id: SESSION_ID,
  webhook_url: 'https://api.acme-partner.example/webhooks/lendgate',
  webhook_secret: 'whsec_EXAMPLEexampleEXAMPLEexample0000',
  created_at: '2026-11-02T14:15:11.093Z',
  updated_at: '2026-11-02T14:15:11.093Z',
}

/**
 * `party.ready`, queued at approval: two attempts answered 503, then the partner asked for a
 * retry (before the third attempt's 5-minute delay) and the third attempt was delivered.
 */
const webhookEventRetried: WebhookEventView = {
  event_id: EVENT_ID,
  type: 'party.ready',
  status: 'pending',
  attempts: 2,
  next_attempt_at: '2026-11-02T16:44:02.275Z',
  created_at: '2026-11-02T16:42:05.129Z',
}
const webhookDelivery: WebhookDeliveryView = {
  ...webhookEventRetried,
  status: 'delivered',
  attempts: 3,
  next_attempt_at: null,
  attempt_log: [
    { attempt_number: 1, started_at: '2026-11-02T16:42:05.318Z', duration_ms: 211, status_code: 503, error: null },
    { attempt_number: 2, started_at: '2026-11-02T16:42:10.702Z', duration_ms: 187, status_code: 503, error: null },
    { attempt_number: 3, started_at: '2026-11-02T16:44:02.391Z', duration_ms: 143, status_code: 200, error: null },
  ],
}

// ---- parties ---------------------------------------------------------------------------------

/** The registered address, copied from the session at approval. */
const partyRegisteredAddress: AddressView = { ...registeredAddress, address_id: PARTY_REGISTERED_ADDRESS_ID }

/** The party as approval created it: the body of getPartyBySessionId and of `party.ready`. */
const party: PartyView = {
  party_id: PARTY_ID,
  session_id: SESSION_ID,
  type: 'business',
  legal_name: 'Acme Supplies LLC',
  trading_name: 'Acme Supplies',
  legal_form: 'llc',
  registration_number: '08841275',
  incorporation_date: '2014-03-18',
  industry_code: '423840',
  website: 'https://www.acmesupplies.example',
  tax_id_masked: '******1907',
  country_of_incorporation: 'US',
  email: 'finance@acmesupplies.example',
  phone: '+12175550143',
  addresses: [partyRegisteredAddress],
  created_at: '2026-11-02T16:42:05.129Z',
}

const operatingAddressAsAdded: AddressView = {
  address_id: PARTY_OPERATING_ADDRESS_ID,
  type: 'operating',
  line1: '3150 Peoria Rd',
  line2: null,
  city: 'Springfield',
  region: 'IL',
  postal_code: '62702',
  country: 'US',
  created_at: '2026-11-02T16:55:02.960Z',
  updated_at: '2026-11-02T16:55:02.960Z',
}
const operatingAddress: AddressView = { ...operatingAddressAsAdded, line2: 'Warehouse B', updated_at: '2026-11-02T16:56:19.431Z' }

// ---- products and applications ---------------------------------------------------------------

const productRequest: Sent<typeof LoanProductInput> = {
  name: 'Working capital 12-month',
  description: 'Unsecured working capital for US small businesses, repaid monthly.',
  currency: 'USD',
  min_amount: 500_000,
  max_amount: 5_000_000,
  min_term_months: 6,
  max_term_months: 12,
  interest_rate_bps: 1200,
  origination_fee_bps: 200,
  repayment_frequency: 'MONTHLY',
  day_count: 'THIRTY_360',
  prepayment: 'REDUCE_TERM',
  late_fee_flat: 2_500,
  late_fee_bps: 500,
  late_fee_grace_days: 10,
  time_zone: 'America/Chicago',
  active: true,
}
/** The seeded working capital product, priced and serviced as the story's loan is. */
const productPatch: Sent<typeof LoanProductPatch> = {
  interest_rate_bps: 1200,
  time_zone: 'America/Chicago',
  late_fee_flat: 2_500,
  late_fee_bps: 500,
  late_fee_grace_days: 10,
}

const productAsCreated: LoanProductView = {
  product_id: CREATED_PRODUCT_ID,
  name: 'Working capital 12-month',
  description: 'Unsecured working capital for US small businesses, repaid monthly.',
  currency: 'USD',
  min_amount: 500_000,
  max_amount: 5_000_000,
  min_term_months: 6,
  max_term_months: 12,
  interest_rate_bps: 1200,
  origination_fee_bps: 200,
  repayment_frequency: 'MONTHLY',
  time_zone: 'America/Chicago',
  day_count: 'THIRTY_360',
  prepayment: 'REDUCE_TERM',
  late_fee_flat: 2_500,
  late_fee_bps: 500,
  late_fee_grace_days: 10,
  returned_payment_fee: 0,
  active: true,
  created_at: '2026-11-02T09:14:37.182Z',
  updated_at: '2026-11-02T09:14:37.182Z',
}
/** The seeded "Working Capital Term Loan" after `productPatch`: the product of the story's applications. */
const product: LoanProductView = {
  ...productAsCreated,
  product_id: PRODUCT_ID,
  name: 'Working Capital Term Loan',
  description: 'Fixed-rate term loan for inventory, payroll and day-to-day operations.',
  max_amount: 25_000_000,
  max_term_months: 36,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-02T09:21:05.640Z',
}

const applicationRequest: Sent<typeof LoanApplicationInput> = {
  product_id: PRODUCT_ID,
  amount: 1_200_000,
  currency: 'USD',
  term_months: 12,
  purpose: 'Seasonal inventory',
  party_id: PARTY_ID,
}
const applicationPatch: Sent<typeof LoanApplicationPatch> = { purpose: 'Seasonal inventory for the holiday quarter' }

const applicationDraft: LoanApplicationView = {
  application_id: APPLICATION_ID,
  party_id: PARTY_ID,
  product_id: PRODUCT_ID,
  status: 'DRAFT',
  amount: 1_200_000,
  currency: 'USD',
  term_months: 12,
  purpose: 'Seasonal inventory',
  interest_rate_bps: 1200,
  origination_fee_bps: 200,
  submitted_at: null,
  decision: null,
  loan_id: null,
  created_at: '2026-11-03T15:20:14.076Z',
  updated_at: '2026-11-03T15:20:14.076Z',
}
const applicationUpdated: LoanApplicationView = {
  ...applicationDraft,
  purpose: 'Seasonal inventory for the holiday quarter',
  updated_at: '2026-11-03T15:21:37.492Z',
}
const applicationSubmitted: LoanApplicationView = {
  ...applicationUpdated,
  status: 'SUBMITTED',
  submitted_at: '2026-11-03T15:23:45.907Z',
  updated_at: '2026-11-03T15:23:45.907Z',
}
const application: LoanApplicationView = {
  ...applicationSubmitted,
  status: 'APPROVED',
  decision: { decision: 'APPROVED', reason: null, decided_by: CREDIT_DESK, decided_at: '2026-11-03T19:02:41.733Z' },
  loan_id: LOAN_ID,
  updated_at: '2026-11-03T19:02:41.733Z',
}

/** A first draft for 6 months, withdrawn before the 12-month application. */
const withdrawnApplication: LoanApplicationView = {
  application_id: WITHDRAWN_APPLICATION_ID,
  party_id: PARTY_ID,
  product_id: PRODUCT_ID,
  status: 'WITHDRAWN',
  amount: 800_000,
  currency: 'USD',
  term_months: 6,
  purpose: 'Seasonal inventory',
  interest_rate_bps: 1200,
  origination_fee_bps: 200,
  submitted_at: null,
  decision: null,
  loan_id: null,
  created_at: '2026-11-03T15:08:26.551Z',
  updated_at: '2026-11-03T15:11:02.839Z',
}

/** A second application while the loan is outstanding, declined. */
const declinedApplication: LoanApplicationView = {
  application_id: DECLINED_APPLICATION_ID,
  party_id: PARTY_ID,
  product_id: PRODUCT_ID,
  status: 'DECLINED',
  amount: 5_000_000,
  currency: 'USD',
  term_months: 12,
  purpose: 'Fit-out of a second warehouse',
  interest_rate_bps: 1200,
  origination_fee_bps: 200,
  submitted_at: '2026-11-18T16:03:30.401Z',
  decision: {
    decision: 'DECLINED',
    reason: 'Debt service coverage below 1.25x with the loan already outstanding.',
    decided_by: CREDIT_DESK,
    decided_at: '2026-11-19T14:27:55.306Z',
  },
  loan_id: null,
  created_at: '2026-11-18T16:02:11.842Z',
  updated_at: '2026-11-19T14:27:55.306Z',
}

/** The Truth in Lending figures of the schedule: USD 11,760.00 financed at an APR of 15.855%. */
const disclosure: LoanView['disclosure'] = {
  amount_financed: 1_176_000,
  finance_charge: 103_423,
  total_of_payments: 1_279_423,
  annual_percentage_rate: '15.855',
}

/** The level installment is 106,619; the last, 106,614, absorbs the rounding. */
const schedulePreview: SchedulePreview = {
  application_id: APPLICATION_ID,
  currency: 'USD',
  principal: 1_200_000,
  interest_rate_bps: 1200,
  term_months: 12,
  start_date: '2026-11-03',
  payment_amount: 106_619,
  total_interest: 79_423,
  total_of_payments: 1_279_423,
  origination_fee: 24_000,
  disbursed_amount: 1_176_000,
  disclosure,
  installments: [
    { number: 1, due_date: '2026-12-03', payment: 106_619, principal: 94_619, interest: 12_000, balance_after: 1_105_381 },
    { number: 2, due_date: '2027-01-03', payment: 106_619, principal: 95_565, interest: 11_054, balance_after: 1_009_816 },
    { number: 3, due_date: '2027-02-03', payment: 106_619, principal: 96_521, interest: 10_098, balance_after: 913_295 },
    { number: 4, due_date: '2027-03-03', payment: 106_619, principal: 97_486, interest: 9_133, balance_after: 815_809 },
    { number: 5, due_date: '2027-04-03', payment: 106_619, principal: 98_461, interest: 8_158, balance_after: 717_348 },
    { number: 6, due_date: '2027-05-03', payment: 106_619, principal: 99_446, interest: 7_173, balance_after: 617_902 },
    { number: 7, due_date: '2027-06-03', payment: 106_619, principal: 100_440, interest: 6_179, balance_after: 517_462 },
    { number: 8, due_date: '2027-07-03', payment: 106_619, principal: 101_444, interest: 5_175, balance_after: 416_018 },
    { number: 9, due_date: '2027-08-03', payment: 106_619, principal: 102_459, interest: 4_160, balance_after: 313_559 },
    { number: 10, due_date: '2027-09-03', payment: 106_619, principal: 103_483, interest: 3_136, balance_after: 210_076 },
    { number: 11, due_date: '2027-10-03', payment: 106_619, principal: 104_518, interest: 2_101, balance_after: 105_558 },
    { number: 12, due_date: '2027-11-03', payment: 106_614, principal: 105_558, interest: 1_056, balance_after: 0 },
  ],
}

// ---- servicing -------------------------------------------------------------------------------

/** The loan as booked, and as read on 2026-11-30: nothing is past due. */
const loan: LoanView = {
  loan_id: LOAN_ID,
  party_id: PARTY_ID,
  application_id: APPLICATION_ID,
  product_id: PRODUCT_ID,
  status: 'ACTIVE',
  currency: 'USD',
  principal: 1_200_000,
  interest_rate_bps: 1200,
  term_months: 12,
  payment_amount: 106_619,
  origination_fee: 24_000,
  disbursed_amount: 1_176_000,
  start_date: '2026-11-03',
  first_due_date: '2026-12-03',
  maturity_date: '2027-11-03',
  time_zone: 'America/Chicago',
  day_count: 'THIRTY_360',
  prepayment: 'REDUCE_TERM',
  late_fee_flat: 2_500,
  late_fee_bps: 500,
  late_fee_grace_days: 10,
  returned_payment_fee: 0,
  days_past_due: 0,
  delinquency_bucket: 'CURRENT',
  charged_off_on: null,
  disclosure,
  created_at: '2026-11-03T19:02:41.733Z',
}
const chargedOffLoan: LoanView = { ...loan, status: 'CHARGED_OFF', charged_off_on: '2026-11-30' }

const bankAccountRequest: Sent<typeof PaymentMethodInput> = {
  type: 'bank_account',
  account_holder_name: 'Acme Supplies LLC',
  routing_number: '071000013',
  account_number: '4829104417',
  account_type: 'checking',
  nickname: 'Operating account',
  is_default: true,
}
const cardRequest: Sent<typeof PaymentMethodInput> = {
  type: 'card',
  card_token: 'tok_example_visa_4242',
  last4: '4242',
  exp_month: 8,
  exp_year: 2029,
  brand: 'visa',
  nickname: 'Corporate card',
}
const paymentMethodPatch: Sent<typeof PaymentMethodPatch> = { nickname: 'Operating account (Chase)' }

const bankAccountAsAdded: PaymentMethodView = {
  payment_method_id: BANK_ACCOUNT_ID,
  loan_id: LOAN_ID,
  type: 'bank_account',
  nickname: 'Operating account',
  is_default: true,
  status: 'active',
  last4: '4417',
  account_holder_name: 'Acme Supplies LLC',
  account_type: 'checking',
  brand: null,
  exp_month: null,
  exp_year: null,
  created_at: '2026-11-03T19:31:08.664Z',
  updated_at: '2026-11-03T19:31:08.664Z',
}
const bankAccount: PaymentMethodView = { ...bankAccountAsAdded, nickname: 'Operating account (Chase)', updated_at: '2026-11-04T10:12:30.117Z' }
const card: PaymentMethodView = {
  payment_method_id: CARD_ID,
  loan_id: LOAN_ID,
  type: 'card',
  nickname: 'Corporate card',
  is_default: false,
  status: 'active',
  last4: '4242',
  account_holder_name: null,
  account_type: null,
  brand: 'visa',
  exp_month: 8,
  exp_year: 2029,
  created_at: '2026-11-03T19:33:51.205Z',
  updated_at: '2026-11-03T19:33:51.205Z',
}

const autopayRequest: Sent<typeof AutopayInput> = { enabled: true }
/** Turned on the day after booking, once the bank account was the loan's default. */
const autopay: LoanAutopayView = { loan_id: LOAN_ID, enabled: true, enabled_at: '2026-11-04T10:14:02.381Z' }

const paymentRequest: Sent<typeof PaymentInput> = { amount: 50_000, currency: 'USD', payment_method_id: BANK_ACCOUNT_ID }

/** USD 500.00 on 2026-11-16: the 5,200 of interest accrued over 13 days, then 44,800 of principal. */
const payment: PaymentView = {
  payment_id: PAYMENT_ID,
  loan_id: LOAN_ID,
  status: 'SUCCEEDED',
  amount: 50_000,
  currency: 'USD',
  payment_method_id: BANK_ACCOUNT_ID,
  allocation: { past_due: { fees: 0, interest: 0, principal: 0 }, fees: 0, interest: 5_200, principal: 44_800 },
  failure_code: null,
  return_code: null,
  effective_date: '2026-11-16',
  created_at: '2026-11-16T17:30:04.552Z',
}
const reversedPayment: PaymentView = { ...payment, status: 'REVERSED' }

/** The ledger: booking (the fee charged and withheld), the payment after its interest, the daily job's accrual. */
const transactions: readonly TransactionView[] = [
  {
    transaction_id: '60f5ac9e-4122-4f04-8f97-771c21580580',
    loan_id: LOAN_ID,
    type: 'DISBURSEMENT',
    effective_date: '2026-11-03',
    amount: 1_200_000,
    currency: 'USD',
    principal: 1_200_000,
    interest: 0,
    fees: 0,
    payment_id: null,
    reverses_transaction_id: null,
    sequence: 1,
    created_at: '2026-11-03T19:02:41.733Z',
  },
  {
    transaction_id: 'ebf38aa2-291e-410e-b017-eb22078fbb6b',
    loan_id: LOAN_ID,
    type: 'ORIGINATION_FEE',
    effective_date: '2026-11-03',
    amount: 24_000,
    currency: 'USD',
    principal: 0,
    interest: 0,
    fees: 24_000,
    payment_id: null,
    reverses_transaction_id: null,
    sequence: 2,
    created_at: '2026-11-03T19:02:41.733Z',
  },
  {
    transaction_id: 'bf5e51d3-550a-4d59-b60e-d5d263ff25fb',
    loan_id: LOAN_ID,
    type: 'FEE_WITHHELD',
    effective_date: '2026-11-03',
    amount: 24_000,
    currency: 'USD',
    principal: 0,
    interest: 0,
    fees: -24_000,
    payment_id: null,
    reverses_transaction_id: null,
    sequence: 3,
    created_at: '2026-11-03T19:02:41.733Z',
  },
  {
    transaction_id: '3572d5e6-6699-4a8d-8066-fd9efcc104f2',
    loan_id: LOAN_ID,
    type: 'INTEREST_ACCRUAL',
    effective_date: '2026-11-16',
    amount: 5_200,
    currency: 'USD',
    principal: 0,
    interest: 5_200,
    fees: 0,
    payment_id: null,
    reverses_transaction_id: null,
    sequence: 5,
    created_at: '2026-11-16T17:30:04.552Z',
  },
  {
    transaction_id: '0e46a647-f6c2-4caa-896b-415a01dfa625',
    loan_id: LOAN_ID,
    type: 'PAYMENT',
    effective_date: '2026-11-16',
    amount: 50_000,
    currency: 'USD',
    principal: -44_800,
    interest: -5_200,
    fees: 0,
    payment_id: PAYMENT_ID,
    reverses_transaction_id: null,
    sequence: 6,
    created_at: '2026-11-16T17:30:04.552Z',
  },
  {
    transaction_id: '3ce2ed93-d662-4acd-ae12-07aff7f506c6',
    loan_id: LOAN_ID,
    type: 'INTEREST_ACCRUAL',
    effective_date: '2026-11-30',
    amount: 5_391,
    currency: 'USD',
    principal: 0,
    interest: 5_391,
    fees: 0,
    payment_id: null,
    reverses_transaction_id: null,
    sequence: 8,
    created_at: '2026-11-30T06:00:02.114Z',
  },
]

/** A balance snapshot follows every ledger change. At booking: the principal, nothing accrued yet. */
const balanceAtBooking: BalanceView = {
  balance_id: 'e08cc74f-6a1f-455c-b581-5e4f790223f5',
  loan_id: LOAN_ID,
  as_of: '2026-11-03',
  currency: 'USD',
  principal_outstanding: 1_200_000,
  interest_outstanding: 0,
  fees_outstanding: 0,
  payoff_amount: 1_200_000,
  past_due_amount: 0,
  next_due_date: '2026-12-03',
  next_due_amount: 106_619,
  transaction_id: 'bf5e51d3-550a-4d59-b60e-d5d263ff25fb',
  sequence: 4,
  created_at: '2026-11-03T19:02:41.733Z',
}

/** After the payment: installment 1 still owes 49,819 of principal and its interest to 2026-12-03. */
const balanceAfterPayment: BalanceView = {
  balance_id: '643033db-51b2-4b43-b02f-1474a5103e2b',
  loan_id: LOAN_ID,
  as_of: '2026-11-16',
  currency: 'USD',
  principal_outstanding: 1_155_200,
  interest_outstanding: 0,
  fees_outstanding: 0,
  payoff_amount: 1_155_200,
  past_due_amount: 0,
  next_due_date: '2026-12-03',
  next_due_amount: 56_365,
  transaction_id: '0e46a647-f6c2-4caa-896b-415a01dfa625',
  sequence: 7,
  created_at: '2026-11-16T17:30:04.552Z',
}

/** After the accrual of 2026-11-30: 14 days of interest on 1,155,200. */
const latestBalance: BalanceView = {
  balance_id: 'e2002cce-afe5-42f0-95fd-5d3f935bb450',
  loan_id: LOAN_ID,
  as_of: '2026-11-30',
  currency: 'USD',
  principal_outstanding: 1_155_200,
  interest_outstanding: 5_391,
  fees_outstanding: 0,
  payoff_amount: 1_160_591,
  past_due_amount: 0,
  next_due_date: '2026-12-03',
  next_due_amount: 56_365,
  transaction_id: '3ce2ed93-d662-4acd-ae12-07aff7f506c6',
  sequence: 9,
  created_at: '2026-11-30T06:00:02.114Z',
}

const balances: readonly BalanceView[] = [balanceAtBooking, balanceAfterPayment, latestBalance]

/** On 2026-11-30: principal after the payment and 14 days of interest on it (the latest balance). */
const payoff: PayoffView = { loan_id: LOAN_ID, as_of: '2026-11-30', currency: 'USD', principal: 1_155_200, interest: 5_391, fees: 0, payoff_amount: 1_160_591, pending_amount: 0 }

/**
 * The schedule on 2026-11-30. Installment 1 is partly paid; its interest is the 5,200 paid, the
 * 5,391 accrued since and a projection of 1,155 to its due date.
 */
const schedule: readonly InstallmentView[] = [
  { installment_number: 1, due_date: '2026-12-03', currency: 'USD', principal_due: 94_619, interest_due: 11_746, fees_due: 0, total_due: 106_365, principal_paid: 44_800, interest_paid: 5_200, fees_paid: 0, total_paid: 50_000, interest_accrued: false, status: 'PARTIALLY_PAID' },
  { installment_number: 2, due_date: '2027-01-03', currency: 'USD', principal_due: 95_565, interest_due: 11_054, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 3, due_date: '2027-02-03', currency: 'USD', principal_due: 96_521, interest_due: 10_098, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 4, due_date: '2027-03-03', currency: 'USD', principal_due: 97_486, interest_due: 9_133, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 5, due_date: '2027-04-03', currency: 'USD', principal_due: 98_461, interest_due: 8_158, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 6, due_date: '2027-05-03', currency: 'USD', principal_due: 99_446, interest_due: 7_173, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 7, due_date: '2027-06-03', currency: 'USD', principal_due: 100_440, interest_due: 6_179, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 8, due_date: '2027-07-03', currency: 'USD', principal_due: 101_444, interest_due: 5_175, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 9, due_date: '2027-08-03', currency: 'USD', principal_due: 102_459, interest_due: 4_160, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 10, due_date: '2027-09-03', currency: 'USD', principal_due: 103_483, interest_due: 3_136, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 11, due_date: '2027-10-03', currency: 'USD', principal_due: 104_518, interest_due: 2_101, fees_due: 0, total_due: 106_619, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
  { installment_number: 12, due_date: '2027-11-03', currency: 'USD', principal_due: 105_558, interest_due: 1_056, fees_due: 0, total_due: 106_614, principal_paid: 0, interest_paid: 0, fees_paid: 0, total_paid: 0, interest_accrued: false, status: 'UPCOMING' },
]

const collateralRequest: Sent<typeof CollateralInput> = {
  type: 'inventory',
  description: 'Packaging and janitorial supplies held at 3150 Peoria Rd, Springfield IL',
  valuation: 1_800_000,
  currency: 'USD',
  lien_position: 1,
}
const collateral: CollateralView = {
  collateral_id: COLLATERAL_ID,
  loan_id: LOAN_ID,
  type: 'inventory',
  description: 'Packaging and janitorial supplies held at 3150 Peoria Rd, Springfield IL',
  valuation: 1_800_000,
  currency: 'USD',
  lien_position: 1,
  created_at: '2026-11-03T19:06:12.580Z',
}

const testClock: TestClockView = {
  test_clock_id: TEST_CLOCK_ID,
  party_id: PARTY_ID,
  name: 'Late payment walkthrough',
  frozen_time: '2026-11-28T15:02:44.118Z',
  status: 'ready',
  advancing_to: null,
  created_at: '2026-11-28T15:02:44.118Z',
}
const testClockAdvancing: TestClockView = { ...testClock, status: 'advancing', advancing_to: '2027-03-01T09:00:00.000Z' }
/** Without `frozen_time`, the clock starts now: a fixed time would be refused once it is in the past. */
const createTestClockRequest: Sent<typeof CreateTestClockInput> = { name: 'Late payment walkthrough' }
const advanceTestClockRequest: Sent<typeof AdvanceTestClockInput> = { frozen_time: '2027-03-01T09:00:00Z' }

const loanDocumentRequest: Sent<typeof LoanDocumentInput> = {
  type: 'agreement',
  storage_ref: 's3://lender-loan-docs/acme-supplies/loan-agreement-signed.pdf',
  file_name: 'loan-agreement-signed.pdf',
  content_type: 'application/pdf',
}
/** Written at booking. */
const openingStatement: LoanDocumentView = {
  document_id: STATEMENT_ID,
  loan_id: LOAN_ID,
  type: 'statement',
  period_start: '2026-11-03',
  period_end: '2026-11-03',
  storage_ref: `lendgate://loans/${LOAN_ID}/statements/2026-11-03.pdf`,
  file_name: 'statement-2026-11-03.pdf',
  content_type: 'application/pdf',
  created_at: '2026-11-03T19:02:41.733Z',
}
const loanAgreement: LoanDocumentView = {
  document_id: AGREEMENT_ID,
  loan_id: LOAN_ID,
  type: 'agreement',
  period_start: null,
  period_end: null,
  storage_ref: 's3://lender-loan-docs/acme-supplies/loan-agreement-signed.pdf',
  file_name: 'loan-agreement-signed.pdf',
  content_type: 'application/pdf',
  created_at: '2026-11-03T19:07:44.019Z',
}

// ---- internal: review, decisioning, operations, audit ----------------------------------------

const approveSessionRequest: Sent<typeof ApproveSessionInput> = { reviewed_by: REVIEWER }
const rejectSessionRequest: Sent<typeof RejectSessionInput> = {
  reason: `Duplicate of session ${SESSION_ID}, approved for Acme Supplies LLC.`,
  reviewed_by: REVIEWER,
}
const approveApplicationRequest: Sent<typeof ApproveApplicationInput> = { decided_by: CREDIT_DESK }
const declineApplicationRequest: Sent<typeof DeclineApplicationInput> = {
  reason: 'Debt service coverage below 1.25x with the loan already outstanding.',
  decided_by: CREDIT_DESK,
}
const reversePaymentRequest: Sent<typeof ReversePaymentInput> = { reason: 'ACH return R01: insufficient funds' }
const returnPaymentRequest: Sent<typeof ReturnPaymentInput> = { return_code: 'R01' }
const chargeOffRequest: Sent<typeof ChargeOffInput> = { reason: 'Borrower ceased trading' }

/** The operators of the maker-checker story: servicing asks, a colleague approves. */
const MAKER_ID = '9d3c1a6e-52b8-4f0d-8e7a-3b1f6c2d4e90'
const CHECKER_ID = 'c27e4b19-6a3d-4f58-9b0e-5d8a1c3f7e26'
const OPERATOR_REQUEST_ID = 'e41b7d30-8c2a-4f6e-a915-0d3c7b5e2f84'

const operatorRequestRequest: Sent<typeof OperatorRequestInput> = { kind: 'payment_reversal', payment_id: PAYMENT_ID, reason: 'ACH return R01 received by phone from the bank; file to follow' }
const rejectRequestRequest: Sent<typeof RejectRequestInput> = { reason: 'The return was withdrawn: the bank paid the debit after all.' }
const approveRequestRequest: Sent<typeof ApproveRequestInput> = { preview_version: '0b8f7a5e-2c41-4d9a-9e63-7f1d2a8c4b50.2026-11-30' }

/** A reversal of the story's payment, asked by one operator. */
const reversalRequested: OperatorRequestView = {
  operator_request_id: OPERATOR_REQUEST_ID,
  kind: 'payment_reversal',
  loan_id: LOAN_ID,
  payment_id: PAYMENT_ID,
  reason: operatorRequestRequest.reason,
  state: 'PENDING',
  requested_by: MAKER_ID,
  requested_at: '2026-11-30T14:02:11.207Z',
  decided_by: null,
  decided_at: null,
  rejection_reason: null,
}
const reversalApproved: OperatorRequestView = { ...reversalRequested, state: 'APPROVED', decided_by: CHECKER_ID, decided_at: '2026-11-30T14:09:45.318Z' }
const reversalRejected: OperatorRequestView = { ...reversalRequested, state: 'REJECTED', decided_by: CHECKER_ID, decided_at: '2026-11-30T14:09:45.318Z', rejection_reason: rejectRequestRequest.reason }

/**
 * What reversing the story's payment would do on 2026-11-30: its 44,800 of principal and 5,200 of
 * interest owed again, and the 14 days since it accrued on 1,200,000 rather than 1,155,200 (209 more).
 */
const reversalPreview: ActionPreviewView = {
  kind: 'payment_reversal',
  loan_id: LOAN_ID,
  payment_id: PAYMENT_ID,
  currency: 'USD',
  status_before: 'ACTIVE',
  status_after: 'ACTIVE',
  before: { as_of: '2026-11-30', principal_outstanding: 1_155_200, interest_outstanding: 5_391, fees_outstanding: 0, past_due_amount: 0, payoff_amount: 1_160_591 },
  after: { as_of: '2026-11-30', principal_outstanding: 1_200_000, interest_outstanding: 10_800, fees_outstanding: 0, past_due_amount: 0, payoff_amount: 1_210_800 },
  transactions: [
    {
      transaction_id: '7a1e5c93-2d4b-4f60-8e17-c3b9a0d4f625',
      loan_id: LOAN_ID,
      type: 'REVERSAL',
      effective_date: '2026-11-30',
      amount: 50_000,
      currency: 'USD',
      principal: 44_800,
      interest: 5_200,
      fees: 0,
      payment_id: PAYMENT_ID,
      reverses_transaction_id: '0e46a647-f6c2-4caa-896b-415a01dfa625',
      created_at: '2026-11-30T14:09:45.318Z',
    },
    {
      transaction_id: '5f8d2b61-9c3e-4a07-b4d2-e6a1f0c7b938',
      loan_id: LOAN_ID,
      type: 'INTEREST_ACCRUAL',
      effective_date: '2026-11-30',
      amount: 209,
      currency: 'USD',
      principal: 0,
      interest: 209,
      fees: 0,
      payment_id: null,
      reverses_transaction_id: null,
      created_at: '2026-11-30T14:09:45.318Z',
    },
  ],
  payment: { payment_id: PAYMENT_ID, amount: 50_000, effective_date: '2026-11-16' },
  preview_version: approveRequestRequest.preview_version,
}

const sessionUnderReview: ReviewView = {
  session_id: SESSION_ID,
  client_id: PARTNER_CLIENT_ID,
  type: 'business',
  country_of_incorporation: 'US',
  locale: 'en-US',
  status: 'SUBMITTED',
  current_step: 'REVIEW',
  submitted_at: '2026-11-02T14:16:30.562Z',
  party_id: null,
  review: null,
  created_at: '2026-11-02T14:05:48.903Z',
  updated_at: '2026-11-02T14:16:30.562Z',
}
/** The session under review as its page reads it: both contacts verified, the profile and the registered address given. */
const sessionUnderReviewInDetail: Wire<ReturnType<typeof reviewDetailView>> = {
  ...sessionUnderReview,
  entry_channel: 'partner_api',
  email: { value: emailVerification.destination, verified: true, verified_at: sessionEmailVerified.updated_at },
  phone: { value: phoneVerification.destination, verified: true, verified_at: sessionPhoneVerified.updated_at },
  applicant_profile: profile,
  addresses: [registeredAddress],
}
const sessionReviewed: ReviewView = {
  ...sessionUnderReview,
  status: 'APPROVED',
  party_id: PARTY_ID,
  review: { decision: 'APPROVED', reviewed_by: REVIEWER, reason: null, decided_at: '2026-11-02T16:42:05.129Z' },
  updated_at: '2026-11-02T16:42:05.129Z',
}

/** The same business submitted a second time by mistake. */
const duplicateUnderReview: ReviewView = {
  session_id: DUPLICATE_SESSION_ID,
  client_id: PARTNER_CLIENT_ID,
  type: 'business',
  country_of_incorporation: 'US',
  locale: 'en-US',
  status: 'SUBMITTED',
  current_step: 'REVIEW',
  submitted_at: '2026-11-02T14:24:05.718Z',
  party_id: null,
  review: null,
  created_at: '2026-11-02T14:21:44.215Z',
  updated_at: '2026-11-02T14:24:05.718Z',
}
const duplicateRejected: ReviewView = {
  ...duplicateUnderReview,
  status: 'REJECTED',
  review: {
    decision: 'REJECTED',
    reviewed_by: REVIEWER,
    reason: `Duplicate of session ${SESSION_ID}, approved for Acme Supplies LLC.`,
    decided_at: '2026-11-02T16:44:51.602Z',
  },
  updated_at: '2026-11-02T16:44:51.602Z',
}

const accrualRun: AccrualRunView = { as_of: '2026-11-30', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 }

/** The story's partner on 2026-12-03: the one debit of the window, returned R01 (not an unauthorized or administrative code). */
const achReturnRates: ReturnRateReportView = {
  from: '2026-10-05',
  to: '2026-12-03',
  clients: [
    {
      client_id: BORROWER_CLIENT_ID,
      debits: 1,
      unauthorized: { returns: 0, rate: 0, threshold: 0.005, over: false },
      administrative: { returns: 0, rate: 0, threshold: 0.03, over: false },
      overall: { returns: 1, rate: 1, threshold: 0.15, over: true },
    },
  ],
}

/** The story's book on 2026-12-03: the example loan, one day past due, and two current loans of other partners. */
const delinquencySummary: DelinquencySummaryView = {
  as_of: '2026-12-03T14:00:00.000Z',
  currencies: [
    {
      currency: 'USD',
      buckets: [
        { bucket: 'CURRENT', loans: 2, principal_outstanding: 3_400_000, past_due_amount: 0 },
        { bucket: 'DPD_1_30', loans: 1, principal_outstanding: 1_150_000, past_due_amount: 106_691 },
        { bucket: 'DPD_31_60', loans: 0, principal_outstanding: 0, past_due_amount: 0 },
        { bucket: 'DPD_61_90', loans: 0, principal_outstanding: 0, past_due_amount: 0 },
        { bucket: 'DPD_90_PLUS', loans: 0, principal_outstanding: 0, past_due_amount: 0 },
      ],
    },
  ],
}

/** A file cut at 15:29:41 on Monday (the run of the end of that minute): the example debit, effective Tuesday. */
const achOriginationRun: AchOriginationRunView = {
  run_key: '2026-11-30T15:30',
  outcome: 'completed',
  file: {
    ach_file_id: '6f0c2b1e-5d4a-4c3b-9a2e-1f0e9d8c7b6a',
    run_key: '2026-11-30T15:30',
    status: 'written',
    name: '121042882-261130-A.ach',
    effective_entry_date: '2026-12-01',
    entry_count: 1,
    debit_total: 50_000,
    entry_hash: 2_100_002,
    sha256: '9c1b5f0e3a7d2c8b4e6f1a0d9c8b7a6e5f4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b',
    created_at: '2026-11-30T20:29:41.412Z',
    written_at: '2026-11-30T20:29:42.087Z',
  },
}

/** The newest five events; `AUDIT_CURSOR` continues with the collateral and the approval. */
const auditEvents: readonly AuditEventView[] = [
  {
    audit_event_id: 'e199c221-9691-4b4a-b203-6845179a6187',
    occurred_at: '2026-11-30T16:20:13.484Z',
    actor: { type: 'api_key', id: ROTATED_KEY_ID },
    action: 'api_key.revoked',
    subject: { type: 'api_key', id: PARTNER_KEY_ID },
    api_client_id: PARTNER_CLIENT_ID,
    party_id: PARTNER_PARTY_ID,
    request_id: 'ef5560d4-0a82-4b9d-a932-9be31847d670',
    details: { key_prefix: 'lgk_live_olDm969D7viLo7XG' },
  },
  {
    audit_event_id: '45ee06fe-d739-4e81-9aeb-e0db1cd114fb',
    occurred_at: '2026-11-30T16:05:41.309Z',
    actor: { type: 'operator' },
    action: 'api_key.minted',
    subject: { type: 'api_key', id: ROTATED_KEY_ID },
    api_client_id: PARTNER_CLIENT_ID,
    party_id: PARTNER_PARTY_ID,
    request_id: '8fb2dde1-21c7-4055-a543-878ca3d997a9',
    details: { key_prefix: 'lgk_live_45OwDowtCIC4osXR', environment: 'live', scopes: ['partner:api', 'keys:manage'], client_name: 'acme-backend' },
  },
  {
    audit_event_id: '8f45588b-fc1e-474b-8d33-c240e45ccf46',
    occurred_at: '2026-11-30T06:00:02.114Z',
    actor: { type: 'operator' },
    action: 'interest_accrual.completed',
    subject: { type: 'interest_accrual_run', id: '8f45588b-fc1e-474b-8d33-c240e45ccf46' },
    api_client_id: null,
    party_id: null,
    request_id: 'de62de3f-5f2f-440c-b734-c5a00e4156ee',
    details: { as_of: '2026-11-30', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 },
  },
  {
    audit_event_id: 'aa7d2e43-f9c7-41b7-9e09-8eb47c4275fa',
    occurred_at: '2026-11-19T14:27:55.306Z',
    actor: { type: 'operator' },
    action: 'loan_application.declined',
    subject: { type: 'loan_application', id: DECLINED_APPLICATION_ID },
    api_client_id: BORROWER_CLIENT_ID,
    party_id: PARTY_ID,
    request_id: '0912c248-778c-4073-8e95-e0d64cbe554a',
    details: { decided_by: CREDIT_DESK, reason: 'Debt service coverage below 1.25x with the loan already outstanding.' },
  },
  {
    audit_event_id: 'd876b657-57e2-490f-b6fc-d745a0501958',
    occurred_at: '2026-11-03T19:07:44.019Z',
    actor: { type: 'operator' },
    action: 'loan_document.attached',
    subject: { type: 'loan_document', id: AGREEMENT_ID },
    api_client_id: null,
    party_id: PARTY_ID,
    request_id: 'f194e27c-1bca-4fce-88a1-ff95ee9689aa',
    details: { loan_id: LOAN_ID, type: 'agreement', period_start: null, period_end: null },
  },
]
const AUDIT_CURSOR = 'WyIyMDI2LTExLTAzVDE5OjA3OjQ0LjAxOVoiLCJkODc2YjY1Ny01N2UyLTQ5MGYtYjZmYy1kNzQ1YTA1MDE5NTgiXQa7huUZG3T1ScETw7L59Irw'

// ---- events ----------------------------------------------------------------------------------

/**
 * An event of the story as the event list shows it and a webhook delivers it: `eventView` of the
 * event written at `at` about `data` (the resource as its route answered it then), in the live world.
 */
const storyEvent = (
  id: string,
  type: EventDraft['type'],
  at: string,
  about: { readonly loanId: string | null; readonly resourceId: string },
  data: object,
  more: { readonly sequence?: number; readonly previous?: Readonly<Record<string, unknown>> } = {},
): EventView =>
  eventView(
    {
      id: id as EventDraft['id'],
      type,
      partyId: PARTY_ID as EventDraft['partyId'],
      loanId: about.loanId as EventDraft['loanId'],
      resourceId: about.resourceId,
      occurredAt: new Date(at),
      data,
      previous: more.previous ?? null,
      sequence: more.sequence ?? null,
    },
    'live',
  )

/** `party.ready` at approval: the event the session's webhook delivered (`EVENT_ID`, its webhook-id). */
const partyReadyEvent = storyEvent(EVENT_ID, 'party.ready', party.created_at, { loanId: null, resourceId: PARTY_ID }, party)

/**
 * What the partner's backend lists: the borrower approved, its application submitted and
 * decided, the loan booked (the loan's first event) and the payment of 2026-11-16 (its second).
 */
const applicationSubmittedEvent = storyEvent('evt_4c0e8f1a27d94b6e8a35f0c2d9b71e64', 'application.submitted', applicationSubmitted.updated_at, { loanId: null, resourceId: APPLICATION_ID }, applicationSubmitted, {
  previous: { status: 'DRAFT' },
})
const applicationDecidedEvent = storyEvent('evt_9b2d6e0f13a84c7fb5e1d8a0c46f2b93', 'application.decided', application.updated_at, { loanId: null, resourceId: APPLICATION_ID }, application, {
  previous: { status: 'SUBMITTED' },
})
const loanBookedEvent = storyEvent('evt_e57a1c3d9f024b68a0d4c7e2f1b8a536', 'loan.booked', loan.created_at, { loanId: LOAN_ID, resourceId: LOAN_ID }, loan, { sequence: 1 })
const paymentSucceededEvent = storyEvent('evt_2f8c4a6e0b1d4e97a3c5f7d9e1b0a248', 'payment.succeeded', payment.created_at, { loanId: LOAN_ID, resourceId: PAYMENT_ID }, payment, { sequence: 2 })
const events: readonly EventView[] = [partyReadyEvent, applicationSubmittedEvent, applicationDecidedEvent, loanBookedEvent, paymentSucceededEvent]

/** The failed payment of the returned-payment ending (below): the borrower's card, declined. */
const FAILED_PAYMENT_ID = 'b4d2e8f1-6a3c-4e57-9b0d-2f8a1c6e4d93'
/** The late fee of the late ending (below). */
const LATE_FEE_ID = '9e3b7a15-c2d8-4f60-a4e1-58b0d6f2c37a'

/** The card payment of 2026-11-20, declined by the processor: no allocation, its `failure_code` set. */
const failedPayment: PaymentView = {
  payment_id: FAILED_PAYMENT_ID,
  loan_id: LOAN_ID,
  status: 'FAILED',
  amount: 50_000,
  currency: 'USD',
  payment_method_id: CARD_ID,
  allocation: null,
  failure_code: 'card_declined',
  return_code: null,
  effective_date: '2026-11-20',
  created_at: '2026-11-20T16:05:12.874Z',
}

/** The bank debit of the debit ending: accepted 2026-11-27, in the file cut on 2026-11-30, effective 2026-12-01. */
const DEBIT_PAYMENT_ID = 'e7a41c9d-3b2f-4d86-a05e-91c4b7f2d638'

/** USD 500.00 debited in the file cut on 2026-11-30 (effective 2026-12-01), posted that day: the 5,391 of interest over 14 days on 1,155,200, then 44,609 of principal. */
const submittedDebit: PaymentView = {
  payment_id: DEBIT_PAYMENT_ID,
  loan_id: LOAN_ID,
  status: 'SUBMITTED',
  amount: 50_000,
  currency: 'USD',
  payment_method_id: BANK_ACCOUNT_ID,
  allocation: { past_due: { fees: 0, interest: 0, principal: 0 }, fees: 0, interest: 5_391, principal: 44_609 },
  failure_code: null,
  return_code: null,
  effective_date: '2026-11-30',
  created_at: '2026-11-27T15:20:41.118Z',
}
/** The same debit two banking days after its file's effective entry date: no return came. */
const settledDebit: PaymentView = { ...submittedDebit, status: 'SETTLED' }
/** The same debit returned instead, on 2026-12-03, for insufficient funds: what it paid is owed again. */
const returnedDebit: PaymentView = { ...submittedDebit, status: 'RETURNED', return_code: 'R01' }

/**
 * The bank's return file of 2026-12-03 as the bank sends it (the body of ingestAchInboundFile):
 * the example debit (trace 121042880000001) returned R01, in a CCD return batch; written by
 * `@lendgate/nacha` so its controls are right. The account number is a made-up one.
 */
export const ACH_RETURN_FILE_EXAMPLE: string = writeNachaFile({
  header: {
    priorityCode: '01',
    immediateDestination: '121042882',
    immediateOrigin: '011000015',
    fileCreationDate: '261203',
    fileCreationTime: '0700',
    fileIdModifier: 'A',
    immediateDestinationName: 'WELLS FARGO BANK',
    immediateOriginName: 'FEDERAL RESERVE BANK',
    referenceCode: '',
  },
  batches: [
    {
      header: {
        serviceClassCode: 225,
        companyName: 'LENDGATE CAPITAL',
        companyDiscretionaryData: '',
        companyIdentification: '1234567890',
        secCode: 'CCD',
        companyEntryDescription: 'LOAN PMT',
        companyDescriptiveDate: '',
        effectiveEntryDate: '261201',
        settlementDate: '',
        originatorStatusCode: '1',
        odfiIdentification: '01100001',
        batchNumber: 1,
      },
      entries: [
        {
          transactionCode: 26,
          rdfiIdentification: '12104288',
          checkDigit: 2,
          dfiAccountNumber: '000123456789',
          amount: 50_000,
          identificationNumber: '',
          name: 'ACME WIDGETS LLC',
          discretionaryData: '',
          addendaRecordIndicator: 1,
          traceNumber: '011000010000001',
          addenda: [
            { typeCode: '99', returnReasonCode: 'R01', originalTraceNumber: '121042880000001', dateOfDeath: '', originalRdfiIdentification: '01100001', addendaInformation: '', traceNumber: '011000010000001' },
          ],
        },
      ],
    },
  ],
})

/** The bank's return file of 2026-12-03: the example debit returned for insufficient funds, and a return of a debit that is not ours. */
const achInboundFile: AchInboundFileView = {
  inbound_file_id: INBOUND_FILE_ID,
  sha256: '3b8e1f0a7c2d4e6f9a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e1f',
  status: 'ingested',
  received_at: '2026-12-03T14:05:18.990Z',
  returns: [
    { record: 3, original_trace: '121042880000001', return_code: 'R01', amount: 50_000, payment_id: DEBIT_PAYMENT_ID, outcome: 'applied', late: false },
    { record: 5, original_trace: '121042880009999', return_code: 'R03', amount: 12_500, payment_id: null, outcome: 'unmatched', late: false },
  ],
  notices: [],
  others: [],
}

/** Installment 1 unpaid on 2026-12-04, the day after its due date: one day past due. */
const delinquentLoan: LoanView = { ...loan, days_past_due: 1, delinquency_bucket: 'DPD_1_30' }

/**
 * The late fee of installment 1, charged by the daily job on 2026-12-14 (the first day after its
 * 10 grace days): 2,500 flat plus 500 bps of the 56,365 it still owes (2,818), as the ledger shows it.
 */
const lateFeeEntry: Omit<TransactionView, 'sequence'> = {
  transaction_id: LATE_FEE_ID,
  loan_id: LOAN_ID,
  type: 'LATE_FEE',
  effective_date: '2026-12-14',
  amount: 5_318,
  currency: 'USD',
  principal: 0,
  interest: 0,
  fees: 5_318,
  payment_id: null,
  reverses_transaction_id: null,
  created_at: '2026-12-14T06:00:01.873Z',
}

/** The loan paid off on 2026-11-30 with the payoff quote of that day (1,160,591). */
const paidOffLoan: LoanView = { ...loan, status: 'PAID_OFF' }

/**
 * One event of every type, as a webhook endpoint receives it (the body of each entry of the
 * partner document's `webhooks`). The first five are the events listEvents lists. The loan's
 * later events come from three endings of the story, each numbered after the loan's first two
 * events (booked 1, the payment of 2026-11-16 2), as the reversal and the charge-off above are
 * alternatives:
 * - returned: the payment of 2026-11-16 is reversed on 2026-11-19 (an ACH return, 3), a card
 *   payment is declined on 2026-11-20 (4) and the loan is charged off on 2026-11-30 (5);
 * - late: installment 1 is left unpaid, so the daily job moves the loan to `DPD_1_30` on
 *   2026-12-04 (3) and charges its late fee on 2026-12-14 (4);
 * - paid off: the borrower pays the payoff quote of 2026-11-30 (`payment.succeeded`, 3) and the
 *   loan is paid off by the same posting (4);
 * - debit: a bank debit accepted on 2026-11-27 goes out in the file of 2026-11-30, effective
 *   2026-12-01, posted on the file's day (`payment.submitted`, 3), and settles two banking days
 *   after its effective entry date (`payment.settled`, 4), or is returned for insufficient funds
 *   on 2026-12-03 instead (`payment.returned`, 4).
 */
const EVENT_EXAMPLES_BY_TYPE: { readonly [T in EventDraft['type']]: EventView } = {
  'payment.submitted': storyEvent('evt_6b2d9f4a8c1e4f37b5a0d3e7c9f1a284', 'payment.submitted', '2026-11-30T21:00:03.410Z', { loanId: LOAN_ID, resourceId: DEBIT_PAYMENT_ID }, submittedDebit, {
    sequence: 3,
    previous: { status: 'PENDING' },
  }),
  'payment.settled': storyEvent('evt_1f7c3a9e5d2b4068a4e6c8b0d2f4a719', 'payment.settled', '2026-12-04T02:00:05.902Z', { loanId: LOAN_ID, resourceId: DEBIT_PAYMENT_ID }, settledDebit, {
    sequence: 4,
    previous: { status: 'SUBMITTED' },
  }),
  'payment.returned': storyEvent('evt_8d4b2f6a0c9e4173a5b1e7d3c2f9a046', 'payment.returned', '2026-12-03T14:05:19.227Z', { loanId: LOAN_ID, resourceId: DEBIT_PAYMENT_ID }, returnedDebit, {
    sequence: 4,
    previous: { status: 'SUBMITTED' },
  }),
  'party.ready': partyReadyEvent,
  'application.submitted': applicationSubmittedEvent,
  'application.decided': applicationDecidedEvent,
  'loan.booked': loanBookedEvent,
  'payment.succeeded': paymentSucceededEvent,
  'payment.reversed': storyEvent('evt_c81f4d2a9e6b4307a5d1f8c3e2b9a064', 'payment.reversed', '2026-11-19T15:40:27.316Z', { loanId: LOAN_ID, resourceId: PAYMENT_ID }, reversedPayment, {
    sequence: 3,
    previous: { status: 'SUCCEEDED' },
  }),
  'payment.failed': storyEvent('evt_5d9a0e7c3b1f4a68be2c6d4f8a0e1b75', 'payment.failed', failedPayment.created_at, { loanId: LOAN_ID, resourceId: FAILED_PAYMENT_ID }, failedPayment, {
    sequence: 4,
  }),
  'loan.charged_off': storyEvent('evt_0a6e3c9f5d2b48e1a7c4f9b2d6e8a351', 'loan.charged_off', '2026-11-30T18:12:36.450Z', { loanId: LOAN_ID, resourceId: LOAN_ID }, chargedOffLoan, {
    sequence: 5,
    previous: { status: 'ACTIVE' },
  }),
  'loan.delinquency_changed': storyEvent(
    'evt_f27b8d4e1c0a4695b3e8d7a2c5f1e904',
    'loan.delinquency_changed',
    '2026-12-04T06:00:02.305Z',
    { loanId: LOAN_ID, resourceId: LOAN_ID },
    delinquentLoan,
    { sequence: 3, previous: { days_past_due: 0, delinquency_bucket: 'CURRENT' } },
  ),
  'loan.late_fee_assessed': storyEvent('evt_3e8c1b6f0d4a4b29a9f5e2d7c8b0a613', 'loan.late_fee_assessed', lateFeeEntry.created_at, { loanId: LOAN_ID, resourceId: LATE_FEE_ID }, lateFeeEntry, {
    sequence: 4,
  }),
  'loan.paid_off': storyEvent('evt_a4f9e2c7b5d14e80b6a3c1f8d0e7b259', 'loan.paid_off', '2026-11-30T17:45:19.208Z', { loanId: LOAN_ID, resourceId: LOAN_ID }, paidOffLoan, {
    sequence: 4,
    previous: { status: 'ACTIVE' },
  }),
}

// ---- webhook endpoints ------------------------------------------------------------------------

/**
 * The partner's backend registers an endpoint for the events of its borrowers before the first
 * approval (the server generates the secret), adds the delinquency and payoff events later,
 * rotates the secret on 2026-11-30 with the default grace period, resends `party.ready` and
 * recovers the day of the payment. A staging endpoint registered first is deleted.
 */
const endpointRequest: Sent<typeof CreateEndpointInput> = {
  url: 'https://api.acme-partner.example/webhooks/lendgate/events',
  enabled_events: ['party.ready', 'application.decided', 'loan.booked', 'payment.succeeded', 'payment.failed', 'payment.reversed'],
  description: 'Borrower and loan events for the servicing ledger sync',
}
const endpointPatch: Sent<typeof UpdateEndpointInput> = {
  enabled_events: [...endpointRequest.enabled_events, 'loan.delinquency_changed', 'loan.paid_off', 'loan.charged_off'],
}
const rotateRequest: Sent<typeof RotateSecretInput> = { grace_period_seconds: 86_400 }
const recoverRequest: Sent<typeof RecoverInput> = { since: '2026-11-16T00:00:00.000Z', until: '2026-11-17T00:00:00.000Z' }

/** The secret is a placeholder of the generated form (`whsec_` and base64 of 24 bytes). */
const endpointCreated: EventEndpointView = {
  webhook_endpoint_id: ENDPOINT_ID,
  url: endpointRequest.url,
  description: endpointRequest.description ?? null,
  enabled_events: endpointRequest.enabled_events,
  status: 'enabled',
  secret: 'whsec_EXAMPLEexampleEXAMPLEexample1111',
  previous_secret_expires_at: null,
  created_at: '2026-11-02T14:20:31.207Z',
  updated_at: '2026-11-02T14:20:31.207Z',
}
const { secret: _createdSecret, ...endpointAsCreated } = endpointCreated
const endpointUpdated: EventEndpointView = { ...endpointAsCreated, enabled_events: endpointPatch.enabled_events ?? [], updated_at: '2026-11-19T15:02:47.388Z' }
/** The rotation: a new generated secret (a placeholder), the old one signing beside it for 24 hours. */
const endpointRotated: EventEndpointView = {
  ...endpointUpdated,
  secret: 'whsec_ROTATEDrotatedROTATEDrotated0000',
  previous_secret_expires_at: '2026-12-01T16:24:08.913Z',
  updated_at: '2026-11-30T16:24:08.913Z',
}
const { secret: _rotatedSecret, ...endpoint } = endpointRotated

const stagingEndpoint: EventEndpointView = {
  webhook_endpoint_id: STAGING_ENDPOINT_ID,
  url: 'https://staging.acme-partner.example/webhooks/lendgate/events',
  description: 'Staging',
  enabled_events: ['*'],
  status: 'disabled',
  previous_secret_expires_at: null,
  created_at: '2026-11-02T14:18:56.640Z',
  updated_at: '2026-11-02T14:21:09.152Z',
}

/** `party.ready` resent to the endpoint after its first, delivered attempt: due now. */
const resentDelivery: Wire<EndpointDeliveryView> = {
  webhook_endpoint_id: ENDPOINT_ID,
  event_id: EVENT_ID,
  type: 'party.ready',
  status: 'pending',
  attempts: 1,
  next_attempt_at: '2026-11-30T16:31:45.020Z',
  last_error: null,
  created_at: '2026-11-02T16:42:05.129Z',
}

/** A delivery that ran out of retries: the receiver answered 503 to every attempt. */
const failedDelivery: Wire<DeliveryRecordView> = {
  webhook_endpoint_id: ENDPOINT_ID,
  event_id: EVENT_ID,
  type: 'party.ready',
  status: 'failed',
  attempts: 2,
  next_attempt_at: null,
  last_error: 'HTTP 503',
  created_at: '2026-11-02T16:42:05.129Z',
  url: 'https://acme-partner.example/webhooks/lendgate/events',
  api_client_id: PARTNER_CLIENT_ID,
  party_id: PARTNER_PARTY_ID,
}

/** The same delivery with its attempts (two shown, as if the schedule had two). */
const failedDeliveryAttempts: Wire<DeliveryWithAttemptsView> = {
  ...failedDelivery,
  attempt_log: [
    { attempt_number: 1, url: failedDelivery.url, started_at: '2026-11-02T16:42:06.004Z', duration_ms: 412, status_code: 503, error: 'HTTP 503' },
    { attempt_number: 2, url: failedDelivery.url, started_at: '2026-11-02T16:42:11.310Z', duration_ms: 388, status_code: 503, error: 'HTTP 503' },
  ],
}

/** The same delivery retried by an operator: due now, its attempts kept. */
const retriedDelivery: Wire<EndpointDeliveryView> = {
  webhook_endpoint_id: ENDPOINT_ID,
  event_id: EVENT_ID,
  type: 'party.ready',
  status: 'pending',
  attempts: 2,
  next_attempt_at: '2026-11-30T09:12:41.207Z',
  last_error: 'HTTP 503',
  created_at: '2026-11-02T16:42:05.129Z',
}

/** The HMAC key of a webhook secret: the base64 after `whsec_` for such a secret, else its UTF-8 bytes. */
const signingKey = (secret: string): Buffer => (secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8'))

/** The Standard Webhooks headers of one delivery attempt. */
export type DeliveryHeadersExample = { readonly 'webhook-id': string; readonly 'webhook-timestamp': string; readonly 'webhook-signature': string }

/**
 * The headers of the first attempt of `event` to the partner's endpoint (had it enabled the type),
 * at the event's instant, over the event's JSON: signed with the endpoint's secret of that
 * moment, and during the rotation's grace period (2026-11-30 16:24 to 2026-12-01 16:24) with the
 * new secret and the old one, space-separated.
 */
export const endpointDeliveryHeaders = (event: EventView): DeliveryHeadersExample => {
  const at = Date.parse(event.timestamp)
  const seconds = String(Math.floor(at / 1000))
  const [before, after] = [endpointCreated.secret!, endpointRotated.secret!]
  const rotatedAt = Date.parse(endpointRotated.updated_at)
  const graceEnds = Date.parse(endpointRotated.previous_secret_expires_at!)
  const secrets = at < rotatedAt ? [before] : at < graceEnds ? [after, before] : [after]
  const body = JSON.stringify(event)
  const signature = secrets.map((secret) => `v1,${createHmac('sha256', signingKey(secret)).update(`${event.id}.${seconds}.${body}`).digest('base64')}`).join(' ')
  return { 'webhook-id': event.id, 'webhook-timestamp': seconds, 'webhook-signature': signature }
}

// ---- the console's sessions --------------------------------------------------------------------

const OPERATOR_SESSION_ID = '5d0c6e2a-7b1f-4c3e-9a8d-2f4b6c8e0a13'

const operatorSessionExample = {
  session_id: OPERATOR_SESSION_ID,
  operator: {
    operator_id: '8a3f1c2e-4b5d-4e6f-8a7b-9c0d1e2f3a4b',
    email: 'ada.reviewer@lender.example',
    role: 'reviewer',
    created_at: '2026-11-02T09:15:00.000Z',
    disabled_at: null,
  },
  expires_at: '2026-11-30T17:00:00.000Z',
  csrf_token: 'q1n0Jd9cY2Q3xP4m5Vb6Wk7Hs8Tz9Ra0Lf1Ug2Ne3Oi',
} satisfies OperatorSessionView

// ---- by operation ----------------------------------------------------------------------------

/** The body every operation of the route table answers on success, by operationId, but its resources' `livemode`. */
const SUCCESS_BODY_EXAMPLES: Readonly<Record<OperationId, unknown>> = {
  health: { status: 'ok' } satisfies Health,
  healthReady: { status: 'ready', database: 'up' } satisfies Ready,
  getOpenApiDocument: { openapi: '3.1.0', info: { title: 'Lendgate partner lending API', version: '1.0.0' }, paths: {} },
  getOperatorOpenApiDocument: { openapi: '3.1.0', info: { title: 'Lendgate operator API', version: '1.0.0' }, paths: {} },
  signInOperator: operatorSessionExample,
  getOperatorSession: operatorSessionExample,
  signOutOperator: { session_id: OPERATOR_SESSION_ID, signed_out: true },

  mintApiKey: mintedKey,
  listApiKeys: { data: [revokedKey, rotatedKey], next_cursor: null },
  revokeApiKey: revokedKey,

  createOnboardingSession: session,
  getOnboardingSession: sessionApproved,
  listOnboardingAddresses: { data: [registeredAddress], next_cursor: null },
  createOnboardingAddress: registeredAddressAsAdded,
  updateOnboardingAddress: registeredAddress,
  upsertApplicantProfile: profile,
  submitOnboardingEmail: emailVerification,
  retryOnboardingEmailVerification: emailVerificationResent,
  verifyOnboardingEmail: sessionEmailVerified,
  submitOnboardingPhone: phoneVerification,
  retryOnboardingPhoneVerification: phoneVerificationResent,
  verifyOnboardingPhone: sessionPhoneVerified,
  listPendingOnboardingRequirements: { data: requirements, next_cursor: null },
  submitOnboardingForReview: sessionSubmitted,
  getPartyBySessionId: party,
  registerOnboardingSessionWebhook: webhookEndpoint,
  listOnboardingSessionWebhookDeliveries: { data: [webhookDelivery], next_cursor: null },
  retryOnboardingSessionWebhookDelivery: webhookEventRetried,
  listDocumentsForOnboardingSession: { data: [certificate, bankStatement], next_cursor: null },
  createOnboardingDocumentMetadata: certificate,

  getParty: party,
  listPartyAddresses: { data: [partyRegisteredAddress, operatingAddress], next_cursor: null },
  createPartyAddress: operatingAddressAsAdded,
  updatePartyAddress: operatingAddress,
  listPartyApplications: { data: [withdrawnApplication, application, declinedApplication], next_cursor: null },
  listAvailableLoanProductsForParty: { data: [product], next_cursor: null },

  createLoanApplication: applicationDraft,
  getLoanApplication: application,
  updateLoanApplication: applicationUpdated,
  submitLoanApplication: applicationSubmitted,
  withdrawLoanApplication: withdrawnApplication,
  previewLoanApplicationSchedule: schedulePreview,

  listLoansForParty: { data: [loan], next_cursor: null },
  getLoanForParty: loan,
  listLoanBalancesForParty: { data: balances, next_cursor: null },
  getLatestLoanBalanceForParty: latestBalance,
  listCollateralForPartyLoan: { data: [collateral], next_cursor: null },
  listPaymentsForPartyLoan: { data: [payment], next_cursor: null },
  getLoanPayoffForParty: payoff,
  listPaymentMethodsForPartyLoan: { data: [bankAccount, card], next_cursor: null },
  createPaymentMethodForPartyLoan: bankAccountAsAdded,
  updatePaymentMethodForPartyLoan: bankAccount,
  getLoanAutopayForParty: autopay,
  setLoanAutopayForParty: autopay,
  createPaymentIntentForPartyLoan: payment,
  listLoanScheduleForParty: { data: schedule, next_cursor: null },
  listTransactionsForPartyLoan: { data: transactions, next_cursor: null },
  listDocumentsForPartyLoan: { data: [openingStatement, loanAgreement], next_cursor: null },

  listEvents: { data: events, next_cursor: null },
  createWebhookEndpoint: endpointCreated,
  listWebhookEndpoints: { data: [stagingEndpoint, endpoint], next_cursor: null },
  getWebhookEndpoint: endpoint,
  updateWebhookEndpoint: endpointUpdated,
  deleteWebhookEndpoint: { ...stagingEndpoint, deleted: true } satisfies EventEndpointView & { readonly deleted: true },
  rotateWebhookEndpointSecret: endpointRotated,
  resendWebhookEvent: resentDelivery,
  recoverWebhookEvents: { recovered: 1 },

  simulateOnboardingApproval: { session: sessionReviewed, party },
  simulateOnboardingRejection: duplicateRejected,
  simulateApplicationApproval: { application, loan },
  simulateApplicationDecline: declinedApplication,
  simulatePaymentReturn: reversedPayment,
  createTestClock: testClock,
  getTestClock: testClock,
  advanceTestClock: testClockAdvancing,
  wipeTestData: { deleted: { onboarding_sessions: 3, parties: 2, loan_applications: 2, loans: 1, payments: 4, events: 17, webhook_events: 2, test_clocks: 1 } },

  listOnboardingSessionsForReview: { data: [sessionUnderReview, duplicateUnderReview], next_cursor: null },
  approveOnboardingSession: { session: sessionReviewed, party },
  rejectOnboardingSession: duplicateRejected,
  getOnboardingSessionForReview: sessionUnderReviewInDetail,
  listOnboardingDocumentsForReview: { data: [certificate, bankStatement], next_cursor: null },
  listLoanApplicationsForReview: { data: [applicationSubmitted], next_cursor: null },
  getLoanApplicationForReview: applicationSubmitted,
  previewLoanApplicationScheduleForReview: schedulePreview,
  listLoans: { data: [delinquentLoan], next_cursor: null },
  getLoan: delinquentLoan,
  listLoanSchedule: { data: schedule, next_cursor: null },
  listLoanTransactions: { data: transactions, next_cursor: null },
  listLoanPayments: { data: [payment], next_cursor: null },
  listLoanBalances: { data: balances, next_cursor: null },
  approveLoanApplication: { application, loan },
  declineLoanApplication: declinedApplication,
  accrueInterest: accrualRun,
  originateAchFile: achOriginationRun,
  ingestAchInboundFile: achInboundFile,
  getAchInboundFile: achInboundFile,
  getAchReturnRates: achReturnRates,
  getDelinquencySummary: delinquencySummary,
  askOperatorRequest: reversalRequested,
  listOperatorRequests: { data: [reversalRequested], next_cursor: null },
  previewOperatorAction: reversalPreview,
  getOperatorRequest: reversalRequested,
  previewOperatorRequest: reversalPreview,
  approveOperatorRequest: { operator_request: reversalApproved, payment: reversedPayment, loan: null },
  rejectOperatorRequest: reversalRejected,
  listWebhookDeliveries: { data: [failedDelivery], next_cursor: null },
  getWebhookDelivery: failedDeliveryAttempts,
  retryEndpointWebhookDelivery: retriedDelivery,
  addLoanCollateral: collateral,
  attachLoanDocument: loanAgreement,
  reverseLoanPayment: reversedPayment,
  chargeOffLoan: chargedOffLoan,
  listLoanProducts: { data: [product], next_cursor: null },
  createLoanProduct: productAsCreated,
  updateLoanProduct: product,
  listAuditEvents: { data: auditEvents, next_cursor: AUDIT_CURSOR },
}

/** The body every operation of the route table answers on success, by operationId: the story is the live world's. */
export const SUCCESS_EXAMPLES: Readonly<Record<OperationId, unknown>> = Object.fromEntries(
  Object.entries(SUCCESS_BODY_EXAMPLES).map(([id, body]) => [id, withLivemode(operation(id as OperationId).livemode ?? 'body', true, body)]),
) as Record<OperationId, unknown>

const emptyRequest: Sent<typeof EmptyInput> = {}

/** A body each request codec accepts, by the codec's name; `PaymentMethodInput` is the bank account. */
export const REQUEST_EXAMPLES: Readonly<Record<RequestBodyName, unknown>> = {
  MintApiKeyInput: mintRequest,
  CreateOnboardingSessionInput: sessionRequest,
  AddressInput: addressRequest,
  AddressPatch: addressPatch,
  ApplicantProfileInput: profileRequest,
  EmailInput: emailRequest,
  PhoneInput: phoneRequest,
  CodeInput: codeRequest,
  RegisterWebhookInput: webhookRequest,
  EmptyInput: emptyRequest,
  DocumentInput: documentRequest,
  LoanApplicationInput: applicationRequest,
  LoanApplicationPatch: applicationPatch,
  PaymentMethodInput: bankAccountRequest,
  PaymentMethodPatch: paymentMethodPatch,
  AutopayInput: autopayRequest,
  PaymentInput: paymentRequest,
  ApproveSessionInput: approveSessionRequest,
  RejectSessionInput: rejectSessionRequest,
  SignInInput: { email: 'ada.reviewer@lender.example', password: 'correct horse battery staple' },
  OperatorRequestInput: operatorRequestRequest,
  RejectRequestInput: rejectRequestRequest,
  ApproveRequestInput: approveRequestRequest,
  ApproveApplicationInput: approveApplicationRequest,
  DeclineApplicationInput: declineApplicationRequest,
  CollateralInput: collateralRequest,
  LoanDocumentInput: loanDocumentRequest,
  ReversePaymentInput: reversePaymentRequest,
  ReturnPaymentInput: returnPaymentRequest,
  CreateTestClockInput: createTestClockRequest,
  AdvanceTestClockInput: advanceTestClockRequest,
  ChargeOffInput: chargeOffRequest,
  LoanProductInput: productRequest,
  LoanProductPatch: productPatch,
  CreateWebhookEndpointInput: endpointRequest,
  UpdateWebhookEndpointInput: endpointPatch,
  RotateWebhookSecretInput: rotateRequest,
  RecoverWebhookEventsInput: recoverRequest,
}

/** The `party.ready` event of the story, as the session's webhook delivered it. */
export const PARTY_READY_EVENT_EXAMPLE: EventView = partyReadyEvent

/** One event of every type of the catalogue, as a webhook endpoint receives it, by its type. */
export const EVENT_EXAMPLES: { readonly [T in EventDraft['type']]: EventView } = EVENT_EXAMPLES_BY_TYPE

/** The other branch of `PaymentMethodInput`: a card token from the partner's card vault. */
export const CARD_PAYMENT_METHOD_EXAMPLE: Sent<typeof PaymentMethodInput> = cardRequest

/** A value for every path parameter (PATH_PARAMETERS), from the story. */
export const PARAMETER_EXAMPLES: Readonly<Record<string, string>> = {
  apiKeyId: PARTNER_KEY_ID,
  sessionId: SESSION_ID,
  addressId: SESSION_ADDRESS_ID,
  eventId: EVENT_ID,
  partyId: PARTY_ID,
  applicationId: APPLICATION_ID,
  loanId: LOAN_ID,
  paymentMethodId: BANK_ACCOUNT_ID,
  paymentId: PAYMENT_ID,
  productId: PRODUCT_ID,
  clockId: TEST_CLOCK_ID,
  endpointId: ENDPOINT_ID,
  inboundFileId: INBOUND_FILE_ID,
  operatorRequestId: OPERATOR_REQUEST_ID,
}
