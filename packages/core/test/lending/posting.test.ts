import { expect } from 'chai'
import type { LoanId, PaymentId } from '../../src/domain/foundations/ids.js'
import { ledgerSums } from '../../src/lending/buckets.js'
import { chargeOffEntries, paymentEntry, sameFigures, snapshotOf } from '../../src/lending/ledger-entries.js'
import { postChange, resumes, statusChange } from '../../src/lending/posting.js'
import { deriveLoan } from '../../src/lending/replay.js'
import { paid, servicedLoan } from './fixtures.js'

const NOW = new Date('2026-03-01T00:00:00.000Z')
const loan = servicedLoan()
const LOAN_ID = loan.id as LoanId
const idsFrom = (): (() => string) => {
  let n = 0
  return () => `t-${(n += 1)}`
}
const opening = { principal: 1_200_000, interest: 0, fees: 0 }

describe('posting', () => {
  it('a PAYMENT entry lowers each bucket by what the allocation paid in it', () => {
    const allocation = { pastDue: { principal: 0, interest: 12_000, fees: 0 }, current: { principal: 500, interest: 100, fees: 0 } }
    const posted = paymentEntry(LOAN_ID, 'p' as PaymentId, allocation, '2026-03-01', 't-1', NOW)
    expect([posted.type, posted.amount, posted.principal, posted.interest, posted.fees]).to.deep.equal(['PAYMENT', 12_600, -500, -12_100, 0])
  })

  it('the daily job posts the interest accrued since the last posting; the ledger then equals the derived state', () => {
    const change = postChange({ loan, ledger: opening, checkpoint: null, payments: [], event: { type: 'TIME' }, date: '2026-03-01', ids: idsFrom(), now: NOW })
    expect(change.transactions.map((t) => [t.type, t.interest])).to.deep.equal([['INTEREST_ACCRUAL', 17_600]])
    expect(ledgerSums([opening, ...change.transactions])).to.deep.equal(change.derived.outstanding)
  })

  it('a payment resumed from the checkpoint posts what a replay from booking posts', () => {
    const before = postChange({ loan, ledger: opening, checkpoint: null, payments: [], event: { type: 'TIME' }, date: '2026-02-20', ids: idsFrom(), now: NOW })
    const ledger = ledgerSums([opening, ...before.transactions])
    const event = { type: 'PAYMENT' as const, payment: paid(50_000, '2026-03-01') }
    expect(resumes(before.checkpoint, event, '2026-03-01')).to.equal(true)
    const resumed = postChange({ loan, ledger, checkpoint: before.checkpoint, payments: null, event, date: '2026-03-01', ids: idsFrom(), now: NOW })
    const fromBooking = postChange({ loan, ledger, checkpoint: null, payments: [], event, date: '2026-03-01', ids: idsFrom(), now: NOW })
    expect(resumed.transactions).to.deep.equal(fromBooking.transactions)
    expect(resumed.checkpoint).to.deep.equal(fromBooking.checkpoint)
  })

  it('a reversal never resumes, and one given no payments is refused as a bug', () => {
    const event = { type: 'REVERSAL' as const, payment: { ...paid(50_000, '2026-03-01'), allocation: null, perInstallment: [], transactionId: null } }
    const { checkpoint } = postChange({ loan, ledger: opening, checkpoint: null, payments: [], event: { type: 'TIME' }, date: '2026-02-20', ids: idsFrom(), now: NOW })
    expect(resumes(checkpoint, event, '2026-03-01')).to.equal(false)
    expect(() => postChange({ loan, ledger: opening, checkpoint, payments: null, event, date: '2026-03-01', ids: idsFrom(), now: NOW })).to.throw(/payments were not given/)
  })

  it('a charge-off writes off every bucket and leaves nothing due', () => {
    const { transaction, balance } = chargeOffEntries(LOAN_ID, { principal: 10, interest: 5, fees: 1 }, '2026-03-01', idsFrom(), NOW)
    expect([transaction.type, transaction.amount, transaction.principal, transaction.interest, transaction.fees]).to.deep.equal(['CHARGE_OFF', 16, -10, -5, -1])
    expect([balance.payoffAmount, balance.nextDueAmount, balance.transactionId]).to.deep.equal([0, null, transaction.id])
  })

  it('snapshots compare by their figures alone', () => {
    const derived = deriveLoan(loan, [], '2026-03-01')
    const a = snapshotOf(derived, LOAN_ID, 't-1', 's-1', NOW)
    expect(sameFigures(a, { ...a, id: 's-2', asOf: '2026-03-02' })).to.equal(true)
    expect(sameFigures(a, { ...a, pastDueAmount: a.pastDueAmount + 1 })).to.equal(false)
  })

  it('the status moves to PAID_OFF at a payoff and back to ACTIVE when a debt returns; a charged-off loan stays', () => {
    const payoff = deriveLoan(loan, [paid(1_217_600, '2026-03-01')], '2026-03-01')
    const owing = deriveLoan(loan, [], '2026-03-01')
    expect([statusChange(loan, payoff), statusChange({ status: 'PAID_OFF' }, owing), statusChange(loan, owing), statusChange({ status: 'CHARGED_OFF' }, payoff)]).to.deep.equal([
      { loanStatus: 'PAID_OFF' },
      { loanStatus: 'ACTIVE' },
      {},
      {},
    ])
  })
})
