import { expect } from 'chai'
import { dayCounter } from '../src/lending/day-count.js'
import { approvedApplication } from './fixtures/loan-applications.js'
import { bookLoan, daysPastDue, type Loan } from '../src/domain/loans/loan.js'
import { loanView } from '../src/views/loans.js'
import { delinquencyBucketOf, deriveLoan, postChange, replay, type SettledPayment } from '../src/lending/loan-servicing.js'
import { DEFAULT_SERVICING_TERMS, dateIn, type ServicingTerms } from '../src/domain/loans/servicing-terms.js'
import { testId } from '../src/testing/test-ids.js'

/**
 * The worked examples of docs/servicing.md, on `deriveLoan` itself: each figure below is the one
 * the document states, worked by hand there. (The property tests against an independent model
 * are in servicing-reference-model.test.ts; the HTTP scenarios in apps/api/test/servicing-time.)
 */

const application = approvedApplication(
  { id: testId('application-1'), partyId: testId('party-1'), clientId: testId('client-1'), productId: testId('product-1') },
  new Date('2026-01-15T09:00:00.000Z'),
)

let counter = 0
const ids = { next: (): string => `id-${(counter += 1)}` }

/** 1,200,000 at 12.00% over 12 months, booked 2026-01-15 (installments due the 15th), with `terms`. */
const loanOn = (terms: Partial<ServicingTerms> = {}, at = '2026-01-15T09:00:00.000Z'): Loan =>
  bookLoan(application, ids, new Date(at), { ...DEFAULT_SERVICING_TERMS, ...terms }).loan

const payment = (amount: number, effectiveDate: string, n = 1): SettledPayment => ({
  id: testId(`payment-${n}`),
  amount,
  effectiveDate,
  createdAt: new Date(`${effectiveDate}T12:00:00.000Z`),
})

describe('loan servicing rules (docs/servicing.md worked examples)', () => {
  describe('daily interest', () => {
    it('30/360: 12,000 for the first month, 26,000 to 20 March (2 months and 5 days)', () => {
      const loan = loanOn()
      expect(deriveLoan(loan, [], '2026-02-15').outstanding).to.deep.equal({ principal: 1_200_000, interest: 12_000, fees: 0 })
      expect(deriveLoan(loan, [], '2026-03-20').outstanding.interest).to.equal(26_000)
      // The day of booking is not charged: a same-day payoff owes only the principal.
      expect(deriveLoan(loan, [], '2026-01-15').payoff).to.equal(1_200_000)
    })

    it('30/360 on the loan clock: every month between due dates is 30 days, February included', () => {
      const counter30 = dayCounter('THIRTY_360', '2026-01-31')
      expect([counter30.days('2026-01-31', '2026-02-28'), counter30.days('2026-02-28', '2026-03-31'), counter30.days('2026-03-31', '2026-04-30')]).to.deep.equal([30, 30, 30])
      // Part of a month counts its calendar days, at most 30.
      expect(counter30.days('2026-01-31', '2026-02-10')).to.equal(10)
    })

    it('Actual/365: the first period of 31 days is 12,230 (12,230.14 rounded half up)', () => {
      const loan = loanOn({ dayCount: 'ACTUAL_365' })
      expect(deriveLoan(loan, [], '2026-02-15').outstanding.interest).to.equal(12_230)
    })

    it('keeps accruing after maturity on the unpaid principal, to the last installment', () => {
      const loan = loanOn()
      const atMaturity = deriveLoan(loan, [], '2027-01-15')
      const later = deriveLoan(loan, [], '2027-02-15')
      expect(later.outstanding.interest - atMaturity.outstanding.interest).to.equal(12_000)
      expect(later.installments.at(-1)!.interestDue - atMaturity.installments.at(-1)!.interestDue).to.equal(12_000)
    })
  })

  describe('payments', () => {
    it('the first bill paid five days early: 10,400 interest, installment 1 PAID and never late, 1,600 prepaid', () => {
      const loan = loanOn()
      const paid = deriveLoan(loan, [payment(106_619, '2026-02-10')], '2026-02-16')
      expect(paid.allocations.get(testId('payment-1'))!.allocation).to.deep.equal({
        pastDue: { principal: 0, interest: 0, fees: 0 },
        current: { principal: 96_219, interest: 10_400, fees: 0 },
      })
      const [first, second] = paid.installments
      expect([first!.status, first!.interestDue, first!.principalDue, first!.principalPaid]).to.deep.equal(['PAID', 10_400, 96_219, 96_219])
      expect(second!.status).to.equal('UPCOMING')
      expect(paid.outstanding.principal).to.equal(1_103_781)
      expect(paid.daysPastDue).to.equal(0)
    })

    it('a prepayment recomputes the bill: REDUCE_TERM keeps the installment, REDUCE_INSTALLMENT lowers it', () => {
      const prepaid = [payment(600_000, '2026-01-15')]
      const shorter = deriveLoan(loanOn({ prepayment: 'REDUCE_TERM' }), prepaid, '2026-01-15')
      const lower = deriveLoan(loanOn({ prepayment: 'REDUCE_INSTALLMENT' }), prepaid, '2026-01-15')
      expect(shorter.installments.length).to.be.below(12)
      expect(lower.installments.length).to.equal(12)
      const bill = (d: typeof lower, k: number) => d.installments[k]!.principalDue + d.installments[k]!.interestDue
      expect(bill(lower, 2)).to.be.below(bill(shorter, 2))
      // Paying the recomputed bill is never an overpayment.
      for (const derived of [shorter, lower]) expect(derived.nextDueAmount!).to.be.at.most(derived.payoff)
      expect(lower.installments.reduce((sum, i) => sum + i.principalDue, 0)).to.equal(1_200_000)
      expect(shorter.installments.reduce((sum, i) => sum + i.principalDue, 0)).to.equal(1_200_000)
    })

    it('the payoff as of a date pays the loan off on that date; one minor unit less leaves one owed', () => {
      const loan = loanOn()
      const quote = deriveLoan(loan, [], '2026-03-20').payoff
      expect(quote).to.equal(1_226_000)
      expect(deriveLoan(loan, [payment(quote, '2026-03-20')], '2026-03-20').payoff).to.equal(0)
      expect(deriveLoan(loan, [payment(quote - 1, '2026-03-20')], '2026-03-20').payoff).to.equal(1)
    })

    it('applies the payments of one date in the order given, whatever their ids', () => {
      const loan = loanOn()
      const first = { ...payment(50_000, '2026-02-10', 9), createdAt: new Date('2026-02-10T12:00:00.000Z') }
      const second = { ...payment(70_000, '2026-02-10', 1), createdAt: new Date('2026-02-10T12:00:00.000Z') }
      const derived = deriveLoan(loan, [first, second], '2026-02-10')
      expect(derived.allocations.get(first.id)!.allocation.current.interest).to.equal(10_400)
      expect(derived.allocations.get(second.id)!.allocation.current.interest).to.equal(0)
    })
  })

  describe('late fees and delinquency', () => {
    const lateFee = { flat: 2_500, bps: 500, graceDays: 10 }

    it('charges 2,500 + 5% of the unpaid installment (5,331) once, the day after the grace period', () => {
      const loan = loanOn({ lateFee })
      expect(deriveLoan(loan, [], '2026-02-25').outstanding.fees).to.equal(0)
      const late = deriveLoan(loan, [], '2026-02-26')
      expect(late.outstanding.fees).to.equal(7_831)
      expect(late.installments[0]!.feesDue).to.equal(7_831)
      expect(deriveLoan(loan, [], '2026-03-10').outstanding.fees).to.equal(7_831)
      // Paid in the grace period: no fee.
      expect(deriveLoan(loan, [payment(106_619, '2026-02-20')], '2026-03-10').outstanding.fees).to.equal(0)
    })

    it('counts days past due from the oldest unpaid installment, in buckets', () => {
      const loan = loanOn()
      expect([deriveLoan(loan, [], '2026-02-15').daysPastDue, deriveLoan(loan, [], '2026-02-16').daysPastDue, deriveLoan(loan, [], '2026-04-16').daysPastDue]).to.deep.equal([0, 1, 60])
      expect(daysPastDue(loan, '2026-03-18')).to.equal(31)
      expect([0, 1, 30, 31, 60, 61, 90, 91].map(delinquencyBucketOf)).to.deep.equal([
        'CURRENT',
        'DPD_1_30',
        'DPD_1_30',
        'DPD_31_60',
        'DPD_31_60',
        'DPD_61_90',
        'DPD_61_90',
        'DPD_90_PLUS',
      ])
      expect(loanView(loan, new Date('2026-03-18T12:00:00.000Z'))).to.deep.include({ days_past_due: 31, delinquency_bucket: 'DPD_31_60' })
    })
  })

  describe('business time zone', () => {
    it('books on the date in the product’s zone: 02:00 UTC on 10 March is 9 March in New York', () => {
      const loan = loanOn({ timeZone: 'America/New_York' }, '2026-03-10T02:00:00.000Z')
      expect([loan.startDate, loan.firstDueDate, loan.timeZone]).to.deep.equal(['2026-03-09', '2026-04-09', 'America/New_York'])
      expect(dateIn('America/New_York', new Date('2026-04-10T01:00:00.000Z'))).to.equal('2026-04-09')
    })
  })
})

describe('postChange: the ledger follows the derived state, whatever the order of postings', () => {
  const loan = loanOn()
  const opening = { principal: 1_200_000, interest: 0, fees: 0 }
  const sums = (ledger: { principal: number; interest: number; fees: number }, entries: readonly { principal: number; interest: number; fees: number }[]) =>
    entries.reduce((s, t) => ({ principal: s.principal + t.principal, interest: s.interest + t.interest, fees: s.fees + t.fees }), ledger)
  const now = new Date('2026-03-20T12:00:00.000Z')
  const idsOf = () => {
    let n = 0
    return () => `entry-${(n += 1)}`
  }

  it('a payment dated in the past re-derives the loan from its date: the same ledger as if posted that day', () => {
    const paid = payment(106_619, '2026-02-15')
    // Posted on its date, then the daily job on 20 March.
    const onTime = postChange({ loan, ledger: opening, checkpoint: null, payments: [], event: { type: 'PAYMENT', payment: paid }, date: '2026-02-15', ids: idsOf(), now })
    const afterOnTime = sums(opening, onTime.transactions)
    const posted = { ...paid, allocation: onTime.allocation!.allocation, perInstallment: onTime.allocation!.perInstallment, transactionId: onTime.allocation!.transactionId }
    const job = postChange({ loan, ledger: afterOnTime, checkpoint: null, payments: [posted], event: { type: 'TIME' }, date: '2026-03-20', ids: idsOf(), now })
    // The job first (interest on 1,200,000 to 20 March), then the same payment posted late, dated 15 February.
    const first = postChange({ loan, ledger: opening, checkpoint: null, payments: [], event: { type: 'TIME' }, date: '2026-03-20', ids: idsOf(), now })
    expect(first.transactions.map((t) => [t.type, t.interest])).to.deep.equal([['INTEREST_ACCRUAL', 26_000]])
    const late = postChange({ loan, ledger: sums(opening, first.transactions), checkpoint: null, payments: [], event: { type: 'PAYMENT', payment: paid }, date: '2026-03-20', ids: idsOf(), now })
    // The interest the payment's principal no longer bears since 15 February comes off.
    const lowered = late.transactions.find((t) => t.type === 'INTEREST_ACCRUAL')!
    expect(lowered.interest).to.be.below(0)
    expect(sums(sums(opening, first.transactions), late.transactions)).to.deep.equal(sums(afterOnTime, job.transactions))
    expect(late.derived.outstanding).to.deep.equal(job.derived.outstanding)
    expect(late.allocation!.allocation).to.deep.equal(onTime.allocation!.allocation)
  })
})

describe('replay from a checkpoint', () => {
  it('gives what a replay from booking gives: every figure, whatever the payments and dates', () => {
    const loan = loanOn({ lateFee: { flat: 1_000, bps: 100, graceDays: 5 }, prepayment: 'REDUCE_INSTALLMENT' })
    const payments = [payment(50_000, '2026-01-15', 1), payment(120_000, '2026-03-02', 2), payment(700, '2026-03-02', 3), payment(300_000, '2026-05-20', 4)]
    let checkpoint = replay(loan, null, [], loan.startDate).checkpoint
    for (const [k, p] of payments.entries()) {
      const step = replay(loan, checkpoint, [p], p.effectiveDate)
      const full = replay(loan, null, payments.slice(0, k + 1), p.effectiveDate)
      expect({ ...step.derived, allocations: null }).to.deep.equal({ ...full.derived, allocations: null })
      expect(step.derived.allocations.get(p.id)).to.deep.equal(full.derived.allocations.get(p.id))
      expect(step.checkpoint).to.deep.equal(full.checkpoint)
      checkpoint = step.checkpoint
    }
    // And to any later date, with no payment since.
    expect(replay(loan, checkpoint, [], '2026-09-01').derived.outstanding).to.deep.equal(deriveLoan(loan, payments, '2026-09-01').outstanding)
  })
})
