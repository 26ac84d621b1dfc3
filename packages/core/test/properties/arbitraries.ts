import fc from 'fast-check'
import type { LoanSpec, Product } from './harness.js'
import { refSchedule, shiftDays, type RefDayCountConvention, type RefPrepayment } from './model.js'

/** Generated products, loans and clock positions for the property suites. */

/** Zones far from UTC on both sides (Adak keeps DST), and UTC. */
export const ZONES = ['UTC', 'Pacific/Kiritimati', 'America/Adak', 'Asia/Kolkata'] as const

/** Times of day near local midnight (ms into the day), and noon. */
export const msOfDay: fc.Arbitrary<number> = fc.constantFrom(1, 59_999, 3_600_000, 43_200_000, 84_600_000, 86_399_999)

const product: fc.Arbitrary<Product> = fc.record({
  rateBps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_600 })),
  termMonths: fc.integer({ min: 1, max: 36 }),
  originationFeeBps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
  dayCount: fc.constantFrom<RefDayCountConvention>('THIRTY_360', 'ACTUAL_365'),
  prepayment: fc.constantFrom<RefPrepayment>('REDUCE_TERM', 'REDUCE_INSTALLMENT'),
  lateFee: fc.record({ flat: fc.integer({ min: 0, max: 5_000 }), bps: fc.integer({ min: 0, max: 1_000 }), graceDays: fc.integer({ min: 0, max: 15 }) }),
  returnedPaymentFee: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 })),
  timeZone: fc.constantFrom(...ZONES),
})

/** Booking dates from 2024 to 2027; month ends (clamped due dates) and leap days often. */
const startDate: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 0, max: 4 * 365 }).map((k) => shiftDays('2024-01-01', k)),
  fc.constantFrom('2024-01-29', '2024-01-31', '2024-02-29', '2024-12-31', '2025-01-30', '2025-03-31', '2025-08-31', '2026-01-15', '2026-10-31', '2027-02-28', '2027-12-31'),
)

/**
 * Loans that amortize: every booked installment retires principal and the last stays within 1%
 * of the level payment (a product far from that is refused by the guardrail).
 */
const amortizes = (spec: LoanSpec): boolean => {
  const { payment, rows } = refSchedule({ principal: spec.amount, rateBps: spec.product.rateBps, termMonths: spec.product.termMonths, start: spec.start, dayCount: spec.product.dayCount, prepayment: spec.product.prepayment, lateFee: spec.product.lateFee })
  const last = rows.at(-1)!
  return rows.every((r) => r.principal > 0) && Math.abs(last.principal + last.interest - payment) * 100 <= payment
}

/** Amounts from 1,000 to 50,000,000 minor units; small ones often, where rounding decides most. */
export const loanSpec: fc.Arbitrary<LoanSpec> = fc
  .record({ product, amount: fc.oneof(fc.integer({ min: 1_000, max: 50_000_000 }), fc.integer({ min: 1_000, max: 60_000 })), start: startDate, msOfDay })
  .filter(amortizes)

export const share = fc.double({ min: 0, max: 1, noNaN: true })
