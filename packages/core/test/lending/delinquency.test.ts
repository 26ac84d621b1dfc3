import { expect } from 'chai'
import { DELINQUENCY_BUCKETS, DELINQUENCY_DAYS, daysPastDueSince, delinquencyBucketOf } from '../../src/lending/delinquency.js'
import { deriveLoan } from '../../src/lending/replay.js'
import { servicedLoan } from './fixtures.js'

describe('delinquency', () => {
  it('one table: the buckets in order, each starting the day after the one before ends', () => {
    const ranges = DELINQUENCY_BUCKETS.map((b) => DELINQUENCY_DAYS[b])
    expect(ranges[0]!.least).to.equal(0)
    ranges.slice(1).forEach((r, k) => expect(r.least).to.equal(ranges[k]!.most! + 1))
    expect(ranges.at(-1)!.most).to.equal(null)
  })

  it('buckets days past due at the edges of each range', () => {
    const days = [0, 1, 30, 31, 60, 61, 90, 91, 5_000]
    expect(days.map(delinquencyBucketOf)).to.deep.equal(['CURRENT', 'DPD_1_30', 'DPD_1_30', 'DPD_31_60', 'DPD_31_60', 'DPD_61_90', 'DPD_61_90', 'DPD_90_PLUS', 'DPD_90_PLUS'])
  })

  it('counts calendar days since the oldest unpaid due date, 0 before it and when none is unpaid', () => {
    expect([daysPastDueSince(null, '2026-03-01'), daysPastDueSince('2026-02-15', '2026-02-15'), daysPastDueSince('2026-02-15', '2026-03-17')]).to.deep.equal([0, 0, 30])
  })

  it('the replay counts the same: installment 1 unpaid on 2026-05-16 is 90 days past due', () => {
    const derived = deriveLoan(servicedLoan(), [], '2026-05-16')
    expect([derived.daysPastDue, delinquencyBucketOf(derived.daysPastDue)]).to.deep.equal([90, 'DPD_61_90'])
  })
})
