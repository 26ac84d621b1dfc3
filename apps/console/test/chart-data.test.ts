import { expect } from 'chai'
import { balanceDescription, balancePoints, previewSplits, scheduleSplits, splitDescription } from '../src/chart-data.js'
import { bucketName } from '../src/delinquency.js'

describe('the chart data', () => {
  it('splits a preview and a loan schedule into principal and interest per installment, and says it in words', () => {
    const preview = previewSplits([
      { number: 1, due_date: '2026-12-30', payment: 106_619, principal: 94_119, interest: 12_500, balance_after: 1_105_881 },
      { number: 2, due_date: '2027-01-30', payment: 106_619, principal: 95_099, interest: 11_520, balance_after: 1_010_782 },
    ])
    expect(preview).to.deep.equal([
      { number: 1, dueDate: '2026-12-30', principal: 94_119, interest: 12_500 },
      { number: 2, dueDate: '2027-01-30', principal: 95_099, interest: 11_520 },
    ])
    expect(scheduleSplits([{ installment_number: 3, due_date: '2027-02-28', principal_due: 10, interest_due: 2, fees_due: 5 }])).to.deep.equal([
      { number: 3, dueDate: '2027-02-28', principal: 10, interest: 2 },
    ])
    expect(splitDescription(preview, 'USD')).to.equal(
      '2 installments from 2026-12-30 to 2027-01-30: 1,892.18 USD of principal and 240.20 USD of interest in all. ' +
        'Interest is 125.00 USD of the first installment and 115.20 USD of the last; principal 941.19 USD of the first and 950.99 USD of the last.',
    )
    expect(splitDescription([], 'USD')).to.equal('No installments.')
  })

  it("takes a loan's balances as the last snapshot of each date, oldest date first, whatever order they came in", () => {
    const snapshot = (sequence: number, as_of: string, principal_outstanding: number, payoff_amount: number) => ({ sequence, as_of, principal_outstanding, payoff_amount })
    const points = balancePoints([snapshot(3, '2026-12-01', 1_200_000, 1_200_330), snapshot(1, '2026-11-30', 1_200_000, 1_200_000), snapshot(4, '2026-12-02', 1_200_000, 1_200_660), snapshot(2, '2026-12-01', 1_200_000, 1_200_329)])
    expect(points).to.deep.equal([
      { asOf: '2026-11-30', principalOutstanding: 1_200_000, payoffAmount: 1_200_000 },
      { asOf: '2026-12-01', principalOutstanding: 1_200_000, payoffAmount: 1_200_330 },
      { asOf: '2026-12-02', principalOutstanding: 1_200_000, payoffAmount: 1_200_660 },
    ])
    expect(balanceDescription(points, 'USD')).to.equal(
      'Balance on 3 dates from 2026-11-30 to 2026-12-02: principal outstanding 12,000.00 USD then 12,000.00 USD; payoff amount 12,000.00 USD then 12,006.60 USD.',
    )
    expect(balanceDescription([], 'USD')).to.equal('No balances.')
  })

  it('names each delinquency bucket, and shows one it does not know as the API sent it', () => {
    expect(['CURRENT', 'DPD_1_30', 'DPD_90_PLUS', 'DPD_LATER', null].map(bucketName)).to.deep.equal(['Current', '1–30 days past due', '90+ days past due', 'DPD_LATER', ''])
  })
})
