import { expect } from 'chai'
import { accrue, accrueTo, headroom, MAX_OWED } from '../../src/lending/accrual.js'
import { dayCounter } from '../../src/lending/day-count.js'
import { bookedState, rulesOf } from '../../src/lending/replay-state.js'
import { servicedLoan } from './fixtures.js'

describe('accrual over a stretch', () => {
  const counter = dayCounter('THIRTY_360', '2026-01-15')

  it('is the stretch interest on the principal, rounded once', () => {
    expect(accrue(counter, 1_200_000, 1_200, '2026-01-15', '2026-03-20', 1_200_000)).to.equal(26_000)
  })

  it('stops at MAX_OWED (2^53 − 1): only the headroom accrues, and nothing above it', () => {
    expect(MAX_OWED).to.equal(9_007_199_254_740_991)
    expect([headroom(MAX_OWED - 5), headroom(MAX_OWED), headroom(MAX_OWED + 10)]).to.deep.equal([5, 0, 0])
    expect(accrue(counter, 1_200_000, 1_200, '2026-01-15', '2026-02-15', MAX_OWED - 5)).to.equal(5)
    expect(accrue(counter, 1_200_000, 1_200, '2026-01-15', '2026-02-15', MAX_OWED)).to.equal(0)
  })

  it('accrueTo gives the stretch to the open installment and moves the cursor; an earlier date changes nothing', () => {
    const loan = servicedLoan()
    const state = bookedState(loan)
    accrueTo(state, rulesOf(loan), '2026-02-10')
    expect([state.installments[0]!.interest, state.cursor, state.charged]).to.deep.equal([10_400, '2026-02-10', 1_210_400])
    accrueTo(state, rulesOf(loan), '2026-02-01')
    expect([state.installments[0]!.interest, state.cursor]).to.deep.equal([10_400, '2026-02-10'])
  })
})
