import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import type { LoggedEvent } from '../src/domain/events/event.js'
import { eventView } from '../src/domain/events/event.js'
import { invalidRequest } from '../src/domain/foundations/errors.js'
import { bookLoan, type BookedLoan } from '../src/domain/loans/loan.js'
import { DEFAULT_SERVICING_TERMS } from '../src/domain/loans/servicing-terms.js'
import type { PaymentMethod } from '../src/domain/loans/payment-method.js'
import { listEvents } from '../src/use-cases/events/list-events.js'
import { accrueInterestForLoans } from '../src/use-cases/servicing/accrue-loans.js'
import { chargeOffLoan } from '../src/use-cases/servicing/charge-off-loan.js'
import { createPaymentMethodForPartyLoan } from '../src/use-cases/servicing/create-payment-method.js'
import { reverseLoanPayment } from '../src/use-cases/servicing/reverse-payment.js'
import { createPaymentIntentForPartyLoan } from '../src/use-cases/servicing/take-payment.js'
import { paymentView } from '../src/views/loan-payments.js'
import { fakePaymentProcessor, fakePaymentTokenizer, inMemoryAuditLog, inMemoryEventLog, inMemoryLoanApplicationRepository, inMemoryPaymentMethodRepository, sequentialIds, testClock } from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'
import { approvedApplication } from './fixtures/loan-applications.js'

/**
 * The events servicing changes cause (docs/events.md), on the in-memory adapters: each exactly
 * once per cause, in order, numbered per loan; and the event list's audience and filters.
 */

const borrower: Caller = { keyId: testId('key-1'), clientId: testId('client-1'), partyId: testId('11111111-1111-4111-8111-111111111111'), environment: 'live', scopes: ['partner:api'] }
/** The API client that onboarded the borrower's party (its key's party is the partner's own). */
const partner: Caller = { keyId: testId('key-2'), clientId: testId('client-2'), partyId: testId('22222222-2222-4222-8222-222222222222'), environment: 'live', scopes: ['partner:api'] }
const stranger: Caller = { keyId: testId('key-3'), clientId: testId('client-3'), partyId: testId('33333333-3333-4333-8333-333333333333'), environment: 'live', scopes: ['partner:api'] }

const BANK = { type: 'bank_account', account_holder_name: 'Acme Corp', routing_number: '021000021', account_number: '000123456789' }
const DECLINING_CARD = { type: 'card', card_token: 'tok_card_declined_1', last4: '0002', brand: 'visa', exp_month: 12, exp_year: 2030 }
const LATE_FEE = { flat: 2_500, bps: 0, graceDays: 5 }

const at = (date: string): Date => new Date(`${date}T10:00:00.000Z`)

const run = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
  return r.right
}

const setup = () => {
  const eventLog = inMemoryEventLog((partyId) => (partyId === borrower.partyId ? partner.clientId : null))
  const applications = inMemoryLoanApplicationRepository(inMemoryAuditLog(), () => false, eventLog)
  const loans = applications.loans
  const ids = sequentialIds()
  const clock = testClock(at('2026-01-15'))
  const deps = { loans, paymentMethods: inMemoryPaymentMethodRepository(loans), processor: fakePaymentProcessor(), tokenizer: fakePaymentTokenizer(), ids, clock, eventLog }
  const book = (): BookedLoan => {
    const application = approvedApplication({ id: testId(ids.next()), partyId: borrower.partyId, clientId: borrower.clientId, productId: testId(ids.next()) }, clock.now())
    const booked = bookLoan(application, ids, clock.now(), { ...DEFAULT_SERVICING_TERMS, lateFee: LATE_FEE })
    loans.book(booked)
    return booked
  }
  const addMethod = (loanId: string, input: object = BANK): Promise<PaymentMethod> => run(createPaymentMethodForPartyLoan(deps)(borrower, { partyId: borrower.partyId, loanId, ...input }))
  const pay = (loanId: string, method: PaymentMethod, amount: number, key: string) =>
    run(createPaymentIntentForPartyLoan(deps)(borrower, { partyId: borrower.partyId, loanId, amount, currency: 'USD', payment_method_id: method.id, idempotency_key: key }))
  /** The daily job on each day to `date`, as the scheduler runs it. */
  const daysTo = async (date: string) => {
    for (let day = new Date(clock.now().getTime() + 86_400_000); day <= at(date); day = new Date(day.getTime() + 86_400_000)) {
      clock.set(day)
      await run(accrueInterestForLoans(deps)(undefined))
    }
  }
  const events = (): readonly LoggedEvent[] => eventLog.all()
  const list = (caller: Caller, command: object = {}) => listEvents(deps)(caller, { limit: '100', ...command })()
  return { deps, book, addMethod, pay, daysTo, events, list, clock }
}

const types = (events: readonly LoggedEvent[]) => events.map((e) => e.type)

describe('events of servicing changes', () => {
  it('numbers a loan’s events 1, 2, 3… in the order written, and tells a payment and the payoff once each', async () => {
    const { book, addMethod, pay, events, clock } = setup()
    const { loan } = book()
    const method = await addMethod(loan.id)
    const first = await pay(loan.id, method, 100_000, 'one')
    expect(await pay(loan.id, method, 100_000, 'one')).to.deep.equal(first)
    const payoff = await pay(loan.id, method, 1_100_000, 'rest')
    expect(payoff.status).to.equal('SUCCEEDED')
    expect(types(events())).to.deep.equal(['payment.succeeded', 'payment.succeeded', 'loan.paid_off'])
    expect(events().map((e) => e.sequence)).to.deep.equal([1, 2, 3])
    const [paid, , off] = events()
    expect(paid).to.deep.include({ partyId: borrower.partyId, loanId: loan.id, resourceId: first.id, data: paymentView(first), previous: null, occurredAt: clock.now() })
    expect(off!.data).to.deep.include({ loan_id: loan.id, status: 'PAID_OFF', days_past_due: 0, delinquency_bucket: 'CURRENT' })
    expect(off!.previous).to.deep.equal({ status: 'ACTIVE' })
  })

  it('tells a declined charge as payment.failed, and a reversal as payment.reversed with the status it had', async () => {
    const { book, addMethod, pay, events, deps } = setup()
    const { loan } = book()
    const failed = await pay(loan.id, await addMethod(loan.id, DECLINING_CARD), 50_000, 'declined')
    expect(failed.status).to.equal('FAILED')
    const paid = await pay(loan.id, await addMethod(loan.id), 50_000, 'paid')
    const reversed = await run(reverseLoanPayment(deps)({ paymentId: paid.id }))
    expect(types(events())).to.deep.equal(['payment.failed', 'payment.succeeded', 'payment.reversed'])
    expect(events()[0]!.data).to.deep.equal(paymentView(failed))
    expect(events()[2]).to.deep.include({ resourceId: paid.id, data: paymentView(reversed), previous: { status: 'SUCCEEDED' }, sequence: 3 })
  })

  it('tells each bucket a loan crosses once, a late fee once, and the cure, however many days the job runs', async () => {
    const { book, addMethod, pay, daysTo, events } = setup()
    const { loan, installments } = book()
    const due = installments[0]!.dueDate
    expect(due).to.equal('2026-02-15')
    await daysTo('2026-03-20')
    expect(types(events())).to.deep.equal(['loan.delinquency_changed', 'loan.late_fee_assessed', 'loan.delinquency_changed'])
    const [late, fee, later] = events()
    expect(late).to.deep.include({ previous: { days_past_due: 0, delinquency_bucket: 'CURRENT' }, sequence: 1 })
    expect(late!.data).to.deep.include({ days_past_due: 1, delinquency_bucket: 'DPD_1_30' })
    expect(fee!.data).to.deep.include({ loan_id: loan.id, type: 'LATE_FEE', effective_date: '2026-02-21', amount: LATE_FEE.flat, fees: LATE_FEE.flat, currency: 'USD' })
    expect(fee!.resourceId).to.equal((fee!.data as { transaction_id: string }).transaction_id)
    expect(later).to.deep.include({ previous: { days_past_due: 30, delinquency_bucket: 'DPD_1_30' } })
    expect(later!.data).to.deep.include({ days_past_due: 31, delinquency_bucket: 'DPD_31_60' })
    // Paying what is past due cures it: one payment.succeeded, then the bucket back to CURRENT.
    const method = await addMethod(loan.id)
    await pay(loan.id, method, 300_000, 'cure')
    expect(types(events().slice(3))).to.deep.equal(['payment.succeeded', 'loan.delinquency_changed'])
    expect(events()[4]).to.deep.include({ previous: { days_past_due: 33, delinquency_bucket: 'DPD_31_60' } })
    expect(events()[4]!.data).to.deep.include({ days_past_due: 0, delinquency_bucket: 'CURRENT' })
    expect(events().map((e) => e.sequence)).to.deep.equal([1, 2, 3, 4, 5])
  })

  it('tells a charge-off after what it posted first, with the status the loan had', async () => {
    const { book, daysTo, events, deps, clock } = setup()
    const { loan } = book()
    clock.set(at('2026-02-20'))
    await run(chargeOffLoan(deps)({ loanId: loan.id, reason: 'no contact' }))
    expect(types(events())).to.deep.equal(['loan.delinquency_changed', 'loan.charged_off'])
    expect(events()[1]).to.deep.include({ previous: { status: 'ACTIVE' }, sequence: 2 })
    expect(events()[1]!.data).to.deep.include({ status: 'CHARGED_OFF', charged_off_on: '2026-02-20' })
    // A charged-off loan is not serviced again: no more events.
    await daysTo('2026-04-01')
    expect(events()).to.have.length(2)
  })

  it('shows the list to the party and to the client that onboarded it, narrowed by type, resource and time, and to no one else', async () => {
    const { book, addMethod, pay, list, clock } = setup()
    const { loan } = book()
    const method = await addMethod(loan.id)
    await pay(loan.id, method, 100_000, 'one')
    clock.set(at('2026-01-16'))
    const second = await pay(loan.id, method, 100_000, 'two')
    for (const caller of [borrower, partner]) {
      const page = await list(caller)
      expect(E.isRight(page) && page.right.items.map((e) => e.type)).to.deep.equal(['payment.succeeded', 'payment.succeeded'])
    }
    expect(await list(stranger)).to.deep.equal(E.right({ items: [], nextCursor: null }))
    const byResource = await list(partner, { resource_id: second.id })
    expect(E.isRight(byResource) && byResource.right.items.map((e) => e.resourceId)).to.deep.equal([second.id])
    const since = await list(partner, { since: '2026-01-16T00:00:00Z' })
    expect(E.isRight(since) && since.right.items.map((e) => e.resourceId)).to.deep.equal([second.id])
    const until = await list(partner, { until: '2026-01-16T00:00:00Z', type: 'payment.succeeded' })
    expect(E.isRight(until) && until.right.items).to.have.length(1)
    const paged = await list(partner, { limit: '1' })
    const next = E.isRight(paged) ? paged.right.nextCursor : null
    expect(next).to.be.a('string')
    const rest = await list(partner, { limit: '1', cursor: next })
    expect(E.isRight(rest) && rest.right.items.map((e) => e.resourceId)).to.deep.equal([second.id])
    expect(await list(partner, { since: '2026-01-16T00:00:00Z', until: '2026-01-16T00:00:00Z' })).to.deep.equal(E.left(invalidRequest('since must be before until.', 'until')))
    const bad = await list(partner, { type: 'loan.exploded' })
    expect(E.isLeft(bad) && bad.left._tag === 'InvalidRequest' && bad.left.param).to.equal('type')
  })

  it('shows an event as a webhook carries it: data with livemode, sequence only for a loan’s', async () => {
    const { book, addMethod, pay, events } = setup()
    const { loan } = book()
    const payment = await pay(loan.id, await addMethod(loan.id), 100_000, 'one')
    const view = eventView(events()[0]!, 'test')
    expect(view).to.deep.equal({
      id: events()[0]!.id,
      type: 'payment.succeeded',
      livemode: false,
      timestamp: '2026-01-15T10:00:00.000Z',
      occurred_at: '2026-01-15T10:00:00.000Z',
      sequence: 1,
      data: { ...paymentView(payment), livemode: false },
    })
    expect(eventView({ ...events()[0]!, sequence: null, previous: { status: 'X' } }, 'live')).to.not.have.property('sequence')
  })
})
