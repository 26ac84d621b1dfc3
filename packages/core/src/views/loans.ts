import type { PartyPayoffQuote } from '../use-cases/servicing/quote-payoff.js'
import type { DelinquencySummary } from '../use-cases/servicing/portfolio.js'
import { formatAprThousandths } from '../lending/index.js'
import { instantText } from '../domain/foundations/instant.js'
import type { CollateralItem } from '../domain/loans/collateral.js'
import type { LoanDocument } from '../domain/loans/loan-document.js'
import { daysPastDue, type BalanceSnapshot, type InstallmentStatus, type LedgerTransaction, type Loan, type LoanDisclosure, type LoanInstallment, type LoanStatus, type LoanSummary, levelPaymentOf } from '../domain/loans/loan.js'
import { dateIn, type ServicingTerms } from '../domain/loans/servicing-terms.js'
import { delinquencyBucketOf, type DelinquencyBucket } from '../lending/index.js'

/** How partners see loans and their servicing records (docs/servicing.md): snake_case, instants as text. */

/** Servicing terms as the API shows them, on a product and on a loan. */
export const servicingTermsView = (terms: ServicingTerms) => ({
  time_zone: terms.timeZone,
  day_count: terms.dayCount,
  prepayment: terms.prepayment,
  late_fee_flat: terms.lateFee.flat,
  late_fee_bps: terms.lateFee.bps,
  late_fee_grace_days: terms.lateFee.graceDays,
  returned_payment_fee: terms.returnedPaymentFee ?? 0,
})

/** Servicing terms as the API shows them (`servicingTermsView`). */
export type ServicingTermsView = ReturnType<typeof servicingTermsView>

/** A disclosure as the API shows it: the APR as a percentage with three decimals (`"12.683"`). */
export const disclosureView = (d: LoanDisclosure | null) =>
  d === null
    ? null
    : {
        amount_financed: d.amountFinanced,
        finance_charge: d.financeCharge,
        total_of_payments: d.totalOfPayments,
        annual_percentage_rate: formatAprThousandths(d.aprThousandths),
      }

/** A loan as the API returns it. */
export type LoanView = {
  readonly loan_id: string
  readonly party_id: string
  readonly application_id: string
  readonly product_id: string
  readonly status: LoanStatus
  readonly currency: string
  readonly principal: number
  readonly interest_rate_bps: number
  readonly term_months: number
  readonly payment_amount: number
  readonly origination_fee: number
  readonly disbursed_amount: number
  readonly start_date: string
  readonly first_due_date: string
  readonly maturity_date: string
  readonly days_past_due: number
  readonly delinquency_bucket: DelinquencyBucket
  readonly charged_off_on: string | null
  readonly disclosure: ReturnType<typeof disclosureView>
  readonly created_at: string
} & ServicingTermsView

/** The API's view of a loan on the instant `now` (days past due are counted to its date in the loan's time zone). */
export const loanView = (l: Loan | LoanSummary, now: Date): LoanView => loanViewOn(l, dateIn(l.timeZone, now))

/** The API's view of a loan on its date `today` (`YYYY-MM-DD`). */
export const loanViewOn = (l: Loan | LoanSummary, today: string): LoanView => ({
  loan_id: l.id,
  party_id: l.partyId,
  application_id: l.applicationId,
  product_id: l.productId,
  status: l.status,
  currency: l.currency,
  principal: l.principal,
  interest_rate_bps: l.interestRateBps,
  term_months: l.termMonths,
  payment_amount: levelPaymentOf(l),
  origination_fee: l.originationFee,
  disbursed_amount: l.disbursedAmount,
  start_date: l.startDate,
  first_due_date: l.firstDueDate,
  maturity_date: l.maturityDate,
  ...servicingTermsView(l),
  days_past_due: daysPastDue(l, today),
  delinquency_bucket: delinquencyBucketOf(daysPastDue(l, today)),
  charged_off_on: l.chargedOffOn,
  disclosure: disclosureView(l.disclosure),
  created_at: instantText(l.createdAt),
})

/** Collateral as the API returns it. */
export const collateralView = (c: CollateralItem) => ({
  collateral_id: c.id,
  loan_id: c.loanId,
  type: c.type,
  description: c.description,
  valuation: c.valuation,
  currency: c.currency,
  lien_position: c.lienPosition,
  created_at: instantText(c.createdAt),
})

/** A loan document as the API returns it. */
export const loanDocumentView = (d: LoanDocument) => ({
  document_id: d.id,
  loan_id: d.loanId,
  type: d.type,
  period_start: d.periodStart,
  period_end: d.periodEnd,
  storage_ref: d.storageRef,
  file_name: d.fileName,
  content_type: d.contentType,
  created_at: instantText(d.createdAt),
})

/** A balance snapshot as partners see it (docs/servicing.md). */
export const balanceView = (b: BalanceSnapshot & { readonly sequence: number; readonly currency: string }) => ({
  balance_id: b.id,
  loan_id: b.loanId,
  as_of: b.asOf,
  currency: b.currency,
  principal_outstanding: b.principalOutstanding,
  interest_outstanding: b.interestOutstanding,
  fees_outstanding: b.feesOutstanding,
  payoff_amount: b.payoffAmount,
  past_due_amount: b.pastDueAmount,
  next_due_date: b.nextDueDate,
  next_due_amount: b.nextDueAmount,
  transaction_id: b.transactionId,
  sequence: b.sequence,
  created_at: instantText(b.createdAt),
})

/** A ledger entry as partners see it, with the loan's currency. */
export const transactionView = (t: LedgerTransaction & { readonly sequence: number; readonly currency: string }) => {
  const { created_at, ...entry } = entryView(t, t.currency)
  return { ...entry, sequence: t.sequence, created_at }
}

/** A ledger entry as partners see it before the ledger numbers it: `transactionView` without `sequence`. */
export const entryView = (t: LedgerTransaction, currency: string) => ({
  transaction_id: t.id,
  loan_id: t.loanId,
  type: t.type,
  effective_date: t.effectiveDate,
  amount: t.amount,
  currency,
  principal: t.principal,
  interest: t.interest,
  fees: t.fees,
  payment_id: t.paymentId,
  reverses_transaction_id: t.reversesId,
  created_at: instantText(t.createdAt),
})

/** An installment as partners see it, with its totals and its status as of the day it is read. */
export const installmentView = (i: LoanInstallment & { readonly status: InstallmentStatus; readonly currency: string }) => ({
  installment_number: i.number,
  due_date: i.dueDate,
  currency: i.currency,
  principal_due: i.principalDue,
  interest_due: i.interestDue,
  fees_due: i.feesDue,
  total_due: i.principalDue + i.interestDue + i.feesDue,
  principal_paid: i.principalPaid,
  interest_paid: i.interestPaid,
  fees_paid: i.feesPaid,
  total_paid: i.principalPaid + i.interestPaid + i.feesPaid,
  interest_accrued: i.interestAccrued,
  status: i.status,
})

/** A payoff quote as partners see it: what pays the loan off on `as_of`, by bucket, and the bank debits pending against it. */
export const payoffView = (q: PartyPayoffQuote) => ({
  loan_id: q.loan.id,
  as_of: q.asOf,
  currency: q.loan.currency,
  principal: q.outstanding.principal,
  interest: q.outstanding.interest,
  fees: q.outstanding.fees,
  payoff_amount: q.payoff,
  pending_amount: q.pendingAmount,
})

/** The portfolio's delinquency as the API returns it. */
export type DelinquencySummaryView = {
  readonly as_of: string
  readonly currencies: readonly {
    readonly currency: string
    readonly buckets: readonly { readonly bucket: DelinquencyBucket; readonly loans: number; readonly principal_outstanding: number; readonly past_due_amount: number }[]
  }[]
}

/** The portfolio's delinquency as the API returns it. */
export const delinquencySummaryView = (summary: DelinquencySummary): DelinquencySummaryView => ({
  as_of: instantText(summary.asOf),
  currencies: summary.currencies.map(({ currency, buckets }) => ({
    currency,
    buckets: buckets.map((b) => ({ bucket: b.bucket, loans: b.loans, principal_outstanding: b.principalOutstanding, past_due_amount: b.pastDueAmount })),
  })),
})
