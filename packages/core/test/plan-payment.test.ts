import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { idempotencyKeyReused, invalidRequest, invalidState, notFound, overpayment } from '../src/domain/foundations/errors.js'
import type { LoanApplication } from '../src/domain/loans/loan-application.js'
import { bookLoan } from '../src/domain/loans/loan.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { PaymentMethod } from '../src/domain/loans/payment-method.js'
import { sequentialIds } from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'
import { declined, planPayment, type Charge, type PaymentOrder } from '../src/use-cases/servicing/plan-payment.js'
import type { LoadedLoan } from '../src/use-cases/servicing/posting.js'

/** `planPayment` decides alone: a locked loan, the payment under the key, the order, the method, the instant. */

const BOOKED_AT = new Date('2026-01-15T10:00:00.000Z')

/** A loan of 1,200,000 at 12% over `termMonths`, as a change locks it on its booking day. */
const lockedLoan = (termMonths: number, over: Partial<LoadedLoan['loan']> = {}): LoadedLoan => {
  const application: LoanApplication = {
    id: testId('app-1'),
    partyId: testId('party-1'),
    clientId: testId('client-1'),
    productId: testId('product-1'),
    amount: 1_200_000,
    currency: 'USD',
    termMonths,
    purpose: null,
    interestRateBps: 1_200,
    originationFeeBps: 0,
    status: 'APPROVED',
    submittedAt: BOOKED_AT,
    decision: null,
    loanId: null,
    version: 2,
    createdAt: BOOKED_AT,
    updatedAt: BOOKED_AT,
  }
  const booked = bookLoan(application, sequentialIds(), BOOKED_AT)
  return { loan: { ...booked.loan, ...over }, installments: booked.installments, latest: booked.balance, payments: null }
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
    expect(plan.succeeded.result.amount).to.equal(1_200_000)
    expect(plan.succeeded.posting.transactions.map((t) => [t.type, t.amount])).to.deep.equal([['PAYMENT', 1_200_000]])
    expect(plan.succeeded.posting).to.deep.include({ loanStatus: 'PAID_OFF' })
  })

  it('writes a declined charge as a FAILED payment that changes no balance', () => {
    const plan = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT))
    const failed: Payment = { ...plan.succeeded.result, status: 'FAILED', failureCode: 'card_declined', allocation: null, perInstallment: [], transactionId: null }
    expect(declined(plan, 'card_declined')).to.deep.equal({
      posting: { transactions: [], installments: twelve.installments, balance: null, audit: null, payments: [failed] },
      result: failed,
    })
  })

  describe('with a payment already under the key', () => {
    const taken = charge(planPayment(O.some(twelve), O.none, order(50_000), O.some(method), BOOKED_AT)).succeeded.result

    it('replays it for the same order, writing nothing', () => {
      expect(planPayment(O.some(twelve), O.some(taken), order(50_000), O.some(method), BOOKED_AT)).to.deep.equal(
        E.right({ _tag: 'Replay', change: { posting: { transactions: [], installments: twelve.installments, balance: null, audit: null, payments: [] }, result: taken } }),
      )
    })

    it('refuses the key for another amount', () => {
      expect(planPayment(O.some(twelve), O.some(taken), order(50_001), O.some(method), BOOKED_AT)).to.deep.equal(E.left(idempotencyKeyReused))
    })

    it('replays a final bill settled at the payoff when the same bill is sent again', () => {
      const one = lockedLoan(1)
      const plan = charge(planPayment(O.some(one), O.none, order(1_212_000), O.some(method), BOOKED_AT))
      const paidOff: LoadedLoan = { ...one, loan: { ...one.loan, status: 'PAID_OFF' }, latest: { ...one.latest, transactionId: plan.succeeded.result.transactionId! } }
      expect(planPayment(O.some(paidOff), O.some(plan.succeeded.result), order(1_212_000), O.some(method), BOOKED_AT)).to.deep.equal(
        E.right({ _tag: 'Replay', change: { posting: { transactions: [], installments: one.installments, balance: null, audit: null, payments: [] }, result: plan.succeeded.result } }),
      )
      expect(planPayment(O.some(one), O.some(plan.succeeded.result), order(1_212_000), O.some(method), BOOKED_AT)).to.deep.equal(E.left(idempotencyKeyReused))
    })
  })
})
