import { expect } from 'chai'
import type { PaymentId } from '../../src/domain/foundations/ids.js'
import { deriveLoan, postChange } from '../../src/lending/loan-servicing.js'
import { servicedLoan } from './fixtures.js'

/** N2: what a loan owes never leaves the safe integers, however long it runs unpaid after maturity. */

const lateFee = { flat: 1_000_000_000_000_000, bps: 10_000, graceDays: 0 }
const loan = servicedLoan({ principal: 4_000_000_000_000_000, interestRateBps: 10_000, termMonths: 1, lateFee })
let counter = 0
const ids = (): string => `id-${(counter += 1)}`

describe('the ceiling on what a loan owes (N2)', () => {
  it('a 4 × 10^15 loan at 100% unpaid for two years owes 2^53 − 1 in all, not more', () => {
    const derived = deriveLoan(loan, [], '2028-02-15')
    expect(derived.payoff).to.equal(Number.MAX_SAFE_INTEGER)
    expect(Object.values(derived.outstanding).every(Number.isSafeInteger)).to.equal(true)
    expect(derived.installments.every((i) => Number.isSafeInteger(i.interestDue) && Number.isSafeInteger(i.feesDue))).to.equal(true)
  })

  it("the daily job's posting stays in the safe integers, and its ledger equals the derived state", () => {
    const change = postChange({ loan, ledger: { principal: loan.principal, interest: 0, fees: 0 }, checkpoint: null, payments: [], event: { type: 'TIME' }, date: '2028-02-15', ids, now: new Date('2028-02-15T00:00:00.000Z') })
    expect(change.transactions.every((t) => [t.amount, t.principal, t.interest, t.fees].every(Number.isSafeInteger))).to.equal(true)
    const posted = change.transactions.reduce((sum, t) => sum + t.principal + t.interest + t.fees, loan.principal)
    expect(posted).to.equal(change.derived.payoff)
    expect(change.derived.payoff).to.equal(Number.MAX_SAFE_INTEGER)
  })

  it('payments do not reopen it: charged in all (paid or not) stays 2^53 − 1, so every schedule figure and sum is safe (decision 126)', () => {
    const paid = (id: string, date: string) => ({ id: id as PaymentId, amount: 5_000_000_000_000_000, effectiveDate: date, createdAt: new Date(`${date}T12:00:00.000Z`) })
    const derived = deriveLoan(loan, [paid('p1', '2028-02-15')], '2032-02-15')
    const charged = derived.installments.reduce((sum, i) => sum + i.principalDue + i.interestDue + i.feesDue, 0)
    expect(charged).to.equal(Number.MAX_SAFE_INTEGER)
    expect(derived.installments.every((i) => Number.isSafeInteger(i.interestDue) && Number.isSafeInteger(i.interestPaid))).to.equal(true)
    expect(derived.payoff).to.equal(Number.MAX_SAFE_INTEGER - 5_000_000_000_000_000)
  })

  it('below the ceiling nothing changes: the first month of interest to the unit', () => {
    expect(deriveLoan(loan, [], '2026-02-15').outstanding).to.deep.equal({ principal: 4_000_000_000_000_000, interest: 333_333_333_333_333, fees: 0 })
  })
})
