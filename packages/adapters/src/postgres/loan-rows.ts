import type { BookedLoan, OperatorRequest, ServicingCheckpoint, Working, CollateralItem, LedgerTransaction, Loan, LoanDocument, LoanSummary, Payment, PostedBalance, PostedTransaction, ServicedInstallment, TransactionType } from '@lendgate/core'
import { sql, type Selectable } from 'kysely'
import type { CollateralItemsTable, LoanBalancesTable, LoanDocumentsTable, LoanInstallmentsTable, LoansTable, LoanTransactionsTable, PaymentsTable } from './lending-tables.js'
import type { OperatorRequestsTable } from './schema.js'

/** A loan's rows as the domain's records (`to…`), and the domain's records as rows (`…Columns`). */

/** Every column of a loan but its checkpoint: what a list of loans reads (`toLoanSummary`). */
export const LOAN_SUMMARY_COLUMNS = [
  'id', 'party_id', 'application_id', 'product_id', 'status', 'currency', 'principal', 'interest_rate_bps', 'term_months', 'payment_amount',
  'origination_fee', 'disbursed_amount', 'start_date', 'first_due_date', 'maturity_date', 'day_count', 'prepayment', 'late_fee_flat',
  'late_fee_bps', 'late_fee_grace_days', 'returned_payment_fee', 'total_of_payments', 'finance_charge', 'apr_thousandths', 'time_zone', 'oldest_unpaid_due_date',
  'charged_off_on', 'created_at',
] as const

/** The level payment in force (`levelPaymentOf`), as a list reads it from the checkpoint's JSON. */
export const LEVEL_PAYMENT = sql<number>`coalesce((checkpoint->>'level')::bigint, payment_amount)`.as('level_payment')

export const toLoanSummary = (row: Selectable<Omit<LoansTable, 'checkpoint' | 'event_sequence' | 'autopay_client_id' | 'autopay_enabled_at'>> & { readonly level_payment: number | string }): LoanSummary => ({
  id: row.id,
  partyId: row.party_id,
  applicationId: row.application_id,
  productId: row.product_id,
  status: row.status,
  currency: row.currency,
  principal: row.principal,
  interestRateBps: row.interest_rate_bps,
  termMonths: row.term_months,
  paymentAmount: row.payment_amount,
  originationFee: row.origination_fee,
  disbursedAmount: row.disbursed_amount,
  startDate: row.start_date,
  firstDueDate: row.first_due_date,
  maturityDate: row.maturity_date,
  dayCount: row.day_count,
  prepayment: row.prepayment,
  lateFee: { flat: row.late_fee_flat, bps: row.late_fee_bps, graceDays: row.late_fee_grace_days },
  ...(row.returned_payment_fee === 0 ? {} : { returnedPaymentFee: row.returned_payment_fee }),
  timeZone: row.time_zone,
  oldestUnpaidDueDate: row.oldest_unpaid_due_date,
  chargedOffOn: row.charged_off_on,
  disclosure:
    row.total_of_payments === null || row.finance_charge === null || row.apr_thousandths === null
      ? null
      : { amountFinanced: row.disbursed_amount, financeCharge: row.finance_charge, totalOfPayments: row.total_of_payments, aprThousandths: row.apr_thousandths },
  createdAt: row.created_at,
  levelPayment: Number(row.level_payment),
})

/**
 * A checkpoint's installment as a row of values: `Working`'s values in order, its three flags
 * one number (closed 1, reached 2, fee checked 4). A checkpoint holds every installment of its
 * loan and the close reads and writes it for every loan every night: without the names repeated
 * in each installment it is a quarter of the size. Checkpoints are written as rows and read in
 * either form: those written with names by earlier builds stay readable until the close rewrites
 * them (decision 157).
 */
type StoredWorking = readonly [number: number, dueDate: string, principalDue: number, interest: number, feesDue: number, principalPaid: number, interestPaid: number, feesPaid: number, flags: number]

/** An installment of a stored checkpoint: an object with names, or a row of values. */
const toWorking = (stored: StoredWorking | Working): Working => {
  if (!Array.isArray(stored)) return stored as Working
  const [number, dueDate, principalDue, interest, feesDue, principalPaid, interestPaid, feesPaid, flags] = stored as StoredWorking
  return { number, dueDate, principalDue, interest, feesDue, principalPaid, interestPaid, feesPaid, closed: (flags & 1) !== 0, reached: (flags & 2) !== 0, feeChecked: (flags & 4) !== 0 }
}

const toStoredWorking = (w: Working): StoredWorking => [
  w.number,
  w.dueDate,
  w.principalDue,
  w.interest,
  w.feesDue,
  w.principalPaid,
  w.interestPaid,
  w.feesPaid,
  (w.closed ? 1 : 0) | (w.reached ? 2 : 0) | (w.feeChecked ? 4 : 0),
]

/** A checkpoint as its column stores it (JSON, its installments as rows of values). */
export const checkpointColumn = (checkpoint: ServicingCheckpoint): string => JSON.stringify({ ...checkpoint, installments: checkpoint.installments.map(toStoredWorking) })

const toCheckpoint = (stored: unknown): ServicingCheckpoint => {
  const checkpoint = json<Omit<ServicingCheckpoint, 'installments'> & { readonly installments: readonly (StoredWorking | Working)[] }>(stored)
  return { ...checkpoint, installments: checkpoint.installments.map(toWorking) }
}

export const toLoan = (row: Selectable<LoansTable>): Loan => {
  const { levelPayment: _level, ...loan } = toLoanSummary({ ...row, level_payment: row.payment_amount })
  return { ...loan, checkpoint: row.checkpoint === null ? null : toCheckpoint(row.checkpoint) }
}

/** A loan's columns. */
export const loanColumns = (loan: Loan) => ({
  id: loan.id,
  party_id: loan.partyId,
  application_id: loan.applicationId,
  product_id: loan.productId,
  status: loan.status,
  currency: loan.currency,
  principal: loan.principal,
  interest_rate_bps: loan.interestRateBps,
  term_months: loan.termMonths,
  payment_amount: loan.paymentAmount,
  origination_fee: loan.originationFee,
  disbursed_amount: loan.disbursedAmount,
  start_date: loan.startDate,
  first_due_date: loan.firstDueDate,
  maturity_date: loan.maturityDate,
  day_count: loan.dayCount,
  prepayment: loan.prepayment,
  late_fee_flat: loan.lateFee.flat,
  late_fee_bps: loan.lateFee.bps,
  late_fee_grace_days: loan.lateFee.graceDays,
  returned_payment_fee: loan.returnedPaymentFee ?? 0,
  total_of_payments: loan.disclosure?.totalOfPayments ?? null,
  finance_charge: loan.disclosure?.financeCharge ?? null,
  apr_thousandths: loan.disclosure?.aprThousandths ?? null,
  time_zone: loan.timeZone,
  oldest_unpaid_due_date: loan.oldestUnpaidDueDate,
  charged_off_on: loan.chargedOffOn,
  checkpoint: loan.checkpoint === null ? null : checkpointColumn(loan.checkpoint),
  created_at: loan.createdAt,
})

export const toInstallment = (row: Selectable<LoanInstallmentsTable>): ServicedInstallment => ({
  loanId: row.loan_id,
  number: row.number,
  dueDate: row.due_date,
  principalDue: row.principal_due,
  interestDue: row.interest_due,
  feesDue: row.fees_due,
  principalPaid: row.principal_paid,
  interestPaid: row.interest_paid,
  feesPaid: row.fees_paid,
  interestAccrued: row.interest_accrued,
})

export const toTransaction = (row: Selectable<LoanTransactionsTable>): PostedTransaction => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type as TransactionType,
  effectiveDate: row.effective_date,
  amount: row.amount,
  principal: row.principal,
  interest: row.interest,
  fees: row.fees,
  paymentId: row.payment_id,
  reversesId: row.reverses_id,
  createdAt: row.created_at,
  sequence: row.seq,
})

export const toBalance = (row: Selectable<LoanBalancesTable>): PostedBalance => ({
  id: row.id,
  loanId: row.loan_id,
  transactionId: row.transaction_id,
  asOf: row.as_of,
  principalOutstanding: row.principal_outstanding,
  interestOutstanding: row.interest_outstanding,
  feesOutstanding: row.fees_outstanding,
  payoffAmount: row.payoff_amount,
  pastDueAmount: row.past_due_amount,
  nextDueDate: row.next_due_date,
  nextDueAmount: row.next_due_amount,
  createdAt: row.created_at,
  sequence: row.seq,
})

const json = <A>(value: unknown): A => (typeof value === 'string' ? JSON.parse(value) : value) as A

export const toPayment = (row: Selectable<PaymentsTable>): Payment => ({
  id: row.id,
  loanId: row.loan_id,
  clientId: row.client_id,
  idempotencyKey: row.idempotency_key,
  paymentMethodId: row.payment_method_id,
  amount: row.amount,
  ...(row.requested_amount === null ? {} : { requestedAmount: row.requested_amount }),
  currency: row.currency,
  status: row.status,
  failureCode: row.failure_code,
  allocation: row.allocation === null ? null : json(row.allocation),
  perInstallment: json(row.per_installment),
  transactionId: row.transaction_id,
  effectiveDate: row.effective_date,
  ...(row.return_code == null ? {} : { returnCode: row.return_code }),
  ...(row.returned_on == null ? {} : { returnedOn: row.returned_on }),
  ...(row.return_fee == null || row.return_fee === 0 ? {} : { returnFee: row.return_fee }),
  createdAt: row.created_at,
})

export const toCollateral = (row: Selectable<CollateralItemsTable>): CollateralItem => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type as CollateralItem['type'],
  description: row.description,
  valuation: row.valuation,
  currency: row.currency,
  lienPosition: row.lien_position,
  createdAt: row.created_at,
})

export const toDocument = (row: Selectable<LoanDocumentsTable>): LoanDocument => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type as LoanDocument['type'],
  periodStart: row.period_start,
  periodEnd: row.period_end,
  storageRef: row.storage_ref,
  fileName: row.file_name,
  contentType: row.content_type,
  createdAt: row.created_at,
})

export const withoutSequence = <A extends { readonly sequence: number }>({ sequence: _sequence, ...rest }: A): Omit<A, 'sequence'> => rest

export const installmentColumns = (i: ServicedInstallment) => ({
  loan_id: i.loanId,
  number: i.number,
  due_date: i.dueDate,
  principal_due: i.principalDue,
  interest_due: i.interestDue,
  fees_due: i.feesDue,
  principal_paid: i.principalPaid,
  interest_paid: i.interestPaid,
  fees_paid: i.feesPaid,
  interest_accrued: i.interestAccrued,
})

export const transactionColumns = (t: LedgerTransaction) => ({
  id: t.id,
  loan_id: t.loanId,
  type: t.type,
  effective_date: t.effectiveDate,
  amount: t.amount,
  principal: t.principal,
  interest: t.interest,
  fees: t.fees,
  payment_id: t.paymentId,
  reverses_id: t.reversesId,
  created_at: t.createdAt,
})

export const balanceColumns = (balance: BookedLoan['balance']) => ({
  id: balance.id,
  loan_id: balance.loanId,
  transaction_id: balance.transactionId,
  as_of: balance.asOf,
  principal_outstanding: balance.principalOutstanding,
  interest_outstanding: balance.interestOutstanding,
  fees_outstanding: balance.feesOutstanding,
  payoff_amount: balance.payoffAmount,
  past_due_amount: balance.pastDueAmount,
  next_due_date: balance.nextDueDate,
  next_due_amount: balance.nextDueAmount,
  created_at: balance.createdAt,
})

export const documentColumns = (d: LoanDocument) => ({
  id: d.id,
  loan_id: d.loanId,
  type: d.type,
  period_start: d.periodStart,
  period_end: d.periodEnd,
  storage_ref: d.storageRef,
  file_name: d.fileName,
  content_type: d.contentType,
  created_at: d.createdAt,
})

export const paymentColumns = (p: Payment) => ({
  id: p.id,
  loan_id: p.loanId,
  client_id: p.clientId,
  idempotency_key: p.idempotencyKey,
  payment_method_id: p.paymentMethodId,
  amount: p.amount,
  requested_amount: p.requestedAmount ?? null,
  currency: p.currency,
  status: p.status,
  failure_code: p.failureCode,
  allocation: p.allocation === null ? null : JSON.stringify(p.allocation),
  per_installment: JSON.stringify(p.perInstallment),
  transaction_id: p.transactionId,
  effective_date: p.effectiveDate,
  return_code: p.returnCode ?? null,
  returned_on: p.returnedOn ?? null,
  return_fee: p.returnFee ?? 0,
  created_at: p.createdAt,
})

/** A maker-checker request's row. */
export const requestColumns = (r: OperatorRequest): OperatorRequestsTable => ({
  id: r.id,
  loan_id: r.loanId,
  kind: r.kind,
  payment_id: r.paymentId,
  reason: r.reason,
  state: r.state,
  requested_by: r.requestedBy,
  created_at: r.createdAt,
  decided_by: r.decidedBy,
  decided_at: r.decidedAt,
  rejection_reason: r.rejectionReason,
})

export const toRequest = (row: Selectable<OperatorRequestsTable>): OperatorRequest => ({
  id: row.id,
  loanId: row.loan_id,
  kind: row.kind,
  paymentId: row.payment_id,
  reason: row.reason,
  state: row.state,
  requestedBy: row.requested_by,
  createdAt: row.created_at,
  decidedBy: row.decided_by,
  decidedAt: row.decided_at,
  rejectionReason: row.rejection_reason,
})
