import { expect } from 'chai'
import type { ServicingCheckpoint } from '../../src/lending/checkpoint.js'
import { deriveLoan, replay } from '../../src/lending/replay.js'
import { paid, servicedLoan } from './fixtures.js'

const loan = servicedLoan({ lateFee: { flat: 2_500, bps: 500, graceDays: 10 } })
const first = paid(106_619, '2026-02-10', 1)
const second = paid(300_000, '2026-04-10', 2)

/** The checkpoint of `loan` after `first`, on 2026-04-01, as stored in JSON by the engine before its rules were split into modules. */
const STORED = `{"date":"2026-04-01","principal":1103781,"cursor":"2026-03-15","open":2,"level":106619,"installments":[{"number":1,"dueDate":"2026-02-15","principalDue":96219,"interest":10400,"feesDue":0,"principalPaid":96219,"interestPaid":10400,"feesPaid":0,"closed":true,"reached":true,"feeChecked":true},{"number":2,"dueDate":"2026-03-15","principalDue":94109,"interest":12510,"feesDue":7831,"principalPaid":0,"interestPaid":0,"feesPaid":0,"closed":true,"reached":true,"feeChecked":true},${[
  [3, '2026-04-15', 96522],
  [4, '2026-05-15', 97487],
  [5, '2026-06-15', 98462],
  [6, '2026-07-15', 99447],
  [7, '2026-08-15', 100441],
  [8, '2026-09-15', 101446],
  [9, '2026-10-15', 102460],
  [10, '2026-11-15', 103485],
  [11, '2026-12-15', 104520],
  [12, '2027-01-15', 105402],
]
  .map(([number, dueDate, principalDue]) => `{"number":${number},"dueDate":"${dueDate}","principalDue":${principalDue},"interest":0,"feesDue":0,"principalPaid":0,"interestPaid":0,"feesPaid":0,"closed":false,"reached":false,"feeChecked":false}`)
  .join(',')}]}`

describe('the replay', () => {
  it('keeps the checkpoint JSON shape: it writes what is stored for the same loan and payments', () => {
    expect(replay(loan, null, [first], '2026-04-01').checkpoint).to.deep.equal(JSON.parse(STORED))
  })

  it('resumes from a stored checkpoint to what a replay from booking derives', () => {
    const stored = JSON.parse(STORED) as ServicingCheckpoint
    const resumed = replay(loan, stored, [second], '2026-06-01')
    const fromBooking = replay(loan, null, [first, second], '2026-06-01')
    expect({ ...resumed.derived, allocations: null }).to.deep.equal({ ...fromBooking.derived, allocations: null })
    expect(resumed.checkpoint).to.deep.equal(fromBooking.checkpoint)
    expect(resumed.derived.allocations.get(second.id)).to.deep.equal(fromBooking.derived.allocations.get(second.id))
  })

  it('leaves out payments dated after the date it derives for', () => {
    expect(deriveLoan(loan, [first, second], '2026-04-01')).to.deep.equal(deriveLoan(loan, [first], '2026-04-01'))
  })

  it('does not change the checkpoint it resumes from', () => {
    const stored = JSON.parse(STORED) as ServicingCheckpoint
    replay(loan, stored, [second], '2026-06-01')
    expect(stored).to.deep.equal(JSON.parse(STORED))
  })
})
