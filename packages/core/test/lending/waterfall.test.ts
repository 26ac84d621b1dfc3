import { expect } from 'chai'
import { deriveLoan } from '../../src/lending/replay.js'
import { allocate, DEFAULT_ALLOCATION_ORDER, take } from '../../src/lending/waterfall.js'
import { paid, servicedLoan } from './fixtures.js'

const owed = { principal: 50, interest: 30, fees: 40 }

describe('the waterfall', () => {
  it('fills the buckets in the order given, each up to what it owes', () => {
    expect(DEFAULT_ALLOCATION_ORDER).to.deep.equal(['fees', 'interest', 'principal'])
    expect(allocate(100, owed, DEFAULT_ALLOCATION_ORDER)).to.deep.equal({ fees: 40, interest: 30, principal: 30 })
    expect(allocate(100, owed, ['principal', 'interest', 'fees'])).to.deep.equal({ principal: 50, interest: 30, fees: 20 })
  })

  it('never pays more than is owed, nor more than the amount', () => {
    expect(allocate(1_000, owed, DEFAULT_ALLOCATION_ORDER)).to.deep.equal(owed)
    expect(allocate(0, owed, DEFAULT_ALLOCATION_ORDER)).to.deep.equal({ principal: 0, interest: 0, fees: 0 })
    expect([take(5, 10), take(10, 5), take(5, -1)]).to.deep.equal([5, 5, 0])
  })

  it("the replay follows the loan's order: 10,000 paid on a late installment with a 2,500 fee", () => {
    const lateFee = { flat: 2_500, bps: 0, graceDays: 0 }
    const payment = [paid(10_000, '2026-03-01')]
    const byDefault = deriveLoan(servicedLoan({ lateFee }), payment, '2026-03-01')
    const interestFirst = deriveLoan(servicedLoan({ lateFee, allocationOrder: ['interest', 'fees', 'principal'] }), payment, '2026-03-01')
    expect(byDefault.allocations.values().next().value!.allocation.pastDue).to.deep.equal({ principal: 0, interest: 7_500, fees: 2_500 })
    expect(interestFirst.allocations.values().next().value!.allocation.pastDue).to.deep.equal({ principal: 0, interest: 10_000, fees: 0 })
  })
})
