import { expect } from 'chai'
import { booked, inForce, ledgerBuckets, same, takeDebit, takePayment, termsOf, type LoanSpec, type ServicedLoan, type Taken } from './properties/harness.js'
import { refDaysPastDue, refDerive, refSchedule, refStatus, type RefState, type RefTerms } from './properties/model.js'

/**
 * The reference model of `properties/model.ts` checked by hand against the worked examples of
 * docs/servicing.md, and the cases the property suites found, computed by hand, against the use
 * cases. The generated properties are under `properties/`.
 */

// The worked examples of docs/servicing.md, by hand

const EXAMPLE: RefTerms = {
  principal: 1_200_000,
  rateBps: 1_200,
  termMonths: 12,
  start: '2026-01-15',
  dayCount: 'THIRTY_360',
  prepayment: 'REDUCE_TERM',
  lateFee: { flat: 0, bps: 0, graceDays: 0 },
}

describe('the servicing reference model (hand-computed examples)', () => {
  it('books 1,200,000 at 12.00% over 12 months: 106,619 a month, 94,619 + 12,000, then 95,565 + 11,054, then 96,521 + 10,098', () => {
    const { payment, rows } = refSchedule(EXAMPLE)
    expect(payment).to.equal(106_619)
    expect(rows.slice(0, 3)).to.deep.equal([
      { dueDate: '2026-02-15', principal: 94_619, interest: 12_000 },
      { dueDate: '2026-03-15', principal: 95_565, interest: 11_054 },
      { dueDate: '2026-04-15', principal: 96_521, interest: 10_098 },
    ])
    expect(rows.reduce((s, r) => s + r.principal, 0)).to.equal(1_200_000)
    expect(rows.at(-1)!.dueDate).to.equal('2027-01-15')
  })

  it('accrues 12,000 to 2026-02-15 and 26,000 to 2026-03-20 under 30/360, and 12,230 for the first 31 days under Actual/365', () => {
    expect(refDerive(EXAMPLE, [], '2026-02-15').outstanding).to.deep.equal({ principal: 1_200_000, interest: 12_000, fees: 0 })
    // 2 months (60 days) and 5 days: 65 days × 1,200,000 × 12% ÷ 360 = 26,000.
    expect(refDerive(EXAMPLE, [], '2026-03-20').outstanding.interest).to.equal(26_000)
    expect(refDerive({ ...EXAMPLE, dayCount: 'ACTUAL_365' }, [], '2026-02-15').outstanding.interest).to.equal(12_230)
    // A loan paid off on its start date owes no interest.
    expect(refDerive(EXAMPLE, [{ id: 'p', amount: 1_200_000, date: '2026-01-15', seq: 1 }], '2026-06-01').payoff).to.equal(0)
  })

  it('charges 2,500 + 500 bps of the unpaid 106,619 = 7,831 on the first day after a 10-day grace', () => {
    const terms: RefTerms = { ...EXAMPLE, lateFee: { flat: 2_500, bps: 500, graceDays: 10 } }
    expect(refDerive(terms, [], '2026-02-25').outstanding.fees).to.equal(0)
    expect(refDerive(terms, [], '2026-02-26').outstanding.fees).to.equal(7_831)
  })

  it('applies the first bill, 106,619, paid on 2026-02-10: 10,400 of interest (26 days), 94,619 of installment 1 and 1,600 of prepayment', () => {
    // 30/360: no whole month since 2026-01-15, and the part of a month counts its 26 calendar days.
    const state = refDerive(EXAMPLE, [{ id: 'p', amount: 106_619, date: '2026-02-10', seq: 1 }], '2026-02-10')
    expect(state.allocations.get('p')).to.deep.equal({ pastDue: { principal: 0, interest: 0, fees: 0 }, current: { principal: 96_219, interest: 10_400, fees: 0 } })
    expect(state.outstanding).to.deep.equal({ principal: 1_103_781, interest: 0, fees: 0 })
    expect(state.installments[0]).to.deep.include({ principalDue: 96_219, principalPaid: 96_219, interest: 10_400, interestPaid: 10_400, closed: true })
    expect(state.installments.reduce((s, i) => s + i.principalDue, 0)).to.equal(1_200_000)
    // Recast from that day keeping 106,619: installment 2 runs 34 days of 30/360 on 1,103,781
    // (12,509.52 → 12,510), so its principal is 94,109 and paying 106,619 on its due date settles it.
    expect(state.installments[1]).to.deep.include({ principalDue: 94_109 })
    const next = refDerive(EXAMPLE, [{ id: 'p', amount: 106_619, date: '2026-02-10', seq: 1 }, { id: 'q', amount: 106_619, date: '2026-03-15', seq: 2 }], '2026-03-16')
    expect(next.installments[1]).to.deep.include({ principalDue: 94_109, principalPaid: 94_109, interest: 12_510, interestPaid: 12_510, closed: true })
    expect(refStatus(next, next.installments[1]!)).to.equal('PAID')
  })

  it('recasts 1,000 at 12% over 3 months after 500 paid on the first due date: REDUCE_TERM keeps 340, REDUCE_INSTALLMENT pays 259', () => {
    // Booked: 340 a month; 330 + 10, 333 + 7, 337 + 3. On 2026-02-15: 10 interest, 330 principal, 160 prepaid (490 on installment 1).
    const small: RefTerms = { ...EXAMPLE, principal: 1_000, termMonths: 3 }
    expect(refSchedule(small)).to.deep.equal({
      payment: 340,
      rows: [
        { dueDate: '2026-02-15', principal: 330, interest: 10 },
        { dueDate: '2026-03-15', principal: 333, interest: 7 },
        { dueDate: '2026-04-15', principal: 337, interest: 3 },
      ],
    })
    const paid = [{ id: 'p', amount: 500, date: '2026-02-15', seq: 1 }]
    const parts = (s: RefState) => s.installments.map((i) => [i.principalDue, i.principalPaid])
    // 510 left: REDUCE_TERM 340 − 5 (5.10) = 335, then the rest 175.
    expect(parts(refDerive(small, paid, '2026-02-15'))).to.deep.equal([[490, 490], [335, 0], [175, 0]])
    // REDUCE_INSTALLMENT: 510 × 1.01² ÷ 2.01 = 258.83 → 259; 259 − 5 = 254, then the rest 256.
    expect(parts(refDerive({ ...small, prepayment: 'REDUCE_INSTALLMENT' }, paid, '2026-02-15'))).to.deep.equal([[490, 490], [254, 0], [256, 0]])
    // 1,010 paid on 2026-02-15 (10 of interest, all 1,000 of principal) leaves nothing: the schedule ends there.
    const ended = refDerive(small, [{ id: 'q', amount: 1_010, date: '2026-02-15', seq: 1 }], '2026-02-15')
    expect(parts(ended)).to.deep.equal([[1_000, 1_000]])
    expect(ended.payoff).to.equal(0)
  })
})

const UTC_TEN = 36_000_000
const oneMonth: LoanSpec = {
  product: { rateBps: 1_200, termMonths: 1, originationFeeBps: 0, dayCount: 'THIRTY_360', prepayment: 'REDUCE_TERM', lateFee: { flat: 2_500, bps: 500, graceDays: 10 }, returnedPaymentFee: 2_500, timeZone: 'UTC' },
  amount: 1_200_000,
  start: '2026-01-15',
  msOfDay: UTC_TEN,
}
const scheduleView = async (h: ServicedLoan) =>
  (await h.schedule()).map((i) => ({ number: i.installment_number, principalDue: i.principal_due, interestDue: i.interest_due, feesDue: i.fees_due, interestAccrued: i.interest_accrued, status: i.status }))
const outstandingOf = (q: { readonly principal: number; readonly interest: number; readonly fees: number }) => ({ principal: q.principal, interest: q.interest, fees: q.fees })

describe('cases the properties found (hand-computed, = the model)', () => {
  describe('the late fee of the last installment, after maturity', () => {
    it('is 500 bps of what it owes on the fee date, the interest accrued since maturity included: 2,500 + 500 bps × 1,216,400 = 63,320', async () => {
      // 1,200,000 at 12% for one month from 2026-01-15: due 2026-02-15 with 12,000 of interest; by
      // 2026-02-26 (the first day after a 10-day grace) 11 more days have accrued 4,400 to it.
      const h = await booked(oneMonth)
      const expected = { principal: 1_200_000, interest: 16_400, fees: 63_320 }
      same(refDerive(termsOf(oneMonth), [], '2026-02-26').outstanding, expected, 'model')
      h.moveTo('2026-02-26')
      await h.accrue()
      same(outstandingOf(await h.payoff()), expected, 'payoff quote on 2026-02-26')
      same(ledgerBuckets(await h.transactions()), expected, 'ledger on 2026-02-26')
    })
  })

  describe('a bank debit returned, with the returned-payment fee (docs/servicing.md "Returns")', () => {
    it('owes again what the debit paid, the interest since maturity and the 2,500 fee, charged the day of the return', async () => {
      // The debit of 1,212,000 submitted on the due date 2026-02-15 pays the loan off; its bank
      // returns it on 2026-02-17: principal 1,200,000, interest 12,000 + 2 days of 400 after
      // maturity (30/360), and the fee of 2,500 on installment 1, the oldest owing anything.
      const h = await booked(oneMonth)
      h.moveTo('2026-02-15')
      const taken: Taken[] = []
      await takeDebit(h, taken, 1_212_000, '2026-02-16', false)
      same((await h.loan()).status, 'PAID_OFF', 'paid off by the debit')
      h.moveTo('2026-02-17')
      const returned = await h.returnDebit(taken[0]!.id, 'R01')
      same([returned.status, returned.return_code], ['RETURNED', 'R01'], 'the debit returned')
      const expected = { principal: 1_200_000, interest: 12_800, fees: 2_500 }
      same(refDerive(termsOf(oneMonth), [], '2026-02-17', [{ id: taken[0]!.id, amount: 2_500, date: '2026-02-17', seq: 1 }]).outstanding, expected, 'model')
      same(outstandingOf(await h.payoff()), expected, 'payoff quote on 2026-02-17')
      same(ledgerBuckets(await h.transactions()), expected, 'ledger on 2026-02-17')
      const fee = (await h.transactions()).filter((t) => t.type === 'RETURN_FEE')
      same(fee.map((t) => [t.amount, t.fees, t.payment_id, t.effective_date]), [[2_500, 2_500, taken[0]!.id, '2026-02-17']], 'the RETURN_FEE entry')
      const loan = await h.loan()
      same([loan.status, loan.days_past_due], ['ACTIVE', 2], 'the loan owes again, two days past due')
    })
  })

  describe('interest_accrued of the last installment (its interest is final once it closes)', () => {
    it('is true once a payoff pays it in full before its due date', async () => {
      // On 2026-02-10: 26 days of 30/360 interest, 10,400; 1,210,400 pays everything.
      const h = await booked(oneMonth)
      h.moveTo('2026-02-10')
      await takePayment(h, [], 1_210_400)
      same(await scheduleView(h), [{ number: 1, principalDue: 1_200_000, interestDue: 10_400, feesDue: 0, interestAccrued: true, status: 'PAID' }], 'schedule on 2026-02-10')
    })

    it('stays false after maturity while principal is owed: interest keeps accruing to it', async () => {
      // 12,000 to 2026-02-15, then 5 days of 400.
      const h = await booked(oneMonth)
      h.moveTo('2026-02-20')
      same(await scheduleView(h), [{ number: 1, principalDue: 1_200_000, interestDue: 14_000, feesDue: 0, interestAccrued: false, status: 'LATE' }], 'schedule on 2026-02-20')
    })
  })

  describe('an installment paid in full ahead while an earlier one is still open', () => {
    it('closes that day and is never late: no interest, no late fee', async () => {
      // 1,000,000 at 36% over 36 months (30/360, REDUCE_TERM; late fee 1,000 + 100 bps, no grace),
      // booked 2026-01-15: 45,804 a month. On the day of booking 60,000 pays installment 1
      // (15,804) and prepays 44,196; 940,000 is recast from that day keeping 45,804: installment 2
      // (due 2026-03-15, 60 days: 56,400 of interest) gets no principal, installment 3 gets
      // 45,804 − 28,200 = 17,604. The same day 17,604 pays installment 3 in full.
      const spec: LoanSpec = {
        product: { rateBps: 3_600, termMonths: 36, originationFeeBps: 0, dayCount: 'THIRTY_360', prepayment: 'REDUCE_TERM', lateFee: { flat: 1_000, bps: 100, graceDays: 0 }, returnedPaymentFee: 0, timeZone: 'UTC' },
        amount: 1_000_000,
        start: '2026-01-15',
        msOfDay: UTC_TEN,
      }
      const h = await booked(spec)
      const taken: Taken[] = []
      await takePayment(h, taken, 60_000)
      expect((await h.schedule()).slice(0, 3).map((i) => i.principal_due)).to.deep.equal([60_000, 0, 17_604])
      await takePayment(h, taken, 17_604)
      // Then nothing is paid. Installment 2 closes on 2026-03-15 with 60 days on 922,396: 55,343.76 → 55,344,
      // and is charged 1,000 + 1% × 55,344 = 1,553 on 2026-03-16. Interest from 2026-03-15 belongs to
      // installment 4 (due 2026-05-15), so on 2026-04-16 only installment 2 is late.
      h.moveTo('2026-04-16')
      await h.accrue()
      same(refDerive(termsOf(spec), inForce(taken), '2026-04-16').outstanding.fees, 1_553, 'model fees on 2026-04-16')
      same((await scheduleView(h)).slice(1, 3), [
        { number: 2, principalDue: 0, interestDue: 55_344, feesDue: 1_553, interestAccrued: true, status: 'LATE' },
        { number: 3, principalDue: 17_604, interestDue: 0, feesDue: 0, interestAccrued: true, status: 'PAID' },
      ], 'installments 2 and 3 on 2026-04-16')
      same((await h.payoff()).fees, 1_553, 'fees on 2026-04-16')
    })
  })

  // 1,000 at 0.01% (30/360, REDUCE_INSTALLMENT) booked 2024-01-29: 999 paid that day leaves 1 of
  // principal, recast over the installments left with a level payment of 0 or 1.
  const afterResidual = async (termMonths: number) => {
    const spec: LoanSpec = {
      product: { rateBps: 1, termMonths, originationFeeBps: 0, dayCount: 'THIRTY_360', prepayment: 'REDUCE_INSTALLMENT', lateFee: { flat: 0, bps: 0, graceDays: 0 }, returnedPaymentFee: 0, timeZone: 'UTC' },
      amount: 1_000,
      start: '2024-01-29',
      msOfDay: UTC_TEN,
    }
    const h = await booked(spec)
    const taken: Taken[] = []
    await takePayment(h, taken, 999)
    return { terms: termsOf(spec), h, taken }
  }

  describe('a last installment with no principal left to it, on its due date after the loan is paid off', () => {
    it('closes (interest_accrued true): the last installment stays open only while principal is owed', async () => {
      // 3 months: after 999 the 1 left is recast as 1 on installment 2 and 0 on installment 3
      // (due 2024-04-29). 1 paid on 2024-03-25 pays the loan off without touching installment 3.
      const { terms, h, taken } = await afterResidual(3)
      h.moveTo('2024-03-25')
      await takePayment(h, taken, 1)
      h.moveTo('2024-04-29')
      const model = refDerive(terms, inForce(taken), '2024-04-29')
      const expected = [
        { number: 1, principalDue: 999, interestDue: 0, feesDue: 0, interestAccrued: true, status: 'PAID' },
        { number: 2, principalDue: 1, interestDue: 0, feesDue: 0, interestAccrued: true, status: 'PAID' },
        { number: 3, principalDue: 0, interestDue: 0, feesDue: 0, interestAccrued: true, status: 'PAID' },
      ]
      same(model.installments.map((i) => ({ number: i.number, principalDue: i.principalDue, interestDue: i.interest, feesDue: i.fees, interestAccrued: i.closed, status: refStatus(model, i) })), expected, 'model on 2024-04-29')
      same(await scheduleView(h), expected, 'schedule on 2024-04-29')
    })
  })

  describe('days past due after an installment that owes nothing closes on its due date, with no posting since', () => {
    it('are 0: that installment is PAID, so none unpaid is past due', async () => {
      // 4 months: after 999 the 1 left is recast as 0, 0 and 1; installment 2 (due 2024-03-29)
      // accrues 0 of interest on 1 and closes PAID on its due date. On 2024-03-30 nothing is past due.
      const { terms, h, taken } = await afterResidual(4)
      h.moveTo('2024-03-30')
      const model: RefState = refDerive(terms, inForce(taken), '2024-03-30')
      same([refStatus(model, model.installments[1]!), refDaysPastDue(model)], ['PAID', 0], 'model on 2024-03-30')
      const loan = await h.loan()
      same([(await h.schedule())[1]!.status, loan.days_past_due, loan.delinquency_bucket], ['PAID', 0, 'CURRENT'], 'installment 2 and the loan on 2024-03-30')
    })
  })
})
