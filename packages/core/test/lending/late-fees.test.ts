import { expect } from 'chai'
import { MAX_OWED } from '../../src/lending/accrual.js'
import { chargesLateFees, lateFeeDate, lateFeeOn } from '../../src/lending/late-fees.js'
import { deriveLoan } from '../../src/lending/replay.js'
import { servicedLoan } from './fixtures.js'

const fee = { flat: 2_500, bps: 500, graceDays: 10 }

describe('late fees', () => {
  it('fall due the first day after the grace period', () => {
    expect([lateFeeDate(fee, '2026-02-15'), lateFeeDate({ ...fee, graceDays: 0 }, '2026-02-28')]).to.deep.equal(['2026-02-26', '2026-03-01'])
  })

  it('are flat plus basis points of what is owed that day, rounded half up; none on nothing owed', () => {
    expect([lateFeeOn(fee, 106_619, 0), lateFeeOn(fee, 0, 0), lateFeeOn({ ...fee, bps: 1 }, 5_000, 0)]).to.deep.equal([7_831, 0, 2_501])
  })

  it('stop at the ceiling on what a loan owes', () => {
    expect(lateFeeOn(fee, 106_619, MAX_OWED - 100)).to.equal(100)
  })

  it('are charged only by terms that name one', () => {
    expect([chargesLateFees(fee), chargesLateFees({ flat: 0, bps: 0, graceDays: 5 })]).to.deep.equal([true, false])
  })

  it('the replay charges installment 1 once, on 2026-02-26, 7,831', () => {
    const loan = servicedLoan({ lateFee: fee })
    expect([deriveLoan(loan, [], '2026-02-25').outstanding.fees, deriveLoan(loan, [], '2026-02-26').outstanding.fees, deriveLoan(loan, [], '2026-03-10').outstanding.fees]).to.deep.equal([0, 7_831, 7_831])
  })
})
