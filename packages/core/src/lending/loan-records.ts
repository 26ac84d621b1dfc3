import type { ApplicationId, LoanId, PartyId, PaymentId, ProductId } from '../domain/foundations/ids.js'
import type { ServicingCheckpoint } from './checkpoint.js'
import type { AllocationOrder, DayCount, LateFee, PrepaymentMode } from './servicing-terms.js'

/**
 * A loan's statuses: `ACTIVE` when booked; `PAID_OFF` while nothing is owed (a reversed payoff
 * makes it `ACTIVE` again); `CHARGED_OFF` is written off by an operator (`chargeOffLoan`), and no
 * change moves it after.
 */
export const LOAN_STATUSES = ['ACTIVE', 'PAID_OFF', 'CHARGED_OFF'] as const
/** One of `LOAN_STATUSES`. */
export type LoanStatus = (typeof LOAN_STATUSES)[number]

/**
 * A loan's cost as disclosure laws ask it to be shown (Regulation Z, 12 CFR 1026.18; the
 * commercial-financing laws of California and New York ask for the same figures): what the
 * borrower receives, what the credit costs, what is repaid, and the APR by Appendix J's actuarial
 * method. Money in minor units; the APR in thousandths of a percent (12.683% is 12683).
 */
export type LoanDisclosure = {
  /** The principal less the origination fee withheld (a prepaid finance charge). */
  readonly amountFinanced: number
  /** Total of payments − amount financed: the interest and the origination fee. */
  readonly financeCharge: number
  /** The sum of every scheduled payment. */
  readonly totalOfPayments: number
  readonly aprThousandths: number
}

/**
 * A booked loan (docs/applications.md "Decisioning"): the terms frozen at approval and the dates of
 * its schedule. Amounts are minor units of `currency`; dates are `YYYY-MM-DD`.
 */
export type Loan = {
  readonly id: LoanId
  readonly partyId: PartyId
  readonly applicationId: ApplicationId
  readonly productId: ProductId
  readonly status: LoanStatus
  readonly currency: string
  readonly principal: number
  readonly interestRateBps: number
  readonly termMonths: number
  /** The level installment (the last one may differ by the rounding it absorbs). */
  readonly paymentAmount: number
  /** The origination fee, withheld from the disbursement. */
  readonly originationFee: number
  /** What the borrower receives: principal − origination fee (the fee is withheld). */
  readonly disbursedAmount: number
  /** The date of booking in its business time zone; the first installment is due one month later. */
  readonly startDate: string
  readonly firstDueDate: string
  readonly maturityDate: string
  /** The servicing rules frozen at booking, from the product. */
  readonly dayCount: DayCount
  readonly prepayment: PrepaymentMode
  readonly lateFee: LateFee
  readonly allocationOrder?: AllocationOrder
  /** The business time zone (IANA) its dates are calendar dates in. */
  readonly timeZone: string
  /**
   * The due date of its oldest installment not yet paid, as of its latest posting (null once
   * nothing is owed): how many days past due it is on any later date, until the next posting.
   */
  readonly oldestUnpaidDueDate: string | null
  /** The date it was charged off, if it was. */
  readonly chargedOffOn: string | null
  /** Where the servicing replay stood at its latest posting; null: replayed from booking until its next posting. */
  readonly checkpoint: ServicingCheckpoint | null
  /** The Truth in Lending figures of the schedule as booked; null for loans booked before they were kept. */
  readonly disclosure: LoanDisclosure | null
  readonly createdAt: Date
}

/** What of a loan the servicing rules read. */
export type ServicedLoan = Pick<
  Loan,
  'id' | 'status' | 'principal' | 'interestRateBps' | 'termMonths' | 'paymentAmount' | 'startDate' | 'dayCount' | 'prepayment' | 'lateFee' | 'allocationOrder' | 'checkpoint'
>

/** An installment's statuses, computed from its payments and the date. */
export const INSTALLMENT_STATUSES = ['UPCOMING', 'DUE', 'PAID', 'PARTIALLY_PAID', 'LATE'] as const
/** Computed by the replay for a date, never stored. */
export type InstallmentStatus = (typeof INSTALLMENT_STATUSES)[number]

/**
 * One installment of a loan's schedule: what is due and what has been paid. `interestDue` is the
 * interest accrued to it so far plus, while it is open, a projection to its due date; once it
 * closes (on its due date, or earlier when a payment pays it in full) `interestAccrued` is true
 * and `interestDue` is final (docs/servicing.md "Schedule").
 */
export type LoanInstallment = {
  readonly loanId: LoanId
  /** 1 for the first installment. */
  readonly number: number
  readonly dueDate: string
  readonly principalDue: number
  readonly interestDue: number
  readonly feesDue: number
  readonly principalPaid: number
  readonly interestPaid: number
  readonly feesPaid: number
  readonly interestAccrued: boolean
}

/** The kinds of ledger entry. */
export const TRANSACTION_TYPES = ['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD', 'INTEREST_ACCRUAL', 'LATE_FEE', 'PAYMENT', 'REVERSAL', 'REALLOCATION', 'CHARGE_OFF'] as const
/** One of `TRANSACTION_TYPES`. */
export type TransactionType = (typeof TRANSACTION_TYPES)[number]

/**
 * An append-only ledger entry. `amount` is its size (≥ 0); the bucket fields are the signed
 * changes it makes to what is outstanding, so the sum of a loan's entries per bucket is
 * what the borrower owes in that bucket.
 */
export type LedgerTransaction = {
  readonly id: string
  readonly loanId: LoanId
  readonly type: TransactionType
  /** The date it takes effect, `YYYY-MM-DD`. */
  readonly effectiveDate: string
  readonly amount: number
  readonly principal: number
  readonly interest: number
  readonly fees: number
  /** The payment a `PAYMENT` entry records, or that a `REVERSAL` undoes. */
  readonly paymentId: PaymentId | null
  /** The entry a `REVERSAL` reverses. */
  readonly reversesId: string | null
  readonly createdAt: Date
}

/** What is outstanding after a ledger change. */
export type BalanceSnapshot = {
  readonly id: string
  readonly loanId: LoanId
  /** The ledger entry after which the snapshot was taken. */
  readonly transactionId: string
  readonly asOf: string
  readonly principalOutstanding: number
  readonly interestOutstanding: number
  readonly feesOutstanding: number
  /** Everything owed: principal, interest and fees outstanding. */
  readonly payoffAmount: number
  /** What fell due before `asOf` and is still unpaid. */
  readonly pastDueAmount: number
  readonly nextDueDate: string | null
  readonly nextDueAmount: number | null
  readonly createdAt: Date
}
