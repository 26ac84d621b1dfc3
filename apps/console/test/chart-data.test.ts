import { expect } from 'chai'
import { balanceDescription, balancePoints, delinquencyByCurrency, delinquencyDescription, delinquencyRows, previewSplits, scheduleSplits, splitDescription } from '../src/chart-data.js'
import { bucketName, bucketShortName, queueBucketName } from '../src/delinquency.js'

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

  describe("the book's delinquency", () => {
    /** The API's answer for USD and JPY (`currencies` of `GET /internal/portfolio/delinquency`). */
    const bucket = (name: string, loans: number, principal_outstanding: number, past_due_amount: number) => ({ bucket: name, loans, principal_outstanding, past_due_amount })
    const answer = [
      {
        currency: 'JPY',
        buckets: [bucket('CURRENT', 1, 500_000, 0), bucket('DPD_1_30', 0, 0, 0), bucket('DPD_31_60', 0, 0, 0), bucket('DPD_61_90', 0, 0, 0), bucket('DPD_90_PLUS', 0, 0, 0)],
      },
      {
        currency: 'USD',
        buckets: [bucket('CURRENT', 12, 1_500_000, 0), bucket('DPD_1_30', 2, 250_000, 41_234), bucket('DPD_31_60', 0, 0, 0), bucket('DPD_61_90', 0, 0, 0), bucket('DPD_90_PLUS', 1, 90_000, 30_000)],
      },
    ]

    it('takes each currency in the order the API gives, every bucket with its loans and amounts in minor units', () => {
      const [jpy, usd] = delinquencyByCurrency(answer)
      expect(jpy).to.deep.equal({
        currency: 'JPY',
        buckets: [
          { bucket: 'CURRENT', loans: 1, principalOutstanding: 500_000, pastDueAmount: 0 },
          { bucket: 'DPD_1_30', loans: 0, principalOutstanding: 0, pastDueAmount: 0 },
          { bucket: 'DPD_31_60', loans: 0, principalOutstanding: 0, pastDueAmount: 0 },
          { bucket: 'DPD_61_90', loans: 0, principalOutstanding: 0, pastDueAmount: 0 },
          { bucket: 'DPD_90_PLUS', loans: 0, principalOutstanding: 0, pastDueAmount: 0 },
        ],
      })
      expect(usd!.buckets.map((b) => [b.bucket, b.loans])).to.deep.equal([['CURRENT', 12], ['DPD_1_30', 2], ['DPD_31_60', 0], ['DPD_61_90', 0], ['DPD_90_PLUS', 1]])
      expect(delinquencyByCurrency([])).to.deep.equal([])
    })

    it('says what the chart shows in words: the active loans, their principal, how many are past due and by how much, then each bucket', () => {
      const [jpy, usd] = delinquencyByCurrency(answer)
      expect(delinquencyDescription(usd!)).to.equal(
        '15 active loans in USD, with 18,400.00 USD of principal outstanding; 3 of them past due, by 712.34 USD in all. ' +
          'Current: 12; 1–30 days past due: 2; 31–60 days past due: 0; 61–90 days past due: 0; 90+ days past due: 1.',
      )
      expect(delinquencyDescription(jpy!)).to.equal(
        '1 active loan in JPY, with 500,000 JPY of principal outstanding; 0 of them past due, by 0 JPY in all. ' +
          'Current: 1; 1–30 days past due: 0; 31–60 days past due: 0; 61–90 days past due: 0; 90+ days past due: 0.',
      )
    })

    it("gives the table a row per bucket, in the chart's order, its money exact in the currency", () => {
      expect(delinquencyRows(delinquencyByCurrency(answer)[1]!)).to.deep.equal([
        { bucket: 'CURRENT', name: 'Current', loans: '12', principalOutstanding: '15,000.00 USD', pastDue: '0.00 USD' },
        { bucket: 'DPD_1_30', name: '1–30 days past due', loans: '2', principalOutstanding: '2,500.00 USD', pastDue: '412.34 USD' },
        { bucket: 'DPD_31_60', name: '31–60 days past due', loans: '0', principalOutstanding: '0.00 USD', pastDue: '0.00 USD' },
        { bucket: 'DPD_61_90', name: '61–90 days past due', loans: '0', principalOutstanding: '0.00 USD', pastDue: '0.00 USD' },
        { bucket: 'DPD_90_PLUS', name: '90+ days past due', loans: '1', principalOutstanding: '900.00 USD', pastDue: '300.00 USD' },
      ])
    })
  })

  it('names each delinquency bucket, and shows one it does not know as the API sent it; on a chart by days alone; in the queue, an active loan\'s alone', () => {
    expect(['CURRENT', 'DPD_1_30', 'DPD_90_PLUS', 'DPD_LATER', null].map(bucketName)).to.deep.equal(['Current', '1–30 days past due', '90+ days past due', 'DPD_LATER', ''])
    expect(['CURRENT', 'DPD_61_90', 'DPD_90_PLUS', 'DPD_LATER'].map(bucketShortName)).to.deep.equal(['Current', '61–90', '90+', 'DPD_LATER'])
    const loan = (status: string) => ({ status, delinquency_bucket: 'DPD_31_60' })
    expect(['ACTIVE', 'CHARGED_OFF', 'PAID_OFF'].map((status) => queueBucketName(loan(status)))).to.deep.equal(['31–60 days past due', '—', '—'])
  })
})
