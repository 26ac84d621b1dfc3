import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { notFound, overpayment, storeUnavailable, type NotFound, type Overpayment, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { ClientId, LoanId, PartyId, PaymentMethodId } from '../../domain/foundations/ids.js'
import { utcDate } from '../../domain/foundations/instant.js'
import type { PageRequest } from '../../domain/foundations/pagination.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { Change, LoanRepository, LockedLoan, PaymentReads, Posting } from '../../ports/loan-repository.js'
import type { OperatorRequest } from '../../domain/operators/operator-request.js'
import { autopayKey } from '../../domain/loans/autopay.js'
import { bookedLocked, paymentPosting, post, reversalPosting } from './loan-servicing-postings.js'
import { firstPage, withoutSequence, type ServicingSuite } from './loan-servicing-suite.js'
import { at, freshId, right } from './run.js'

/** The servicing contract's `change`: the locked state it hands over, what it writes (payments too) or leaves, and its serialising per loan. */
export const loanChangeContract = (suite: ServicingSuite): void => {
  const { borrower, bookedLoan, ownLoan, ofOwn, readsOf, expectOnlyForItsParty, method } = suite
  let loans: LoanRepository
  before(() => {
    loans = suite.loans()
  })

  describe('change', () => {
    /** A payment of `loan` accepted and not yet posted, dated its `createdAt`. */
    const pendingPayment = (loan: { readonly id: LoanId; readonly currency: string }, clientId: ClientId, methodId: PaymentMethodId, amount: number, createdAt: Date): Payment => ({
      id: freshId(),
      loanId: loan.id,
      clientId,
      idempotencyKey: freshId(),
      paymentMethodId: methodId,
      amount,
      currency: loan.currency,
      status: 'PENDING',
      failureCode: null,
      allocation: null,
      perInstallment: [],
      transactionId: null,
      effectiveDate: utcDate(createdAt),
      createdAt,
    })

    it('hands the locked state to the callback and writes its posting: entries in order, installments, snapshot, payment', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const state = bookedLocked(booked)
      const paid = paymentPosting(state, booked.loan.paymentAmount, at(`${booked.loan.firstDueDate}T15:00:00.000Z`), m.id, clientId, 'pay-1')
      const { handed, result } = await post(loans, booked.loan.id, () => paid.posting, paid.payment)
      expect(handed).to.deep.equal(O.some(state))
      expect(result).to.deep.equal(paid.payment)
      expect(paid.posting.transactions.map((t) => t.type)).to.deep.equal(['INTEREST_ACCRUAL', 'PAYMENT'])
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(
        O.some({ ...booked, loan: paid.state.loan, installments: paid.state.installments, transactions: [...booked.transactions, ...paid.posting.transactions], balance: paid.posting.balance }),
      )
      const { latest, ...record } = await readsOf(booked.loan).servicing()
      expect({ ...record, latest: withoutSequence([latest])[0] }).to.deep.equal({ loan: paid.state.loan, latest: paid.posting.balance })
      expect(await right(loans.payments.paymentById(paid.payment.id))).to.deep.equal(O.some(paid.payment))
      expect(await right(loans.payments.paymentByKey(clientId, 'pay-1'))).to.deep.equal(O.some(paid.payment))

      const next = await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED, events: [] }), 'nothing')
      expect(next).to.deep.equal({ handed: O.some(paid.state), result: 'nothing' })
      expect(withoutSequence(await readsOf(booked.loan).balances(firstPage(10)))).to.deep.equal([booked.balance, paid.posting.balance])
    })

    it('updates a payment by its id (a reversal), and reads inside the callback see what earlier changes wrote', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const key = `pay-${freshId()}`
      const paid = paymentPosting(bookedLocked(booked), 250_000, at(`${booked.loan.startDate}T18:00:00.000Z`), m.id, clientId, key)
      await post(loans, booked.loan.id, () => paid.posting, null)

      const now = at(`${booked.loan.startDate}T19:00:00.000Z`)
      const reversed = reversalPosting(paid.state, paid.payment, [paid.payment], now)
      const { payment, posting } = reversed
      let seen: readonly O.Option<Payment>[] = []
      const result = await right(
        loans.change({ loanId: booked.loan.id }, (_loan, reads: PaymentReads) =>
          pipe(
            TE.sequenceArray([reads.paymentById(paid.payment.id), reads.paymentByKey(clientId, key), reads.paymentByKey(clientId, 'never-used'), reads.paymentById(freshId())]),
            TE.map((found) => {
              seen = found
              return { posting, result: payment }
            }),
          ),
        ),
      )
      expect(seen).to.deep.equal([O.some(paid.payment), O.some(paid.payment), O.none, O.none])
      expect(result).to.deep.equal(payment)
      expect(await right(loans.payments.paymentById(payment.id))).to.deep.equal(O.some(payment))
      expect(await right(loans.payments.paymentByKey(clientId, key))).to.deep.equal(O.some(payment))
      expect(reversed.state.installments).to.deep.equal(booked.installments)
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(
        O.some({ ...booked, transactions: [...booked.transactions, ...paid.posting.transactions, ...posting.transactions], balance: posting.balance }),
      )
    })

    it('records a failed payment without touching the ledger, the schedule or the snapshots', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const now = at(`${booked.loan.startDate}T20:00:00.000Z`)
      const failed: Payment = {
        id: freshId(),
        loanId: booked.loan.id,
        clientId,
        idempotencyKey: 'declined-1',
        paymentMethodId: m.id,
        amount: 100_014,
        currency: 'USD',
        status: 'FAILED',
        failureCode: 'card_declined',
        allocation: null,
        perInstallment: [],
        transactionId: null,
        effectiveDate: utcDate(now),
        createdAt: now,
      }
      await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [failed], audit: NOT_AUDITED, events: [] }), null)
      expect(await right(loans.payments.paymentById(failed.id))).to.deep.equal(O.some(failed))
      expect(await right(loans.payments.paymentByKey(clientId, 'declined-1'))).to.deep.equal(O.some(failed))
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
      expect(withoutSequence(await readsOf(booked.loan).balances(firstPage(10)))).to.deep.equal([booked.balance])
    })

    it('records PENDING payments with nothing posted and sums them in the lock; reads posted payments (SUCCEEDED, SUBMITTED, SETTLED) in ledger order', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const day = booked.loan.startDate
      const pendingAt = (hour: number, amount: number): Payment => pendingPayment(booked.loan, clientId, m.id, amount, at(`${day}T${String(hour).padStart(2, '0')}:00:00.000Z`))
      const [first, second] = [pendingAt(9, 100_014), pendingAt(10, 2_000)]
      const record = (payments: readonly Payment[]) => post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments, audit: NOT_AUDITED, events: [] }), null)
      await record([second])
      await record([first])
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
      expect(await right(loans.payments.pending(booked.loan.id))).to.deep.equal([first, second])
      expect(await right(loans.payments.posted(booked.loan.id))).to.deep.equal([])
      const locked = await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED, events: [] }), null)
      expect(locked.handed).to.deep.equal(O.some({ ...bookedLocked(booked), pendingAmount: 102_014 }))

      // Posted under the other posted statuses: a SETTLED payment, then a SUBMITTED one the same day; the first PENDING one canceled.
      const settled = paymentPosting({ ...bookedLocked(booked), pendingAmount: 102_014 }, 50_000, at(`${day}T11:00:00.000Z`), m.id, clientId)
      const asSettled: Payment = { ...settled.payment, status: 'SETTLED' }
      await post(loans, booked.loan.id, () => ({ ...settled.posting, payments: [asSettled] }), null)
      const submitted = paymentPosting(settled.state, 40_000, at(`${day}T12:00:00.000Z`), m.id, clientId)
      const asSubmitted: Payment = { ...submitted.payment, status: 'SUBMITTED' }
      await post(loans, booked.loan.id, () => ({ ...submitted.posting, payments: [asSubmitted] }), null)
      const canceled: Payment = { ...first, status: 'FAILED', failureCode: 'canceled' }
      await record([canceled])
      expect(await right(loans.payments.posted(booked.loan.id))).to.deep.equal([asSettled, asSubmitted])
      expect(await right(loans.payments.pending(booked.loan.id))).to.deep.equal([second])
      const after = await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED, events: [] }), null)
      expect(O.map((l: LockedLoan) => l.pendingAmount)(after.handed)).to.deep.equal(O.some(2_000))
    })

    it('writes what a submission decided over its PENDING payment: the amount placed, the amount asked and the day it was posted', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const day = booked.loan.startDate
      const pending = pendingPayment(booked.loan, clientId, m.id, 70_000, at(`${day}T09:00:00.000Z`))
      await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [pending], audit: NOT_AUDITED, events: [] }), null)
      // Cut into a file two days later, for less than it asked.
      const later = utcDate(new Date(Date.parse(`${day}T10:00:00.000Z`) + 2 * 86_400_000))
      const submitted = paymentPosting({ ...bookedLocked(booked), pendingAmount: 70_000 }, 60_000, at(`${later}T10:00:00.000Z`), m.id, clientId, pending.idempotencyKey, pending)
      const asSubmitted: Payment = { ...submitted.payment, status: 'SUBMITTED', requestedAmount: 70_000 }
      expect([asSubmitted.id, asSubmitted.amount, asSubmitted.effectiveDate]).to.deep.equal([pending.id, 60_000, later])
      await post(loans, booked.loan.id, () => ({ ...submitted.posting, payments: [asSubmitted] }), null)
      expect(await right(loans.payments.posted(booked.loan.id))).to.deep.equal([asSubmitted])
      expect(await right(loans.payments.paymentById(pending.id))).to.deep.equal(O.some(asSubmitted))
    })

    it('writes a return over its debit (code, day, fee) and reads the returned payments that charged a fee, by the day returned', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const day = booked.loan.startDate
      const later = (days: number) => utcDate(new Date(Date.parse(`${day}T10:00:00.000Z`) + days * 86_400_000))
      const first = paymentPosting(bookedLocked(booked), 50_000, at(`${day}T11:00:00.000Z`), m.id, clientId)
      await post(loans, booked.loan.id, () => ({ ...first.posting, payments: [{ ...first.payment, status: 'SUBMITTED' }] }), null)
      const second = paymentPosting(first.state, 40_000, at(`${day}T12:00:00.000Z`), m.id, clientId)
      await post(loans, booked.loan.id, () => ({ ...second.posting, payments: [{ ...second.payment, status: 'SUBMITTED' }] }), null)
      const third = paymentPosting(second.state, 30_000, at(`${day}T13:00:00.000Z`), m.id, clientId)
      await post(loans, booked.loan.id, () => ({ ...third.posting, payments: [{ ...third.payment, status: 'SUBMITTED' }] }), null)
      // Returned: the second on day 3 with a fee, the first on day 2 with a fee, the third on day 2 with none.
      const returned = (p: Payment, on: string, fee: number): Payment => ({ ...p, status: 'RETURNED', returnCode: 'R01', returnedOn: on, ...(fee === 0 ? {} : { returnFee: fee }) })
      const [secondBack, firstBack, thirdBack] = [returned(second.payment, later(3), 2_500), returned(first.payment, later(2), 1_000), returned(third.payment, later(2), 0)]
      for (const back of [secondBack, firstBack, thirdBack]) await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [back], audit: NOT_AUDITED, events: [] }), null)
      expect(await right(loans.payments.paymentById(secondBack.id))).to.deep.equal(O.some(secondBack))
      expect(await right(loans.payments.paymentById(thirdBack.id))).to.deep.equal(O.some(thirdBack))
      expect(await right(loans.payments.posted(booked.loan.id))).to.deep.equal([])
      expect(await right(loans.payments.returnedWithFee(booked.loan.id))).to.deep.equal([firstBack, secondBack])
    })

    it('hands a change that waited for the lock the pending sum its holder committed', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const pending = pendingPayment(booked.loan, clientId, m.id, 70_000, at(`${booked.loan.startDate}T09:00:00.000Z`))
      let release: () => void = () => undefined
      const released = new Promise<void>((resolve) => (release = resolve))
      let holding: () => void = () => undefined
      const held = new Promise<void>((resolve) => (holding = resolve))
      const first = loans.change({ loanId: booked.loan.id }, (loan) => async () => {
        holding()
        await released
        return O.isNone(loan) ? E.left(notFound('loan')) : E.right({ posting: { transactions: [], installments: loan.value.installments, balance: null, payments: [pending], audit: NOT_AUDITED, events: [] }, result: 'first' })
      })()
      await held
      let seen: O.Option<LockedLoan> = O.none
      const second = loans.change({ loanId: booked.loan.id }, (loan) => {
        seen = loan
        return O.isNone(loan) ? TE.left(notFound('loan')) : TE.right({ posting: { transactions: [], installments: loan.value.installments, balance: null, payments: [], audit: NOT_AUDITED, events: [] }, result: 'second' })
      })()
      // The second change is waiting for the loan (its lock, or the one connection) while the first holds it.
      await new Promise((resolve) => setTimeout(resolve, 100))
      release()
      expect([await first, await second]).to.deep.equal([E.right('first'), E.right('second')])
      expect(O.map((l: LockedLoan) => l.pendingAmount)(seen)).to.deep.equal(O.some(70_000))
    })

    it("lists a loan's payments, whatever their status, in (createdAt, id) order, page after page, for its party only", async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const paid = paymentPosting(bookedLocked(booked), 120_000, at(`${booked.loan.startDate}T09:00:00.000Z`), m.id, clientId)
      await post(loans, booked.loan.id, () => paid.posting, null)
      const declinedAt = at(`${booked.loan.startDate}T10:00:00.000Z`)
      const declined: Payment = { ...paid.payment, id: freshId(), idempotencyKey: freshId(), status: 'FAILED', failureCode: 'card_declined', allocation: null, perInstallment: [], transactionId: null, createdAt: declinedAt }
      await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [declined], audit: NOT_AUDITED, events: [] }), null)
      const list = (page: PageRequest) => ofOwn(loans.listPayments(booked.loan.partyId, booked.loan.id, page))
      expect(await list(firstPage(10))).to.deep.equal([paid.payment, declined])
      expect(await list(firstPage(1))).to.deep.equal([paid.payment, declined])
      expect(await list({ limit: 10, after: O.some(paid.payment) })).to.deep.equal([declined])
      await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.listPayments(partyId, loanId, firstPage(10)))
      const other = await ownLoan()
      expect(await ofOwn(loans.listPayments(other.booked.loan.partyId, other.booked.loan.id, firstPage(10)))).to.deep.equal([])
    })

    it('writes nothing when the callback answers a Left, and answers that Left', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const paid = paymentPosting(bookedLocked(booked), 300_000, at(`${booked.loan.firstDueDate}T10:00:00.000Z`), m.id, clientId, 'refused-1')
      const outcome = await loans.change<NotFound | Overpayment, Payment>({ loanId: booked.loan.id }, (loan, reads) =>
        O.isNone(loan)
          ? TE.left(notFound('loan'))
          : pipe(
              reads.paymentByKey(clientId, 'refused-1'),
              TE.chainW(() => TE.left(overpayment(1))),
            ),
      )()
      expect(outcome).to.deep.equal(E.left(overpayment(1)))
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
      expect(await right(loans.payments.paymentById(paid.payment.id))).to.deep.equal(O.none)
      expect(await right(loans.payments.paymentByKey(clientId, 'refused-1'))).to.deep.equal(O.none)
    })

    it("writes the loan's new status when the posting carries one; active-loan listings follow it", async () => {
      const { booked } = await ownLoan()
      const changed = await loans.change<StoreUnavailable, string>({ loanId: booked.loan.id }, (loan) =>
        TE.right({
          posting: { transactions: [], installments: O.isSome(loan) ? loan.value.installments : [], balance: null, payments: [], loanStatus: 'PAID_OFF', audit: NOT_AUDITED, events: [] },
          result: 'paid off',
        }),
      )()
      expect(changed).to.deep.equal(E.right('paid off'))
      expect(await right(loans.findForParty(booked.loan.partyId, booked.loan.id))).to.deep.equal(O.some({ ...booked.loan, status: 'PAID_OFF' }))
      const active: LoanId[] = []
      for (let after: LoanId | null = null; ; ) {
        const page: readonly LoanId[] = await right(loans.activeLoanIds(after, 500))
        active.push(...page)
        if (page.length < 500) break
        after = page[page.length - 1] ?? null
      }
      expect(active).to.not.include(booked.loan.id)
    })

    it('hands a missing loan to the callback as none', async () => {
      const id = freshId()
      let handed: O.Option<LockedLoan> | undefined
      const outcome = await loans.change<StoreUnavailable, string>({ loanId: id }, (loan) => {
        handed = loan
        return TE.right({ posting: { transactions: [], installments: [], balance: null, payments: [], audit: NOT_AUDITED, events: [] }, result: 'looked' })
      })()
      expect({ handed, outcome }).to.deep.equal({ handed: O.none, outcome: E.right('looked') })
      const refused = await loans.change<NotFound | Overpayment, never>({ loanId: id }, (loan) => (O.isNone(loan) ? TE.left(notFound('loan')) : TE.left(overpayment(0))))()
      expect(refused).to.deep.equal(E.left(notFound('loan')))
      expect(await right(loans.findById(id))).to.deep.equal(O.none)
    })

    it("hands a loan of another party as none when a party is named, writes nothing, and the owner's change finds it", async () => {
      const { booked } = await ownLoan()
      const other = await borrower()
      const handed: O.Option<LockedLoan>[] = []
      const look = (partyId: PartyId) =>
        loans.change<StoreUnavailable, string>({ loanId: booked.loan.id, partyId }, (loan) => {
          handed.push(loan)
          return TE.right({ posting: { transactions: [], installments: O.isSome(loan) ? loan.value.installments : [], balance: null, payments: [], audit: NOT_AUDITED, events: [] }, result: 'looked' })
        })()
      expect(await look(other.partyId)).to.deep.equal(E.right('looked'))
      expect(await look(booked.loan.partyId)).to.deep.equal(E.right('looked'))
      expect(handed).to.deep.equal([O.none, O.some(bookedLocked(booked))])
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
    })

    it('serialises concurrent changes of one loan: each sees the last one, none is lost', async () => {
      const N = 10
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const now = at(`${booked.loan.startDate}T21:00:00.000Z`)
      const seen: number[] = []
      const results = await Promise.all(
        Array.from({ length: N }, (_, k) =>
          right(
            loans.change({ loanId: booked.loan.id }, (loan, reads) => {
              if (O.isNone(loan)) return TE.left(notFound('loan'))
              const locked = loan.value
              seen.push(locked.latest.principalOutstanding)
              return pipe(
                reads.paymentByKey(clientId, `concurrent-${k}`),
                TE.chainW(() => TE.fromTask(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))),
                TE.map(() => {
                  const paid = paymentPosting(locked, 1, now, m.id, clientId, `concurrent-${k}`)
                  return { posting: paid.posting, result: { balance: paid.posting.balance!, installments: paid.posting.installments } }
                }),
              )
            }),
          ),
        ),
      )
      const principal = booked.loan.principal
      expect([...seen].sort((a, b) => b - a)).to.deep.equal(Array.from({ length: N }, (_, k) => principal - k))
      const last = results.find((r) => r.balance.principalOutstanding === principal - N)
      expect(last?.balance.principalOutstanding).to.equal(principal - N)
      const { sequence: _sequence, ...latest } = await readsOf(booked.loan).latest()
      expect(latest).to.deep.equal(last!.balance)
      const stored = await right(loans.findById(booked.loan.id))
      expect(O.isSome(stored) && stored.value.installments).to.deep.equal(last!.installments)
      expect(last!.installments[0]!.principalPaid).to.equal(N)
      const ledger = await readsOf(booked.loan).ledger({ type: 'PAYMENT' }, firstPage(100))
      expect(ledger.map((t) => [t.amount, t.principal])).to.deep.equal(Array.from({ length: N }, () => [1, -1]))
      expect(withoutSequence(await readsOf(booked.loan).balances(firstPage(100))).map((b) => b.principalOutstanding)).to.deep.equal(
        Array.from({ length: N + 1 }, (_, k) => principal - k),
      )
    })

  describe('changeMany', () => {
    /** A posting of nothing for `loan`: its schedule as it is. */
    const nothingFor = (loan: O.Option<LockedLoan>): Posting => ({ transactions: [], installments: O.isSome(loan) ? loan.value.installments : [], balance: null, payments: [], audit: NOT_AUDITED, events: [] })

    it('locks several loans together, hands each its state and writes every posting: entries in order, schedule, snapshot, payment; answers each by id', async () => {
      const [a, b] = [await ownLoan(), await ownLoan()]
      const missing = freshId()
      const paid = new Map(
        await Promise.all(
          [a, b].map(async ({ booked, clientId }, k) => {
            const m = await method(booked.loan.id)
            return [booked.loan.id, paymentPosting(bookedLocked(booked), k === 0 ? booked.loan.paymentAmount : 1_000, at(`${booked.loan.firstDueDate}T15:00:00.000Z`), m.id, clientId)] as const
          }),
        ),
      )
      const handed: O.Option<LockedLoan>[] = []
      const answers = await right(
        loans.changeMany<NotFound, Payment>([a.booked.loan.id, missing, b.booked.loan.id], (loan) => {
          handed.push(loan)
          if (O.isNone(loan)) return TE.left(notFound('loan'))
          const { posting, payment } = paid.get(loan.value.loan.id)!
          return TE.right({ posting, result: payment })
        }),
      )
      expect(handed).to.deep.equal([O.some(bookedLocked(a.booked)), O.none, O.some(bookedLocked(b.booked))])
      expect([...answers]).to.deep.equal([
        [a.booked.loan.id, E.right(paid.get(a.booked.loan.id)!.payment)],
        [missing, E.left(notFound('loan'))],
        [b.booked.loan.id, E.right(paid.get(b.booked.loan.id)!.payment)],
      ])
      for (const { booked } of [a, b]) {
        const { state, posting, payment } = paid.get(booked.loan.id)!
        expect(await right(loans.findById(booked.loan.id))).to.deep.equal(
          O.some({ ...booked, loan: state.loan, installments: state.installments, transactions: [...booked.transactions, ...posting.transactions], balance: posting.balance }),
        )
        expect(await right(loans.payments.paymentById(payment.id))).to.deep.equal(O.some(payment))
      }
      expect(await right(loans.findById(missing))).to.deep.equal(O.none)
    })

    it("writes nothing for a loan whose callback answers its own Left, and the others' postings", async () => {
      const [a, b] = [await ownLoan(), await ownLoan()]
      const m = await method(b.booked.loan.id)
      const paid = paymentPosting(bookedLocked(b.booked), 2_000, at(`${b.booked.loan.firstDueDate}T16:00:00.000Z`), m.id, b.clientId)
      const answers = await right(
        loans.changeMany<Overpayment, string>([a.booked.loan.id, b.booked.loan.id], (loan) =>
          O.isSome(loan) && loan.value.loan.id === a.booked.loan.id ? TE.left(overpayment(1)) : TE.right({ posting: paid.posting, result: 'paid' }),
        ),
      )
      expect([...answers]).to.deep.equal([
        [a.booked.loan.id, E.left(overpayment(1))],
        [b.booked.loan.id, E.right('paid')],
      ])
      expect(await right(loans.findById(a.booked.loan.id))).to.deep.equal(O.some(a.booked))
      expect(await right(loans.payments.paymentById(paid.payment.id))).to.deep.equal(O.some(paid.payment))
    })

    it('decides a loan named twice once, and writes its posting once', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const paid = paymentPosting(bookedLocked(booked), 1_500, at(`${booked.loan.firstDueDate}T16:30:00.000Z`), m.id, clientId)
      let decided = 0
      const answers = await right(
        loans.changeMany<NotFound, string>([booked.loan.id, booked.loan.id], () => {
          decided += 1
          return TE.right({ posting: paid.posting, result: 'paid' })
        }),
      )
      expect({ decided, answers: [...answers] }).to.deep.equal({ decided: 1, answers: [[booked.loan.id, E.right('paid')]] })
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(
        O.some({ ...booked, loan: paid.state.loan, installments: paid.state.installments, transactions: [...booked.transactions, ...paid.posting.transactions], balance: paid.posting.balance }),
      )
    })

    it('writes nothing for any loan when one callback answers StoreUnavailable, and answers it', async () => {
      const [a, b] = [await ownLoan(), await ownLoan()]
      const m = await method(a.booked.loan.id)
      const paid = paymentPosting(bookedLocked(a.booked), 2_000, at(`${a.booked.loan.firstDueDate}T16:00:00.000Z`), m.id, a.clientId)
      const down = storeUnavailable(new Error('the store went away'))
      const outcome = await loans.changeMany<NotFound, string>([a.booked.loan.id, b.booked.loan.id], (loan) =>
        O.isSome(loan) && loan.value.loan.id === b.booked.loan.id ? TE.left(down) : TE.right({ posting: paid.posting, result: 'paid' }),
      )()
      expect(outcome).to.deep.equal(E.left(down))
      expect(await right(loans.findById(a.booked.loan.id))).to.deep.equal(O.some(a.booked))
      expect(await right(loans.payments.paymentById(paid.payment.id))).to.deep.equal(O.none)
    })

    it('waits for a change that holds one of its loans, and hands over what that change wrote', async () => {
      const { booked, clientId } = await ownLoan()
      const other = await ownLoan()
      const m = await method(booked.loan.id)
      const paid = paymentPosting(bookedLocked(booked), 3_000, at(`${booked.loan.firstDueDate}T17:00:00.000Z`), m.id, clientId)
      let entered: () => void = () => undefined
      const holding = new Promise<void>((resolve) => (entered = resolve))
      const first = right(
        loans.change({ loanId: booked.loan.id }, () => {
          entered()
          return TE.fromTask(async () => {
            await new Promise((resolve) => setTimeout(resolve, 100))
            return { posting: paid.posting, result: 'first' }
          })
        }),
      )
      await holding
      const handed: O.Option<LockedLoan>[] = []
      const second = right(
        loans.changeMany<NotFound, string>([other.booked.loan.id, booked.loan.id], (loan) => {
          handed.push(loan)
          return TE.right({ posting: nothingFor(loan), result: 'second' })
        }),
      )
      expect(await first).to.equal('first')
      expect([...(await second).values()]).to.deep.equal([E.right('second'), E.right('second')])
      expect(handed).to.deep.equal([O.some(bookedLocked(other.booked)), O.some(paid.state)])
    })
  })

  describe('autopay', () => {
    it("keeps a loan's setting, and lists the installments of a window whose debit is not made, of loans whose autopay is on and ACTIVE", async () => {
      const { booked, clientId } = await ownLoan()
      const { loan } = booked
      const party = loan.partyId
      const off = await bookedLoan({ borrower: { partyId: party, clientId } })
      const paidOff = await bookedLoan({ borrower: { partyId: party, clientId }, status: 'PAID_OFF' })
      expect(await right(loans.autopay.of(loan.id))).to.deep.equal(O.none)
      const setting = { loanId: loan.id, clientId, enabledAt: at('2026-03-11T12:00:00.000Z') }
      expect(await right(loans.autopay.turnOn(setting))).to.deep.equal(setting)
      // On already: the setting found stays, whoever asks.
      const other = await borrower()
      expect(await right(loans.autopay.turnOn({ loanId: loan.id, clientId: other.clientId, enabledAt: at('2026-03-12T12:00:00.000Z') }))).to.deep.equal(setting)
      await right(loans.autopay.turnOn({ ...setting, loanId: paidOff.loan.id }))
      expect(await right(loans.autopay.of(loan.id))).to.deep.equal(O.some(setting))
      expect(await right(loans.autopay.of(off.loan.id))).to.deep.equal(O.none)

      // Due 2026-04-10 and 2026-05-10: the window is after its first date, through its last.
      const [april, may] = booked.installments.map((i) => i.dueDate)
      expect([april, may]).to.deep.equal(['2026-04-10', '2026-05-10'])
      const due = (after: string, through: string, from: { readonly loanId: LoanId; readonly dueDate: string } | null = null, limit = 10, partyId: PartyId | null = party) =>
        right(loans.autopay.due({ after, through, partyId }, from, limit))
      const owed = (dueDate: string) => ({ loanId: loan.id, partyId: party, clientId, dueDate })
      expect(await due('2026-04-09', '2026-04-10')).to.deep.equal([owed('2026-04-10')])
      expect(await due('2026-04-10', '2026-05-09')).to.deep.equal([])
      expect(await due('2026-04-01', '2026-05-10')).to.deep.equal([owed('2026-04-10'), owed('2026-05-10')])
      expect(await due('2026-04-01', '2026-05-10', null, 1)).to.deep.equal([owed('2026-04-10')])
      expect(await due('2026-04-01', '2026-05-10', { loanId: loan.id, dueDate: '2026-04-10' })).to.deep.equal([owed('2026-05-10')])
      expect(await due('2026-04-09', '2026-04-10', null, 10, (await borrower()).partyId)).to.deep.equal([])
      // The world's window takes every party's on no test clock.
      const everyParty = await due('2026-04-09', '2026-04-10', null, 1_000_000, null)
      expect(everyParty.filter((d) => d.partyId === party)).to.deep.equal([owed('2026-04-10')])

      // The debit made under its key; another client's payment under the same key is not it.
      const m = await method(loan.id)
      const key = autopayKey(loan.id, '2026-04-10')
      const theirs = { ...pendingPayment(loan, other.clientId, m.id, 10_000, at('2026-04-07T09:00:00.000Z')), idempotencyKey: key }
      await post(loans, loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [theirs], audit: NOT_AUDITED, events: [] }), null)
      expect(await due('2026-04-01', '2026-05-10')).to.deep.equal([owed('2026-04-10'), owed('2026-05-10')])
      const debit = { ...pendingPayment(loan, clientId, m.id, 10_000, at('2026-04-08T09:00:00.000Z')), idempotencyKey: key }
      await post(loans, loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [debit], audit: NOT_AUDITED, events: [] }), null)
      expect(await due('2026-04-01', '2026-05-10')).to.deep.equal([owed('2026-05-10')])

      // Turned on the day an installment falls due: only those due after that day.
      const late = await bookedLoan({ borrower: { partyId: party, clientId } })
      await right(loans.autopay.turnOn({ loanId: late.loan.id, clientId, enabledAt: at('2026-04-10T16:00:00.000Z') }))
      expect((await due('2026-04-01', '2026-05-10')).filter((d) => d.loanId === late.loan.id).map((d) => d.dueDate)).to.deep.equal(['2026-05-10'])

      await right(loans.autopay.turnOff(late.loan.id))
      await right(loans.autopay.turnOff(loan.id))
      expect([await right(loans.autopay.of(loan.id)), await due('2026-04-01', '2026-05-10')]).to.deep.equal([O.none, []])
    })
  })
  })

  describe('dry runs and maker-checker requests', () => {
    /** A request of `loanId` (a charge-off), asked by a fresh operator now. */
    const pendingRequest = (loanId: LoanId, createdAt: Date): OperatorRequest => ({
      id: freshId(),
      kind: 'loan_charge_off',
      loanId,
      paymentId: null,
      reason: 'contract',
      state: 'PENDING',
      requestedBy: freshId(),
      createdAt,
      decidedBy: null,
      decidedAt: null,
      rejectionReason: null,
    })
    const nothingOf = (l: LockedLoan): Posting => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED, events: [] })

    it('dryRun hands over the locked state and answers what the callback decided, writing nothing', async () => {
      const { booked, clientId } = await ownLoan()
      const m = await method(booked.loan.id)
      const state = bookedLocked(booked)
      const paid = paymentPosting(state, booked.loan.paymentAmount, at(`${booked.loan.firstDueDate}T15:00:00.000Z`), m.id, clientId, `dry-${freshId()}`)
      const request = pendingRequest(booked.loan.id, at('2026-03-11T09:00:00.000Z'))
      const planned = await right(
        loans.dryRun({ loanId: booked.loan.id }, (loan) => (O.isNone(loan) ? TE.left(notFound('loan')) : TE.right({ posting: { ...paid.posting, request }, result: loan.value }))),
      )
      expect(planned.result).to.deep.equal(state)
      expect(planned.posting.transactions).to.deep.equal(paid.posting.transactions)
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
      expect(await right(loans.payments.paymentById(paid.payment.id))).to.deep.equal(O.none)
      expect(await right(loans.findRequest(request.id))).to.deep.equal(O.none)
    })

    it('writes a request with its posting, reads it under the lock, and updates its decision by id', async () => {
      const booked = await bookedLoan()
      const asked = pendingRequest(booked.loan.id, at('2026-03-11T09:00:00.000Z'))
      await post(loans, booked.loan.id, (l) => ({ ...nothingOf(l), request: asked }), null)
      expect(await right(loans.findRequest(asked.id))).to.deep.equal(O.some(asked))
      const decided: OperatorRequest = { ...asked, state: 'REJECTED', decidedBy: freshId(), decidedAt: at('2026-03-11T10:00:00.000Z'), rejectionReason: 'contract' }
      let seen: readonly OperatorRequest[] = []
      await right(
        loans.change({ loanId: booked.loan.id }, (loan, reads) =>
          pipe(
            reads.requests(booked.loan.id),
            TE.chainW((requests): TE.TaskEither<NotFound, Change<null>> => {
              seen = requests
              return O.isNone(loan) ? TE.left(notFound('loan')) : TE.right({ posting: { ...nothingOf(loan.value), request: decided }, result: null })
            }),
          ),
        ),
      )
      expect(seen).to.deep.equal([asked])
      expect(await right(loans.findRequest(asked.id))).to.deep.equal(O.some(decided))
    })

    it('lists requests of every loan oldest first, optionally of one state, page after page', async () => {
      const [one, two] = [await bookedLoan(), await bookedLoan()]
      const first = pendingRequest(one.loan.id, at('2031-01-01T00:00:00.001Z'))
      const second = pendingRequest(two.loan.id, at('2031-01-01T00:00:00.002Z'))
      await post(loans, one.loan.id, (l) => ({ ...nothingOf(l), request: first }), null)
      await post(loans, two.loan.id, (l) => ({ ...nothingOf(l), request: second }), null)
      const after = O.some({ createdAt: at('2031-01-01T00:00:00.000Z'), id: '00000000-0000-4000-8000-000000000000' })
      expect((await right(loans.listRequests({}, { limit: 10, after }))).map((r) => r.id)).to.deep.equal([first.id, second.id])
      expect((await right(loans.listRequests({ state: 'PENDING' }, { limit: 1, after }))).map((r) => r.id)).to.deep.equal([first.id, second.id])
      expect(await right(loans.listRequests({ state: 'APPROVED' }, { limit: 10, after }))).to.deep.equal([])
    })
  })
}
