import { DEFAULT_SERVICING_TERMS } from '../lending/index.js'
import type { LoanProduct } from '../domain/loans/loan-product.js'
import { testId } from './test-ids.js'

const SEEDED_AT = new Date('2026-11-22T00:00:00.000Z')

/** A seeded product: USD, monthly, the default servicing terms, active since the seed. */
const seeded = (p: Omit<LoanProduct, 'currency' | 'repaymentFrequency' | 'servicing' | 'active' | 'createdAt' | 'updatedAt'>): LoanProduct => ({
  ...p,
  currency: 'USD',
  repaymentFrequency: 'MONTHLY',
  servicing: DEFAULT_SERVICING_TERMS,
  active: true,
  createdAt: SEEDED_AT,
  updatedAt: SEEDED_AT,
})

/** The catalogue a fresh database is seeded with (docs/applications.md "Loan products"), in list order: for an in-memory catalogue like the database's. */
export const SEEDED_LOAN_PRODUCTS: readonly LoanProduct[] = [
  seeded({
    id: testId('5b0c1d2e-0001-4a00-8000-000000000001'),
    name: 'Working Capital Term Loan',
    description: 'Fixed-rate term loan for inventory, payroll and day-to-day operations.',
    minAmount: 500_000,
    maxAmount: 25_000_000,
    minTermMonths: 6,
    maxTermMonths: 36,
    interestRateBps: 1199,
    originationFeeBps: 200,
  }),
  seeded({
    id: testId('5b0c1d2e-0002-4a00-8000-000000000002'),
    name: 'Equipment Financing',
    description: 'Fixed-rate loan for machinery, vehicles and other equipment.',
    minAmount: 1_000_000,
    maxAmount: 50_000_000,
    minTermMonths: 12,
    maxTermMonths: 60,
    interestRateBps: 899,
    originationFeeBps: 100,
  }),
  seeded({
    id: testId('5b0c1d2e-0003-4a00-8000-000000000003'),
    name: 'Interest-Free Starter Loan',
    description: 'Small interest-free loan for new borrowers; a one-time origination fee applies.',
    minAmount: 100_000,
    maxAmount: 1_000_000,
    minTermMonths: 3,
    maxTermMonths: 12,
    interestRateBps: 0,
    originationFeeBps: 300,
  }),
]
