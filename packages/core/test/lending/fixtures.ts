import type { PaymentId } from '../../src/domain/foundations/ids.js'
import { amortize } from '../../src/lending/amortization.js'
import type { ServicedLoan } from '../../src/lending/loan-records.js'
import type { SettledPayment } from '../../src/lending/replay.js'
import { testId } from '../../src/testing/test-ids.js'

/** The loan of docs/servicing.md's worked examples: 1,200,000 at 12.00% over 12 months, 30/360, booked 2026-01-15. */
export const servicedLoan = (over: Partial<ServicedLoan> = {}): ServicedLoan => {
  const terms = { principal: 1_200_000, interestRateBps: 1_200, termMonths: 12, startDate: '2026-01-15', dayCount: 'THIRTY_360' as const, ...over }
  const level = amortize({ principal: terms.principal, annualRateBps: terms.interestRateBps, termMonths: terms.termMonths, startDate: terms.startDate, dayCount: terms.dayCount })[0]!.payment
  return { id: testId('loan-1'), status: 'ACTIVE', paymentAmount: level, prepayment: 'REDUCE_TERM', lateFee: { flat: 0, bps: 0, graceDays: 0 }, checkpoint: null, ...terms, ...over }
}

/** A payment of `amount` effective on `effectiveDate`. */
export const paid = (amount: number, effectiveDate: string, n = 1): SettledPayment => ({
  id: testId(`payment-${n}`) as PaymentId,
  amount,
  effectiveDate,
  createdAt: new Date(`${effectiveDate}T12:00:00.000Z`),
})
