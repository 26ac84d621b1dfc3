import { expect } from 'chai'
import { levelPaymentFor } from '../../src/lending/amortization.js'
import { recast } from '../../src/lending/recast.js'
import { rulesOf } from '../../src/lending/replay-state.js'
import { servicedLoan } from './fixtures.js'

const future = ['2026-03-15', '2026-04-15', '2026-05-15', '2026-06-15'].map((dueDate) => ({ dueDate, principalDue: 100_000, principalPaid: 0 }))
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0)

describe('prepayment recast', () => {
  it('REDUCE_TERM keeps the level payment and drops the installments it no longer needs', () => {
    const rules = rulesOf(servicedLoan({ prepayment: 'REDUCE_TERM' }))
    const shorter = recast(rules, future, 150_000, '2026-02-15', 106_619)
    expect(shorter.level).to.equal(106_619)
    expect(shorter.principalDue.length).to.be.below(future.length)
    expect(sum(shorter.principalDue)).to.equal(250_000)
  })

  it('REDUCE_INSTALLMENT keeps every due date at a new level payment', () => {
    const rules = rulesOf(servicedLoan({ prepayment: 'REDUCE_INSTALLMENT' }))
    const lower = recast(rules, future, 150_000, '2026-02-15', 106_619)
    expect(lower.level).to.equal(levelPaymentFor(250_000, 1_200, rules.counter, '2026-02-15', future.map((i) => i.dueDate)))
    expect(lower.principalDue.length).to.equal(future.length)
    expect(sum(lower.principalDue)).to.equal(250_000)
  })

  it('keeps what was paid on each installment, and ends the schedule when nothing is left', () => {
    const rules = rulesOf(servicedLoan())
    const partly = future.map((i, k) => (k === 0 ? { ...i, principalPaid: 40_000 } : i))
    expect(recast(rules, partly, 50_000, '2026-02-15', 106_619).principalDue[0]! - 40_000).to.be.at.least(0)
    expect(recast(rules, future, 400_000, '2026-02-15', 106_619)).to.deep.equal({ principalDue: [], level: 106_619 })
  })
})
