import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { idempotencyKeyReused, invalidRequest, invalidState, notFound, overpayment } from '../src/domain/foundations/errors.js'
import { approvedApplication } from './fixtures/loan-applications.js'
import { bookLoan } from '../src/domain/loans/loan.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { PaymentMethod } from '../src/domain/loans/payment-method.js'
import { sequentialIds } from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'
import { OPERATOR_CONTEXT } from '../src/domain/audit/audit-event.js'
import { planChargeOff } from '../src/use-cases/servicing/charge-off-loan.js'
import { planSubmission } from '../src/use-cases/ach/submission.js'
import { accepted, declined, planPayment, type Charge, type PaymentOrder } from '../src/use-cases/servicing/plan-payment.js'
import { planReversal } from '../src/use-cases/servicing/reverse-payment.js'
import type { LoadedLoan } from '../src/use-cases/servicing/posting.js'

/** The servicing deciders alone: a locked loan and what the change asks, no repository. */

const BOOKED_AT = new Date('2026-01-15T10:00:00.000Z')

/** A loan of 1,200,000 at 12% over `termMonths`, as a change locks it on its booking day. */
const lockedLoan = (termMonths: number, over: Partial<LoadedLoan['loan']> = {}): LoadedLoan => {
  const application = approvedApplication(
    { id: testId('app-1'), partyId: testId('party-1'), clientId: testId('client-1'), productId: testId('product-1') },
    BOOKED_AT,
    { termMonths },
  )
  const booked = bookLoan(application, sequentialIds(), BOOKED_AT)
  return { loan: { ...booked.loan, ...over }, installments: booked.installments, latest: booked.balance, pendingAmount: 0, payments: null, returned: null }
}

const method: PaymentMethod = {
  id: testId('method-1'),
  loanId: testId('loan-1'),
  type: 'bank_account',
  nickname: null,
  isDefault: true,
  status: 'active',
  token: 'btok_1',
  last4: '6789',
  accountHolderName: 'Acme Corp',
  accountType: 'checking',
  brand: null,
  expMonth: null,
  expYear: null,
  createdAt: BOOKED_AT,
  updatedAt: BOOKED_AT,
}

const order = (amount: number, over: Partial<PaymentOrder> = {}): PaymentOrder => ({
  clientId: testId('client-1'),
  idempotencyKey: 'k1',
  amount,
  currency: 'USD',
  paymentMethodId: method.id,
  ids: sequentialIds(),
  ...over,
})

const charge = (plan: E.Either<unknown, unknown>): Charge => {
  if (E.isLeft(plan) || (plan.right as { _tag: string })._tag !== 'Charge') throw new Error(`expected a Charge, got ${JSON.stringify(plan)}`)
  return plan.right as Charge
}

describe('planPayment', () => {
  const twelve = lockedLoan(12)

  describe('refuses before any money moves', () => {
    const cases: readonly [string, () => E.Either<unknown, unknown>, unknown][] = [
      ['no loan (unknown, or not the party’s): NotFound loan', () => planPayment(O.none, O.none, order(1_000), O.some(method), BOOKED_AT), notFound('loan')],
      [
        'a method not of the loan: InvalidRequest payment_method_id',
        () => planPayment(O.some(twelve), O.none, order(1_000), O.none, BOOKED_AT),
        invalidRequest(`payment_method_id ${method.id} is not a payment method of this loan.`, 'payment_method_id'),
      ],
      ['another currency: InvalidRequest currency', () => planPayment(O.some(twelve), O.none, order(1_000, { currency: 'EUR' }), O.some(method), BOOKED_AT), invalidRequest('currency must be USD, the currency of the loan.', 'currency')],
      ['a charged-off loan: InvalidState', () => planPayment(O.some(lockedLoan(12, { status: 'CHARGED_OFF' })), O.none, order(1_000), O.some(method), BOOKED_AT), invalidState('loan', 'CHARGED_OFF', 'pay')],
      ['more than the payoff when the bill is less: Overpayment(payoff)', () => planPayment(O.some(twelve), O.none, order(1_200_001), O.some(method), BOOKED_AT), overpayment(1_200_000)],
      ['more than the final bill: Overpayment(payoff)', () => planPayment(O.some(lockedLoan(1)), O.none, order(1_212_001), O.some(method), BOOKED_AT), overpayment(1_200_000)],
    ]
    for (const [name, plan, refusal] of cases) it(name, () => expect(plan()).to.deep.equal(E.left(refusal)))
  })

  it('charges what is asked within the payoff, and writes the payment with its PAYMENT entry', () => {
    const plan = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT))
    expect(plan.token).to.equal('btok_1')
    expect(plan.succeeded.result).to.deep.include({ amount: 50_000, status: 'SUCCEEDED', effectiveDate: '2026-01-15', paymentMethodId: method.id, idempotencyKey: 'k1' })
    expect(plan.succeeded.posting.transactions.map((t) => [t.type, t.amount])).to.deep.equal([['PAYMENT', 50_000]])
    expect(plan.succeeded.posting.payments).to.deep.equal([plan.succeeded.result])
  })

  it('accepts the final bill above the payoff and settles at the payoff: 1,212,000 asked, 1,200,000 charged', () => {
    const plan = charge(planPayment(O.some(lockedLoan(1)), O.none, order(1_212_000), O.some(method), BOOKED_AT))
    expect(plan.succeeded.result).to.deep.include({ amount: 1_200_000, requestedAmount: 1_212_000 })
    expect(plan.succeeded.posting.transactions.map((t) => [t.type, t.amount])).to.deep.equal([['PAYMENT', 1_200_000]])
    expect(plan.succeeded.posting).to.deep.include({ loanStatus: 'PAID_OFF' })
  })

  it('writes a declined charge as a FAILED payment that changes no balance', () => {
    const plan = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT))
    const failed: Payment = { ...plan.succeeded.result, status: 'FAILED', failureCode: 'card_declined', allocation: null, perInstallment: [], transactionId: null }
    const ids = sequentialIds()
    const { posting } = declined(plan, 'card_declined', ids)
    expect(posting.events.map((e) => [e.type, e.resourceId, e.loanId])).to.deep.equal([['payment.failed', failed.id, failed.loanId]])
    expect(declined(plan, 'card_declined', sequentialIds())).to.deep.equal({
      posting: { transactions: [], installments: twelve.installments, balance: null, audit: null, payments: [failed], events: posting.events },
      result: failed,
    })
  })

  it('writes a charge the rail debits later as a PENDING payment: nothing posted, no event', () => {
    const plan = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT))
    const pending: Payment = { ...plan.succeeded.result, status: 'PENDING', allocation: null, perInstallment: [], transactionId: null }
    expect(accepted(plan)).to.deep.equal({
      posting: { transactions: [], installments: twelve.installments, balance: null, audit: null, payments: [pending], events: [] },
      result: pending,
    })
  })

  describe('with payments still pending on the loan', () => {
    // Booking day: the payoff is the principal, 1,200,000; the bill (the first installment) is less.
    const withPending = (pendingAmount: number): LoadedLoan => ({ ...twelve, pendingAmount })
    it('takes what, with them, stays within the payoff', () => {
      const plan = charge(planPayment(O.some(withPending(1_000_000)), O.none, order(200_000), O.some(method), BOOKED_AT))
      expect(plan.succeeded.result).to.deep.include({ amount: 200_000, status: 'SUCCEEDED' })
    })
    it('refuses what, with them, passes the payoff and the bill: Overpayment(payoff, pending)', () => {
      expect(planPayment(O.some(withPending(1_000_000)), O.none, order(200_001), O.some(method), BOOKED_AT)).to.deep.equal(E.left(overpayment(1_200_000, 1_000_000)))
    })
    it('takes no more than the payoff with them, even when the bill is more: the final bill of 1,212,000 is refused with 12,000 pending', () => {
      const oneMonth = (pendingAmount: number): LoadedLoan => ({ ...lockedLoan(1), pendingAmount })
      expect(planPayment(O.some(oneMonth(12_000)), O.none, order(1_188_001), O.some(method), BOOKED_AT)).to.deep.equal(E.left(overpayment(1_200_000, 12_000)))
      expect(charge(planPayment(O.some(oneMonth(12_000)), O.none, order(1_188_000), O.some(method), BOOKED_AT)).succeeded.result).to.deep.include({ amount: 1_188_000 })
      // With nothing pending the same bill is taken, settling at the payoff.
      expect(charge(planPayment(O.some(oneMonth(0)), O.none, order(1_212_000), O.some(method), BOOKED_AT)).succeeded.result).to.deep.include({ amount: 1_200_000 })
    })
  })

  describe('with a payment already under the key', () => {
    const taken = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT)).succeeded.result

    it('replays it for the same order, writing nothing', () => {
      expect(planPayment(O.some(twelve), O.some(taken), order(50_000), O.some(method), BOOKED_AT)).to.deep.equal(
        E.right({ _tag: 'Replay', change: { posting: { transactions: [], installments: twelve.installments, balance: null, audit: null, payments: [], events: [] }, result: taken } }),
      )
    })

    it('refuses the key for another amount', () => {
      expect(planPayment(O.some(twelve), O.some(taken), order(50_001), O.some(method), BOOKED_AT)).to.deep.equal(E.left(idempotencyKeyReused))
    })

    it('replays a final bill settled at the payoff for the same bill, whatever the loan is now, and refuses the key for the payoff', () => {
      const one = lockedLoan(1)
      const plan = charge(planPayment(O.some(one), O.none, order(1_212_000), O.some(method), BOOKED_AT))
      const paidOff: LoadedLoan = { ...one, loan: { ...one.loan, status: 'PAID_OFF' }, latest: { ...one.latest, transactionId: plan.succeeded.result.transactionId! } }
      const replay = (loan: LoadedLoan) => E.right({ _tag: 'Replay', change: { posting: { transactions: [], installments: loan.installments, balance: null, audit: null, payments: [], events: [] }, result: plan.succeeded.result } })
      // Paid off by it, or as before it (its reversal): the same order either way.
      for (const loan of [paidOff, one]) {
        expect(planPayment(O.some(loan), O.some(plan.succeeded.result), order(1_212_000), O.some(method), BOOKED_AT)).to.deep.equal(replay(loan))
        expect(planPayment(O.some(loan), O.some(plan.succeeded.result), order(1_200_000), O.some(method), BOOKED_AT)).to.deep.equal(E.left(idempotencyKeyReused))
      }
    })
  })
})

describe('planReversal', () => {
  const twelve = lockedLoan(12)
  const paid = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT)).succeeded
  // The loan as the payment's posting left it, with its successful payments (a reversal replays from booking).
  const afterPayment: LoadedLoan = { loan: { ...twelve.loan, checkpoint: paid.posting.checkpoint! }, installments: paid.posting.installments, latest: paid.posting.balance!, pendingAmount: 0, payments: [paid.result], returned: [] }
  const reversal = { context: OPERATOR_CONTEXT, reason: 'NSF return', ids: sequentialIds(), now: BOOKED_AT }

  it('undoes the payment: a REVERSAL entry of its amount, the payment REVERSED, the audit event', () => {
    const planned = planReversal(O.some(afterPayment), O.some(paid.result), reversal)
    if (E.isLeft(planned)) throw new Error(JSON.stringify(planned.left))
    expect(planned.right.result).to.deep.equal({ ...paid.result, status: 'REVERSED' })
    expect(planned.right.posting.transactions.map((t) => [t.type, t.amount, t.paymentId])).to.deep.equal([['REVERSAL', 50_000, paid.result.id]])
    expect(planned.right.posting.audit).to.deep.include({ action: 'payment.reversed' })
  })

  it('reverses a settled bank debit alike, its event naming the status it left', () => {
    const settledDebit: Payment = { ...paid.result, status: 'SETTLED' }
    const planned = planReversal(O.some({ ...afterPayment, payments: [settledDebit] }), O.some(settledDebit), reversal)
    if (E.isLeft(planned)) throw new Error(JSON.stringify(planned.left))
    expect(planned.right.result).to.deep.equal({ ...paid.result, status: 'REVERSED' })
    expect(planned.right.posting.transactions.map((t) => [t.type, t.amount, t.paymentId])).to.deep.equal([['REVERSAL', 50_000, paid.result.id]])
    expect(planned.right.posting.events.map((e) => [e.type, e.previous])).to.deep.equal([['payment.reversed', { status: 'SETTLED' }]])
  })

  const refusals: readonly [string, () => E.Either<unknown, unknown>, unknown][] = [
    ['no loan: NotFound loan', () => planReversal(O.none, O.some(paid.result), reversal), notFound('loan')],
    ['no payment: NotFound payment', () => planReversal(O.some(afterPayment), O.none, reversal), notFound('payment')],
    ['a payment already reversed: InvalidState', () => planReversal(O.some(afterPayment), O.some({ ...paid.result, status: 'REVERSED' }), reversal), invalidState('payment', 'REVERSED', 'reverse')],
    ['a bank debit still returnable (SUBMITTED): InvalidState', () => planReversal(O.some(afterPayment), O.some({ ...paid.result, status: 'SUBMITTED' }), reversal), invalidState('payment', 'SUBMITTED', 'reverse')],
    ['a bank debit returned: InvalidState', () => planReversal(O.some(afterPayment), O.some({ ...paid.result, status: 'RETURNED' }), reversal), invalidState('payment', 'RETURNED', 'reverse')],
    ['a bank debit not yet posted (PENDING): InvalidState', () => planReversal(O.some(afterPayment), O.some({ ...paid.result, status: 'PENDING' }), reversal), invalidState('payment', 'PENDING', 'reverse')],
    [
      'a charged-off loan: InvalidState',
      () => planReversal(O.some({ ...afterPayment, loan: { ...afterPayment.loan, status: 'CHARGED_OFF' } }), O.some(paid.result), reversal),
      invalidState('loan', 'CHARGED_OFF', 'reverse a payment of'),
    ],
  ]
  for (const [name, plan, refusal] of refusals) it(`refuses ${name}`, () => expect(plan()).to.deep.equal(E.left(refusal)))
})

describe('planSubmission', () => {
  const order = { ids: sequentialIds(), now: BOOKED_AT }
  const one = lockedLoan(1)
  const paidOff = charge(planPayment(O.some(one), O.none, { clientId: testId('client-1'), idempotencyKey: 'payoff', amount: 1_200_000, currency: 'USD', paymentMethodId: method.id, ids: sequentialIds() }, O.some(method), BOOKED_AT)).succeeded
  const afterPayoff: LoadedLoan = { loan: { ...one.loan, status: 'PAID_OFF', checkpoint: paidOff.posting.checkpoint! }, installments: paidOff.posting.installments, latest: paidOff.posting.balance!, pendingAmount: 10_000, payments: null, returned: null }
  const pending: Payment = { ...paidOff.result, id: testId('pending-1'), idempotencyKey: 'debit', amount: 10_000, status: 'PENDING', allocation: null, perInstallment: [], transactionId: null }

  it('fails a debit with nothing left to take (the loan paid off since): FAILED overpayment, nothing posted', () => {
    const planned = planSubmission(O.some(afterPayoff), O.some(pending), '2026-01-16', order)
    if (E.isLeft(planned)) throw new Error(JSON.stringify(planned.left))
    expect(planned.right.result).to.deep.include({ status: 'FAILED', failureCode: 'overpayment', allocation: null, transactionId: null })
    expect(planned.right.posting.transactions).to.deep.equal([])
    expect(planned.right.posting.events.map((e) => e.type)).to.deep.equal(['payment.failed'])
  })

  const twelve = lockedLoan(12)
  const debit = (amount: number): Payment => ({ ...pending, loanId: twelve.loan.id, amount })

  it('posts a PENDING debit today, whatever its effective entry date: SUBMITTED with its allocation and payment.submitted', () => {
    const planned = planSubmission(O.some(twelve), O.some(debit(50_000)), '2026-01-20', order)
    if (E.isLeft(planned)) throw new Error(JSON.stringify(planned.left))
    expect(planned.right.result).to.deep.include({ status: 'SUBMITTED', amount: 50_000, effectiveDate: '2026-01-15' })
    expect(planned.right.posting.transactions.map((t) => [t.type, t.effectiveDate, t.amount])).to.deep.equal([['PAYMENT', '2026-01-15', 50_000]])
    expect(planned.right.posting.payments[0]).to.deep.equal(planned.right.result)
    expect(planned.right.posting.events.map((e) => [e.type, e.previous])).to.deep.equal([['payment.submitted', { status: 'PENDING' }]])
  })

  it('fails a debit above both the payoff and the bill (FAILED overpayment), and caps one within the bill at the payoff', () => {
    const over = planSubmission(O.some(twelve), O.some(debit(1_300_000)), '2026-01-20', order)
    expect(E.isRight(over) && [over.right.result.status, over.right.result.failureCode, over.right.posting.transactions.length]).to.deep.equal(['FAILED', 'overpayment', 0])
    const capped = planSubmission(O.some(one), O.some({ ...debit(1_200_000), loanId: one.loan.id, requestedAmount: 1_212_000 }), '2026-01-20', order)
    expect(E.isRight(capped) && capped.right.result).to.deep.include({ status: 'SUBMITTED', amount: 1_200_000, requestedAmount: 1_212_000 })
  })

  it('fails a debit whose effective entry date is before today or more than 7 days after it', () => {
    for (const date of ['2026-01-14', '2026-01-23']) {
      const planned = planSubmission(O.some(twelve), O.some(debit(50_000)), date, order)
      expect(E.isRight(planned) && [planned.right.result.failureCode, planned.right.posting.transactions.length], date).to.deep.equal(['invalid_effective_date', 0])
    }
    expect(E.isRight(planSubmission(O.some(twelve), O.some(debit(50_000)), '2026-01-22', order))).to.equal(true)
  })

  it('refuses a payment that is not PENDING, and a loan that is not there', () => {
    expect(planSubmission(O.some(afterPayoff), O.some({ ...pending, status: 'SUBMITTED' }), '2026-01-16', order)).to.deep.equal(E.left(invalidState('payment', 'SUBMITTED', 'submit')))
    expect(planSubmission(O.some(afterPayoff), O.none, '2026-01-16', order)).to.deep.equal(E.left(notFound('payment')))
    expect(planSubmission(O.none, O.some(pending), '2026-01-16', order)).to.deep.equal(E.left(notFound('loan')))
  })
})

describe('planChargeOff', () => {
  const chargeOff = { context: OPERATOR_CONTEXT, reason: null, ids: sequentialIds(), now: new Date('2026-02-15T10:00:00.000Z') }

  it('posts what is owed to today, then writes it all off: nothing outstanding, the loan CHARGED_OFF', () => {
    const planned = planChargeOff(O.some(lockedLoan(12)), chargeOff)
    if (E.isLeft(planned)) throw new Error(JSON.stringify(planned.left))
    expect(planned.right.result).to.deep.include({ status: 'CHARGED_OFF', chargedOffOn: '2026-02-15' })
    expect(planned.right.posting.transactions.map((t) => [t.type, t.amount])).to.deep.equal([
      ['INTEREST_ACCRUAL', 12_000],
      ['CHARGE_OFF', 1_212_000],
    ])
    expect(planned.right.posting.balance).to.deep.include({ payoffAmount: 0, principalOutstanding: 0 })
  })

  it('refuses a loan that is not ACTIVE, and a missing one', () => {
    expect(planChargeOff(O.some(lockedLoan(12, { status: 'PAID_OFF' })), chargeOff)).to.deep.equal(E.left(invalidState('loan', 'PAID_OFF', 'charge off')))
    expect(planChargeOff(O.none, chargeOff)).to.deep.equal(E.left(notFound('loan')))
  })
})
