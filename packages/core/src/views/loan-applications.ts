import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'
import type { ApplicationStatus, LoanApplication } from '../domain/loans/loan-application.js'
import type { LoanProduct, RepaymentFrequency } from '../domain/loans/loan-product.js'
import { disclosureOf, scheduleOf } from '../domain/loans/loan.js'
import { basisPointsOf } from '../domain/foundations/money.js'
import { DEFAULT_SERVICING_TERMS, type ServicingTerms } from '../domain/loans/servicing-terms.js'
import { disclosureView, servicingTermsView, type ServicingTermsView } from './loans.js'

/** How partners and operators see loan applications and loan products. */

/** An application as the API returns it. */
export type LoanApplicationView = {
  readonly application_id: string
  readonly party_id: string
  readonly product_id: string
  readonly status: ApplicationStatus
  readonly amount: number
  readonly currency: string
  readonly term_months: number
  readonly purpose: string | null
  readonly interest_rate_bps: number
  readonly origination_fee_bps: number
  readonly submitted_at: string | null
  readonly decision: {
    readonly decision: 'APPROVED' | 'DECLINED'
    readonly reason: string | null
    readonly decided_by: string
    readonly decided_at: string
  } | null
  readonly loan_id: string | null
  readonly created_at: string
  readonly updated_at: string
}

/** The API's view of an application. */
export const loanApplicationView = (a: LoanApplication): LoanApplicationView => ({
  application_id: a.id,
  party_id: a.partyId,
  product_id: a.productId,
  status: a.status,
  amount: a.amount,
  currency: a.currency,
  term_months: a.termMonths,
  purpose: a.purpose,
  interest_rate_bps: a.interestRateBps,
  origination_fee_bps: a.originationFeeBps,
  submitted_at: instantTextOrNull(a.submittedAt),
  decision:
    a.decision === null
      ? null
      : { decision: a.decision.decision, reason: a.decision.reason, decided_by: a.decision.decidedBy, decided_at: instantText(a.decision.decidedAt) },
  loan_id: a.loanId,
  created_at: instantText(a.createdAt),
  updated_at: instantText(a.updatedAt),
})

/** A product as the API returns it. */
export type LoanProductView = {
  readonly product_id: string
  readonly name: string
  readonly description: string | null
  readonly currency: string
  readonly min_amount: number
  readonly max_amount: number
  readonly min_term_months: number
  readonly max_term_months: number
  readonly interest_rate_bps: number
  readonly origination_fee_bps: number
  readonly repayment_frequency: RepaymentFrequency
  readonly active: boolean
  readonly created_at: string
  readonly updated_at: string
} & ServicingTermsView

/** The API's view of a product. */
export const loanProductView = (p: LoanProduct): LoanProductView => ({
  product_id: p.id,
  name: p.name,
  description: p.description,
  currency: p.currency,
  min_amount: p.minAmount,
  max_amount: p.maxAmount,
  min_term_months: p.minTermMonths,
  max_term_months: p.maxTermMonths,
  interest_rate_bps: p.interestRateBps,
  origination_fee_bps: p.originationFeeBps,
  repayment_frequency: p.repaymentFrequency,
  ...servicingTermsView(p.servicing),
  active: p.active,
  created_at: instantText(p.createdAt),
  updated_at: instantText(p.updatedAt),
})

/**
 * The schedule an application's loan would have if booked on `start_date`, with its totals, as
 * the API returns it.
 */
export type SchedulePreview = {
  readonly application_id: string
  readonly currency: string
  readonly principal: number
  readonly interest_rate_bps: number
  readonly term_months: number
  readonly start_date: string
  readonly payment_amount: number
  readonly total_interest: number
  readonly total_of_payments: number
  readonly origination_fee: number
  readonly disbursed_amount: number
  /** The Truth in Lending figures of this schedule (`LoanDisclosure`); null if Appendix J finds no rate. */
  readonly disclosure: ReturnType<typeof disclosureView>
  readonly installments: readonly {
    readonly number: number
    readonly due_date: string
    readonly payment: number
    readonly principal: number
    readonly interest: number
    readonly balance_after: number
  }[]
}

/** The schedule preview of an application booked on `startDate`. */
export const schedulePreview = (a: LoanApplication, startDate: string, terms: ServicingTerms = DEFAULT_SERVICING_TERMS): SchedulePreview => {
  const schedule = scheduleOf(a, startDate, terms)
  const fee = basisPointsOf(a.amount, a.originationFeeBps)
  const totalInterest = schedule.reduce((total, i) => total + i.interest, 0)
  return {
    application_id: a.id,
    currency: a.currency,
    principal: a.amount,
    interest_rate_bps: a.interestRateBps,
    term_months: a.termMonths,
    start_date: startDate,
    payment_amount: schedule[0]?.payment ?? 0,
    total_interest: totalInterest,
    total_of_payments: a.amount + totalInterest,
    origination_fee: fee,
    disbursed_amount: a.amount - fee,
    disclosure: disclosureView(disclosureOf(schedule, a.amount - fee, startDate)),
    installments: schedule.map((i) => ({
      number: i.number,
      due_date: i.dueDate,
      payment: i.payment,
      principal: i.principal,
      interest: i.interest,
      balance_after: i.balanceAfter,
    })),
  }
}
