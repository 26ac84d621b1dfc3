import type { ApplicationId, LoanId, PartyId, PaymentId, ProductId } from '../domain/foundations/ids.js'
import type { ServicingCheckpoint } from './checkpoint.js'
import type { AllocationOrder, DayCount, LateFee, PrepaymentMode } from './servicing-terms.js'

/** `ACTIVE` when booked; `PAID_OFF` while nothing is owed; `CHARGED_OFF` (by an operator) is final. */
export const LOAN_STATUSES = ['ACTIVE', 'PAID_OFF', 'CHARGED_OFF'] as const
/** One of `LOAN_STATUSES`. */
export type LoanStatus = (typeof LOAN_STATUSES)[number]

/** A loan's cost as Regulation Z (12 CFR 1026.18) shows it; the APR in thousandths of a percent (12.683% is 12683). */
export type LoanDisclosure = {
  /** The principal less the origination fee withheld. */
  readonly amountFinanced: number
  /** Total of payments − amount financed. */
  readonly financeCharge: number
  readonly totalOfPayments: number
  readonly aprThousandths: number
}

/** A booked loan (docs/applications.md "Decisioning"): its terms frozen at approval; minor units of `currency`, `YYYY-MM-DD` dates. */
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
  readonly paymentAmount: number
  readonly originationFee: number
  /** Principal − origination fee (the fee is withheld). */
  readonly disbursedAmount: number
  /** The date of booking in its business time zone. */
  readonly startDate: string
  readonly firstDueDate: string
  readonly maturityDate: string
  readonly dayCount: DayCount
  readonly prepayment: PrepaymentMode
  readonly lateFee: LateFee
  readonly allocationOrder?: AllocationOrder
  /** The product's returned-payment fee, frozen at booking (minor units); absent, none. */
  readonly returnedPaymentFee?: number
  readonly timeZone: string
  /** The due date of its oldest unpaid installment at its latest posting (null once nothing is owed). */
  readonly oldestUnpaidDueDate: string | null
  readonly chargedOffOn: string | null
  /** Where the replay stood at its latest posting; null: replayed from booking. */
  readonly checkpoint: ServicingCheckpoint | null
  /** Null for loans booked before disclosures were kept. */
  readonly disclosure: LoanDisclosure | null
  readonly createdAt: Date
}

/** What of a loan the servicing rules read. */
export type ServicedLoan = Pick<
  Loan,
  'id' | 'status' | 'principal' | 'interestRateBps' | 'termMonths' | 'paymentAmount' | 'startDate' | 'dayCount' | 'prepayment' | 'lateFee' | 'allocationOrder' | 'checkpoint'
>

/** An installment's statuses, computed by the replay for a date, never stored. */
export const INSTALLMENT_STATUSES = ['UPCOMING', 'DUE', 'PAID', 'PARTIALLY_PAID', 'LATE'] as const
/** One of `INSTALLMENT_STATUSES`: computed for a date, never stored. */
export type InstallmentStatus = (typeof INSTALLMENT_STATUSES)[number]

/** An installment: `interestDue` is accrued plus projected to its due date until it closes (`interestAccrued`). */
export type LoanInstallment = {
  readonly loanId: LoanId
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
export const TRANSACTION_TYPES = ['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD', 'INTEREST_ACCRUAL', 'LATE_FEE', 'PAYMENT', 'REVERSAL', 'REALLOCATION', 'CHARGE_OFF', 'RETURN_FEE'] as const
/** One of `TRANSACTION_TYPES`. */
export type TransactionType = (typeof TRANSACTION_TYPES)[number]

/** An append-only ledger entry: `amount` its size (≥ 0), the buckets the signed changes it makes to what is owed. */
export type LedgerTransaction = {
  readonly id: string
  readonly loanId: LoanId
  readonly type: TransactionType
  readonly effectiveDate: string
  readonly amount: number
  readonly principal: number
  readonly interest: number
  readonly fees: number
  readonly paymentId: PaymentId | null
  /** The entry a `REVERSAL` reverses. */
  readonly reversesId: string | null
  readonly createdAt: Date
}

/** What is outstanding after the ledger entry `transactionId`. */
export type BalanceSnapshot = {
  readonly id: string
  readonly loanId: LoanId
  readonly transactionId: string
  readonly asOf: string
  readonly principalOutstanding: number
  readonly interestOutstanding: number
  readonly feesOutstanding: number
  readonly payoffAmount: number
  readonly pastDueAmount: number
  readonly nextDueDate: string | null
  readonly nextDueAmount: number | null
  readonly createdAt: Date
}
