import { expect } from 'chai'
import type { LoanApplication } from '../../src/domain/loans/loan-application.js'
import { bookLoan } from '../../src/domain/loans/loan.js'
import { DEFAULT_SERVICING_TERMS } from '../../src/domain/loans/servicing-terms.js'
import { deriveLoan, postChange } from '../../src/lending/loan-servicing.js'
import { testId } from '../../src/testing/test-ids.js'

/** N2: what a loan owes never leaves the safe integers, however long it runs unpaid after maturity. */

const application: LoanApplication = {
  id: testId('application-1'),
  partyId: testId('party-1'),
  clientId: testId('client-1'),
  productId: testId('product-1'),
  amount: 4_000_000_000_000_000,
  currency: 'USD',
  termMonths: 1,
  purpose: null,
  interestRateBps: 10_000,
  originationFeeBps: 0,
  status: 'APPROVED',
  submittedAt: new Date('2026-01-15T09:00:00.000Z'),
  decision: null,
  loanId: null,
  version: 2,
  createdAt: new Date('2026-01-15T09:00:00.000Z'),
  updatedAt: new Date('2026-01-15T09:00:00.000Z'),
}

let counter = 0
const ids = (): string => `id-${(counter += 1)}`
const lateFee = { flat: 1_000_000_000_000_000, bps: 10_000, graceDays: 0 }
const loan = bookLoan(application, { next: ids }, new Date('2026-01-15T09:00:00.000Z'), { ...DEFAULT_SERVICING_TERMS, lateFee }).loan

describe('the ceiling on what a loan owes (N2)', () => {
  it('a 4 × 10^15 loan at 100% unpaid for two years owes 2^53 − 1 in all, not more', () => {
    const derived = deriveLoan(loan, [], '2028-02-15')
    expect(derived.payoff).to.equal(Number.MAX_SAFE_INTEGER)
    expect(Object.values(derived.outstanding).every(Number.isSafeInteger)).to.equal(true)
    expect(derived.installments.every((i) => Number.isSafeInteger(i.interestDue) && Number.isSafeInteger(i.feesDue))).to.equal(true)
  })

  it("the daily job's posting stays in the safe integers, and its ledger equals the derived state", () => {
    const change = postChange({ loan, ledger: { principal: loan.principal, interest: 0, fees: 0 }, checkpoint: loan.checkpoint, payments: [], event: { type: 'TIME' }, date: '2028-02-15', ids, now: new Date('2028-02-15T00:00:00.000Z') })
    expect(change.transactions.every((t) => [t.amount, t.principal, t.interest, t.fees].every(Number.isSafeInteger))).to.equal(true)
    const posted = change.transactions.reduce((sum, t) => sum + t.principal + t.interest + t.fees, loan.principal)
    expect(posted).to.equal(change.derived.payoff)
    expect(change.derived.payoff).to.equal(Number.MAX_SAFE_INTEGER)
  })

  it('below the ceiling nothing changes: the first month of interest to the unit', () => {
    expect(deriveLoan(loan, [], '2026-02-15').outstanding).to.deep.equal({ principal: 4_000_000_000_000_000, interest: 333_333_333_333_333, fees: 0 })
  })
})
