import { DAY_COUNTS, type DayCount } from './day-count.js'
import { DEFAULT_ALLOCATION_ORDER, type AllocationOrder } from './waterfall.js'

export { DAY_COUNTS, type DayCount, DEFAULT_ALLOCATION_ORDER, type AllocationOrder }

/**
 * What a prepayment does: `REDUCE_TERM` keeps the installment and ends the loan sooner;
 * `REDUCE_INSTALLMENT` keeps the term and lowers the installments left.
 */
export const PREPAYMENT_MODES = ['REDUCE_TERM', 'REDUCE_INSTALLMENT'] as const
/** One of `PREPAYMENT_MODES`. */
export type PrepaymentMode = (typeof PREPAYMENT_MODES)[number]

/**
 * The late fee assessed once on an installment still unpaid when `graceDays` days after its due
 * date have passed: `flat` minor units plus `bps` basis points of what it still owes.
 */
export type LateFee = { readonly flat: number; readonly bps: number; readonly graceDays: number }

/**
 * How a product's loans are serviced (docs/servicing.md); `allocationOrder` absent is
 * `DEFAULT_ALLOCATION_ORDER`; `returnedPaymentFee` (minor units) is charged when the borrower's bank
 * returns a debit, absent none.
 */
export type ServicingTerms = {
  readonly dayCount: DayCount
  readonly prepayment: PrepaymentMode
  readonly lateFee: LateFee
  readonly timeZone: string
  readonly allocationOrder?: AllocationOrder
  readonly returnedPaymentFee?: number
}

/** The terms of a product that names none: 30/360, a prepayment shortens the term, no late fee, UTC. */
export const DEFAULT_SERVICING_TERMS: ServicingTerms = { dayCount: 'THIRTY_360', prepayment: 'REDUCE_TERM', lateFee: { flat: 0, bps: 0, graceDays: 0 }, timeZone: 'UTC' }
