import type { ColumnType, Generated, RawBuilder } from 'kysely'
import type { AchEntryStatus, AchFileStatus, ApplicationId, InboundFileId, NoticeOutcome, ReturnCategory, ReturnOutcome, ClientId, DocumentId, LoanId, PartyId, PaymentId, PaymentMethodId, PaymentStatus, ProductId } from '@lendgate/core'

/**
 * The lending tables: products, applications, the loans they book and what servicing records on
 * them. The rules on timestamps and `int8` columns are those of every table (schema.ts).
 */

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
  /** Migration 0025: 0 when none. */
  returned_payment_fee: ColumnType<number, number | undefined, number>
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
  /** How many events the loan has had (migration 0019): the last one's `loan_sequence`. */
  event_sequence: ColumnType<number, number | undefined, number | RawBuilder<number>>
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
  /** Migration 0025: 0 when none. */
  returned_payment_fee: ColumnType<number, number | undefined, number>
  total_of_payments: number | null
  finance_charge: number | null
  apr_thousandths: number | null
  time_zone: string
  oldest_unpaid_due_date: string | null
  charged_off_on: string | null
  /** JSON of the servicing replay's checkpoint (`Loan.checkpoint`). */
  checkpoint: unknown
  created_at: Date
  /** Migration 0028: the client that turned the loan's autopay on, and when; both null while it is off. */
  autopay_client_id: ColumnType<ClientId | null, ClientId | null | undefined, ClientId | null>
  autopay_enabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>
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
  status: 'active' | 'blocked'
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

/** A bank account's numbers, sealed (`AccountSeal`) and kept apart from its payment method's row (migration 0022). */
export type BankAccountSecretsTable = {
  payment_method_id: PaymentMethodId
  sealed: string
  created_at: Date
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
  status: PaymentStatus
  failure_code: string | null
  allocation: ColumnType<unknown, string | null, string | null>
  per_installment: ColumnType<unknown, string, string>
  transaction_id: string | null
  effective_date: string
  /** A `RETURNED` debit's return code and the day it was applied (migration 0024); null otherwise. */
  return_code: ColumnType<string | null, string | null | undefined, string | null>
  returned_on: ColumnType<string | null, string | null | undefined, string | null>
  /** The fee a `RETURNED` payment's return charged (migration 0025); 0 otherwise. */
  return_fee: ColumnType<number, number | undefined, number>
  created_at: Date
}

/** A bank file of debits, one per cut-off (migration 0023). */
export type AchFilesTable = {
  id: string
  run_key: string
  party_id: PartyId | null
  cutoff_at: Date
  effective_entry_date: string
  creation_date: string
  creation_time: string
  status: AchFileStatus
  file_id_modifier: string | null
  name: string | null
  sha256: string | null
  entry_count: number | null
  debit_total: number | null
  entry_hash: number | null
  created_at: Date
  written_at: Date | null
}

/** A payment's entry in a bank file (migration 0023): one at most per payment. */
export type AchEntriesTable = {
  payment_id: PaymentId
  file_id: string
  payment_method_id: PaymentMethodId
  client_id: ClientId
  trace_number: string
  status: AchEntryStatus
  amount: number | null
  submitted_on: string | null
}

/** A file the bank sent back (migration 0024): one per SHA-256; `report` once ingested. */
export type AchInboundFilesTable = {
  id: InboundFileId
  sha256: string
  received_at: Date
  status: 'ingesting' | 'ingested'
  report: ColumnType<unknown, string | null, string | null>
}

/** A file the test world's origination wrote, kept for the sandbox bank (migration 0026). */
export type AchSandboxFilesTable = {
  name: string
  bytes: Buffer
  put_at: Date
  answered_through: string | null
  next_answer_on: string | null
  party_id: PartyId | null
}

/** A return as recorded (migration 0024): one per original trace number. */
export type AchReturnsTable = {
  id: string
  inbound_file_id: InboundFileId
  record: number
  original_trace: string
  return_code: string
  category: ReturnCategory
  amount: number
  payment_id: PaymentId | null
  client_id: ClientId | null
  received_on: string
  outcome: ReturnOutcome
  late: boolean
}

/** A notice of change as recorded (migration 0024): one per original trace number, never its corrected data. */
export type AchNoticesTable = {
  id: string
  inbound_file_id: InboundFileId
  record: number
  original_trace: string
  change_code: string
  payment_method_id: PaymentMethodId | null
  received_on: string
  outcome: NoticeOutcome
  detail: string | null
}

/** The world's next 7-digit trace number (migration 0023): one row, `id` true. */
export type AchTraceCounterTable = {
  id: ColumnType<boolean, boolean | undefined, never>
  next_trace: number
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
