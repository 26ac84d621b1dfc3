import { expect } from 'chai'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { idempotencyKeyRequired, invalidRequest, invalidState, notFound, overpayment, partyMismatch, storeUnavailable } from '../src/domain/foundations/errors.js'
import type { LoanApplication } from '../src/domain/loans/loan-application.js'
import { approvedApplication } from './fixtures/loan-applications.js'
import { bookLoan, loanSummary, type BookedLoan } from '../src/domain/loans/loan.js'
import { loanView } from '../src/views/loans.js'
import { DEFAULT_SERVICING_TERMS, type ServicingTerms } from '../src/domain/loans/servicing-terms.js'
import { deriveLoan, ledgerSums, ZERO, type Buckets } from '../src/lending/loan-servicing.js'
import { settled } from '../src/use-cases/servicing/posting.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { PaymentMethod } from '../src/domain/loans/payment-method.js'
import type { PostedBalance } from '../src/ports/loan-repository.js'
import type { ProcessorUnavailable } from '../src/ports/payment-processor.js'
import type { PaymentTokenizer } from '../src/ports/payment-tokenizer.js'
import { getLatestLoanBalanceForParty, listLoanBalancesForParty } from '../src/use-cases/servicing/read-balances.js'
import { getLoanForParty, listLoansForParty } from '../src/use-cases/servicing/read-loans.js'
import { listCollateralForPartyLoan, listDocumentsForPartyLoan } from '../src/use-cases/servicing/loan-records.js'
import { listLoanScheduleForParty } from '../src/use-cases/servicing/list-schedule.js'
import { listTransactionsForPartyLoan } from '../src/use-cases/servicing/list-transactions.js'
import { accrueInterestForLoans, dailyServicingJob } from '../src/use-cases/servicing/accrue-loans.js'
import { addLoanCollateral, attachLoanDocument } from '../src/use-cases/servicing/loan-records.js'
import { chargeOffLoan } from '../src/use-cases/servicing/charge-off-loan.js'
import { runLeasedJob } from '../src/use-cases/jobs/leased-job.js'
import { createPaymentMethodForPartyLoan } from '../src/use-cases/servicing/create-payment-method.js'
import { bankAccountOf } from '../src/use-cases/ach/bank-account.js'
import { settleSubmittedPayment, submitPendingPayment } from '../src/use-cases/ach/submission.js'
import { listPaymentMethodsForPartyLoan } from '../src/use-cases/servicing/list-payment-methods.js'
import { updatePaymentMethodForPartyLoan } from '../src/use-cases/servicing/update-payment-method.js'
import { createPaymentIntentForPartyLoan } from '../src/use-cases/servicing/take-payment.js'
import { getLoanPayoffForParty } from '../src/use-cases/servicing/quote-payoff.js'
import { reverseLoanPayment } from '../src/use-cases/servicing/reverse-payment.js'
import { fakeAccountSeal, fakePaymentProcessor, inMemoryAuditLog, inMemoryEventLog, inMemoryJobLeases, inMemoryLoanApplicationRepository, inMemoryPaymentMethodRepository, sequentialIds, testClock } from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'
import { at, BANK, caller, CARD, colleague, figures, right, run, setup, some, stranger, UNKNOWN_ID } from './fixtures/servicing.js'

/**
 * Loan servicing use cases (docs/servicing.md) against the in-memory adapters, with tiny fakes
 * of the payment rails. After every scenario the ledger's bucket sums must equal the latest
 * snapshot and the schedule's totals still owed.
 */

// The schedule of 1,200,000 at 12.00% over 12 months, booked 2026-01-15 (amortize):
// payment 106,619; installment 1 = 94,619 principal + 12,000 interest; 2 = 95,565 + 11,054 (projected);
// 3 = 96,521 + 10,098 (projected).
const P1 = 94_619
const P2 = 95_565
const P3 = 96_521

describe('loan servicing use cases (in memory)', () => {
  describe('listLoansForParty / getLoanForParty', () => {
    it("lists the party's loans oldest first and reads one", async () => {
      const { deps, book, clock } = setup()
      const first = book()
      clock.set(at('2026-01-20'))
      const second = book({ amount: 500_000 })
      book({ partyId: stranger.partyId })
      expect(await run(listLoansForParty(deps)(caller, { partyId: caller.partyId }))).to.deep.equal({ items: [first.loan, second.loan].map(loanSummary), nextCursor: null })
      expect(await run(getLoanForParty(deps)(caller, { partyId: caller.partyId, loanId: second.loan.id }))).to.deep.equal(second.loan)
    })

    it('pages with limit and cursor', async () => {
      const { deps, book, clock } = setup()
      const booked = [book(), (clock.advance(1_000), book()), (clock.advance(1_000), book())]
      const page1 = await run(listLoansForParty(deps)(caller, { partyId: caller.partyId, limit: '2' }))
      expect(page1.items).to.deep.equal([booked[0]!.loan, booked[1]!.loan].map(loanSummary))
      expect(page1.nextCursor).to.be.a('string')
      expect(await run(listLoansForParty(deps)(caller, { partyId: caller.partyId, limit: '2', cursor: page1.nextCursor! }))).to.deep.equal({ items: [loanSummary(booked[2]!.loan)], nextCursor: null })
    })

    it('shows the level payment in force: the recast one after a prepayment that reduces the installment', async () => {
      const { deps, book, addMethod, pay, clock } = setup()
      const { loan } = book({}, { prepayment: 'REDUCE_INSTALLMENT' })
      const reduceTerm = book().loan
      const method = await addMethod(loan.id)
      const shown = async (id: string) => loanView(await run(getLoanForParty(deps)(caller, { partyId: caller.partyId, loanId: id })), clock.now()).payment_amount
      expect(await shown(loan.id)).to.equal(106_619)
      clock.set(at('2026-02-15'))
      right(await pay(loan.id, method, 606_619, 'k1'))
      // 605,381 over the 11 installments left at 1% a month: 58,391.
      expect(await shown(loan.id)).to.equal(58_391)
      expect(await shown(reduceTerm.id)).to.equal(106_619)
      const listed = await run(listLoansForParty(deps)(caller, { partyId: caller.partyId }))
      expect(listed.items.map((l) => loanView(l, clock.now()).payment_amount)).to.deep.equal([58_391, 106_619])
    })

    it('answers NotFound for an unknown loan and InvalidRequest for a malformed id', async () => {
      const { deps } = setup()
      expect(await getLoanForParty(deps)(caller, { partyId: caller.partyId, loanId: UNKNOWN_ID })()).to.deep.equal(E.left(notFound('loan')))
      const malformed = await getLoanForParty(deps)(caller, { partyId: caller.partyId, loanId: 'nope' })()
      expect(E.isLeft(malformed) && malformed.left).to.deep.include({ _tag: 'InvalidRequest', param: 'loanId' })
    })
  })

  describe('getLatestLoanBalanceForParty / listLoanBalancesForParty', () => {
    it('reads the booking snapshot, then one more snapshot per change, oldest first', async () => {
      const { deps, book, addMethod, pay, balances, expectConsistent } = setup()
      const { loan, balance } = book()
      const latest0 = await run(getLatestLoanBalanceForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))
      expect(latest0).to.deep.include(balance)
      const method = await addMethod(loan.id)
      const payment = right(await pay(loan.id, method, 50_000, 'k1'))
      const after = await run(getLatestLoanBalanceForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))
      expect(figures(after)).to.deep.equal({
        loanId: loan.id,
        asOf: '2026-01-15',
        principalOutstanding: 1_150_000,
        interestOutstanding: 0,
        feesOutstanding: 0,
        payoffAmount: 1_150_000,
        pastDueAmount: 0,
        nextDueDate: '2026-02-15',
        // Paid on the booking date, the 50,000 lowers the principal interest accrues on: 30 days on 1,150,000 at 12%.
        nextDueAmount: P1 - 50_000 + 11_500,
      })
      expect(after.transactionId).to.equal(payment.transactionId)
      expect((await balances(loan.id)).map((b) => b.id)).to.deep.equal([balance.id, after.id])
      await expectConsistent(loan.id)
    })
  })

  describe('listTransactionsForPartyLoan', () => {
    const ledger = async () => {
      const s = setup()
      const { loan } = s.book({ originationFeeBps: 200 })
      const method = await s.addMethod(loan.id)
      // The daily job on the first two due dates, then a payment (which posts the 5 days' interest since).
      for (const day of ['2026-02-15', '2026-03-15']) {
        s.clock.set(at(day))
        await run(accrueInterestForLoans(s.deps)({}))
      }
      s.clock.set(at('2026-03-20'))
      right(await s.pay(loan.id, method, 50_000, 'k1'))
      const list = (query: Record<string, string>) => listTransactionsForPartyLoan(s.deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...query })()
      return { ...s, loan, list }
    }
    const shape = (items: readonly { type: string; effectiveDate: string; amount: number; currency: string }[]) =>
      items.map((t) => [t.type, t.effectiveDate, t.amount, t.currency])

    it('lists the whole ledger oldest first, in the loan currency', async () => {
      const { list, loan, expectConsistent } = await ledger()
      const all = right(await list({}))
      expect(shape(all.items)).to.deep.equal([
        ['DISBURSEMENT', '2026-01-15', 1_200_000, 'USD'],
        ['ORIGINATION_FEE', '2026-01-15', 24_000, 'USD'],
        ['FEE_WITHHELD', '2026-01-15', 24_000, 'USD'],
        ['INTEREST_ACCRUAL', '2026-02-15', 12_000, 'USD'],
        ['INTEREST_ACCRUAL', '2026-03-15', 12_000, 'USD'],
        ['INTEREST_ACCRUAL', '2026-03-20', 2_000, 'USD'],
        ['PAYMENT', '2026-03-20', 50_000, 'USD'],
      ])
      expect(all.nextCursor).to.equal(null)
      await expectConsistent(loan.id)
    })

    it('filters by type and by effective dates, inclusive', async () => {
      const { list } = await ledger()
      expect(shape(right(await list({ type: 'INTEREST_ACCRUAL' })).items)).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-02-15', 12_000, 'USD'],
        ['INTEREST_ACCRUAL', '2026-03-15', 12_000, 'USD'],
        ['INTEREST_ACCRUAL', '2026-03-20', 2_000, 'USD'],
      ])
      expect(shape(right(await list({ from: '2026-02-15', to: '2026-03-15' })).items)).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-02-15', 12_000, 'USD'],
        ['INTEREST_ACCRUAL', '2026-03-15', 12_000, 'USD'],
      ])
      expect(shape(right(await list({ from: '2026-03-16' })).items)).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-03-20', 2_000, 'USD'],
        ['PAYMENT', '2026-03-20', 50_000, 'USD'],
      ])
      expect(shape(right(await list({ to: '2026-01-15', type: 'FEE_WITHHELD' })).items)).to.deep.equal([['FEE_WITHHELD', '2026-01-15', 24_000, 'USD']])
      expect(right(await list({ from: '2026-03-21' })).items).to.deep.equal([])
    })

    it('pages through the ledger with a cursor', async () => {
      const { list } = await ledger()
      const first = right(await list({ limit: '4' }))
      const rest = right(await list({ limit: '4', cursor: first.nextCursor! }))
      expect(shape([...first.items, ...rest.items]).map(([type]) => type)).to.deep.equal([
        'DISBURSEMENT',
        'ORIGINATION_FEE',
        'FEE_WITHHELD',
        'INTEREST_ACCRUAL',
        'INTEREST_ACCRUAL',
        'INTEREST_ACCRUAL',
        'PAYMENT',
      ])
      expect(rest.nextCursor).to.equal(null)
    })

    it('refuses from after to, naming from, and an unknown type, naming type', async () => {
      const { list } = await ledger()
      expect(await list({ from: '2026-03-16', to: '2026-03-15' })).to.deep.equal(E.left(invalidRequest('from must not be after to.', 'from')))
      const badType = await list({ type: 'REFUND' })
      expect(E.isLeft(badType) && badType.left).to.deep.include({ _tag: 'InvalidRequest', param: 'type' })
      const badDate = await list({ from: '2026-02-30' })
      expect(E.isLeft(badDate) && badDate.left).to.deep.include({ _tag: 'InvalidRequest', param: 'from' })
    })
  })

  describe('listLoanScheduleForParty', () => {
    it("gives every installment its status as of the clock's date", async () => {
      const { deps, book, clock, addMethod, pay, expectConsistent } = setup()
      const { loan } = book({ termMonths: 3 })
      const statuses = async () => (await run(listLoanScheduleForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))).items.map((i) => [i.dueDate, i.status])
      const method = await addMethod(loan.id)
      expect(await statuses()).to.deep.equal([
        ['2026-02-15', 'UPCOMING'],
        ['2026-03-15', 'UPCOMING'],
        ['2026-04-15', 'UPCOMING'],
      ])
      clock.set(at('2026-02-15'))
      expect((await statuses())[0]).to.deep.equal(['2026-02-15', 'DUE'])
      right(await pay(loan.id, method, 100, 'k1'))
      expect((await statuses())[0]).to.deep.equal(['2026-02-15', 'PARTIALLY_PAID'])
      clock.set(at('2026-02-16'))
      expect(await statuses()).to.deep.equal([
        ['2026-02-15', 'LATE'],
        ['2026-03-15', 'UPCOMING'],
        ['2026-04-15', 'UPCOMING'],
      ])
      const owed = (await run(listLoanScheduleForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))).items[0]!
      right(await pay(loan.id, method, owed.principalDue + owed.interestDue - owed.principalPaid - owed.interestPaid, 'k2'))
      expect(await statuses()).to.deep.equal([
        ['2026-02-15', 'PAID'],
        ['2026-03-15', 'UPCOMING'],
        ['2026-04-15', 'UPCOMING'],
      ])
      await expectConsistent(loan.id)
    })

    it('ends the schedule at a payoff: the installment it was paid with is PAID with the whole principal, the rest are gone', async () => {
      const { deps, book, addMethod, pay, latest, expectConsistent } = setup()
      const { loan } = book({ termMonths: 3 })
      const method = await addMethod(loan.id)
      right(await pay(loan.id, method, (await latest(loan.id)).payoffAmount, 'k1'))
      const items = (await run(listLoanScheduleForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))).items
      expect(items.map((i) => [i.status, i.principalDue, i.principalPaid, i.interestDue])).to.deep.equal([['PAID', 1_200_000, 1_200_000, 0]])
      await expectConsistent(loan.id)
    })

    it('pages by installment number', async () => {
      const { deps, book } = setup()
      const { loan } = book()
      const page1 = await run(listLoanScheduleForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id, limit: '5' }))
      const page2 = await run(listLoanScheduleForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id, limit: '10', cursor: page1.nextCursor! }))
      expect([...page1.items, ...page2.items].map((i) => i.number)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
      expect(page2.nextCursor).to.equal(null)
    })
  })

  describe('createPaymentMethodForPartyLoan', () => {
    it('tokenises a bank account and keeps only the token and last four; the first method is the default', async () => {
      const { deps, book, tokenizer, paymentMethods, clock } = setup()
      const { loan } = book()
      const method = await run(createPaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...BANK, is_default: false }))
      expect(tokenizer.seen).to.deep.equal([{ routingNumber: '021000021', accountNumber: '000123456789' }])
      expect(method).to.deep.equal({
        id: method.id,
        loanId: loan.id,
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
        createdAt: clock.now(),
        updatedAt: clock.now(),
      })
      expect(paymentMethods.all()).to.deep.equal([method])
      expect(JSON.stringify(paymentMethods.all())).not.to.include('000123456789').and.not.to.include('021000021')
    })

    it("keeps a bank account's numbers sealed apart from the method when a seal is configured, opened for that method only", async () => {
      const { deps, book, paymentMethods } = setup()
      const { loan } = book()
      const seal = fakeAccountSeal()
      const create = (input: object) => run(createPaymentMethodForPartyLoan({ ...deps, accountSeal: seal })(caller, { partyId: caller.partyId, loanId: loan.id, ...input }))
      const account = await create(BANK)
      const visa = await create(CARD)
      const reveal = bankAccountOf({ paymentMethods, accountSeal: seal })
      expect(await reveal(account.id)()).to.deep.equal(E.right(O.some({ routingNumber: '021000021', accountNumber: '000123456789' })))
      expect(await reveal(visa.id)()).to.deep.equal(E.right(O.none))
      expect(JSON.stringify(paymentMethods.all())).not.to.include('000123456789')
      // Without a seal the numbers are not kept; under another key they do not open.
      const unsealed = await run(createPaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...BANK }))
      expect(await reveal(unsealed.id)()).to.deep.equal(E.right(O.none))
      expect(await bankAccountOf({ paymentMethods, accountSeal: fakeAccountSeal('another-key') })(account.id)()).to.deep.equal(E.left({ _tag: 'AccountUnreadable', paymentMethodId: account.id }))
    })

    it('refuses a routing number failing the ABA checksum, naming routing_number, and tokenises nothing', async () => {
      const { deps, book, tokenizer, paymentMethods } = setup()
      const { loan } = book()
      const result = await createPaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...BANK, routing_number: '021000022' })()
      expect(E.isLeft(result) && result.left).to.deep.include({ _tag: 'InvalidRequest', param: 'routing_number' })
      expect(tokenizer.seen).to.deep.equal([])
      expect(paymentMethods.all()).to.deep.equal([])
    })

    it('stores a card token; refuses a card that expired before this month', async () => {
      const { deps, book, paymentMethods, clock } = setup()
      const { loan } = book()
      const expired = await createPaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...CARD, exp_month: 12, exp_year: 2025 })()
      expect(expired).to.deep.equal(E.left(invalidRequest('The card has expired.', 'exp_year')))
      expect(paymentMethods.all()).to.deep.equal([])
      const thisMonth = await run(createPaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...CARD, exp_month: 1, exp_year: 2026, nickname: 'Ops card' }))
      expect(thisMonth).to.deep.equal({
        id: thisMonth.id,
        loanId: loan.id,
        type: 'card',
        nickname: 'Ops card',
        isDefault: true,
        status: 'active',
        token: 'tok_visa_4242',
        last4: '4242',
        accountHolderName: null,
        accountType: null,
        brand: 'visa',
        expMonth: 1,
        expYear: 2026,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      })
    })

    it('keeps exactly one default: a new default unmarks the first, a method added without is_default is not the default', async () => {
      const { deps, book, addMethod } = setup()
      const { loan } = book()
      const first = await addMethod(loan.id)
      const second = await addMethod(loan.id, CARD)
      const third = await addMethod(loan.id, { ...BANK, is_default: true, account_type: 'savings' })
      const listed = await run(listPaymentMethodsForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))
      expect(listed.items.map((m) => [m.id, m.isDefault])).to.deep.equal([
        [first.id, false],
        [second.id, false],
        [third.id, true],
      ])
    })

    it('records nothing when the tokenizer is unreachable', async () => {
      const { deps, book, paymentMethods } = setup()
      const { loan } = book()
      const down: ProcessorUnavailable = { _tag: 'ProcessorUnavailable', cause: 'vault down' }
      const result = await createPaymentMethodForPartyLoan({ ...deps, tokenizer: { tokenizeBankAccount: () => TE.left(down) } })(caller, { partyId: caller.partyId, loanId: loan.id, ...BANK })()
      expect(result).to.deep.equal(E.left(down))
      expect(paymentMethods.all()).to.deep.equal([])
    })
  })

  describe('updatePaymentMethodForPartyLoan', () => {
    it('makes another method the default, unmarking the first, and changes the nickname', async () => {
      const { deps, book, addMethod, clock, paymentMethods } = setup()
      const { loan } = book()
      const first = await addMethod(loan.id)
      const second = await addMethod(loan.id, CARD)
      clock.advance(60_000)
      const updated = await run(updatePaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, paymentMethodId: second.id, is_default: true, nickname: 'Main' }))
      expect(updated).to.deep.equal({ ...second, isDefault: true, nickname: 'Main', updatedAt: clock.now() })
      expect(paymentMethods.all().map((m) => [m.id, m.isDefault])).to.deep.equal([
        [first.id, false],
        [second.id, true],
      ])
    })

    it('refuses to unmark the default, naming is_default, and changes nothing', async () => {
      const { deps, book, addMethod, paymentMethods } = setup()
      const { loan } = book()
      const first = await addMethod(loan.id)
      const result = await updatePaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, paymentMethodId: first.id, is_default: false })()
      expect(result).to.deep.equal(
        E.left(invalidRequest('A loan always has one default payment method: make another method the default instead.', 'is_default')),
      )
      expect(paymentMethods.all()).to.deep.equal([first])
    })

    it("answers NotFound for another loan's method and an empty patch InvalidRequest", async () => {
      const { deps, book, addMethod } = setup()
      const mine = book()
      const other = book()
      const method = await addMethod(mine.loan.id)
      const othersMethod = await addMethod(other.loan.id)
      expect(await updatePaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: mine.loan.id, paymentMethodId: othersMethod.id, nickname: 'x' })()).to.deep.equal(
        E.left(notFound('payment_method')),
      )
      expect(await updatePaymentMethodForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: mine.loan.id, paymentMethodId: method.id })()).to.deep.equal(
        E.left(invalidRequest('Send at least one field to update.')),
      )
    })
  })

  describe('createPaymentIntentForPartyLoan', () => {
    describe('when the payment succeeds before any due date', () => {
      it('charges the method, posts a PAYMENT entry, a snapshot and the allocation to principal', async () => {
        const { book, addMethod, pay, processor, stored, latest, loans, clock, expectConsistent } = setup()
        const { loan } = book()
        const method = await addMethod(loan.id)
        const payment = right(await pay(loan.id, method, 50_000, 'k1'))
        expect(payment).to.deep.equal({
          id: payment.id,
          loanId: loan.id,
          clientId: caller.clientId,
          idempotencyKey: 'k1',
          paymentMethodId: method.id,
          amount: 50_000,
          currency: 'USD',
          status: 'SUCCEEDED',
          failureCode: null,
          allocation: { pastDue: ZERO, current: { principal: 50_000, interest: 0, fees: 0 } },
          perInstallment: [{ number: 1, paid: { principal: 50_000, interest: 0, fees: 0 } }],
          transactionId: payment.transactionId,
          effectiveDate: '2026-01-15',
          createdAt: clock.now(),
        })
        expect(processor.charges()).to.deep.equal([{ idempotencyKey: `${caller.clientId}/k1`, paymentId: payment.id, amount: 50_000, currency: 'USD', token: method.token, methodType: 'bank_account' }])
        const after = await stored(loan.id)
        // (`+ 0`: the entry's untouched buckets are negated zeros, -0; the value is what matters.)
        const entry = after.transactions.at(-1)!
        expect({ ...entry, interest: entry.interest + 0, fees: entry.fees + 0 }).to.deep.equal({
          id: payment.transactionId,
          loanId: loan.id,
          type: 'PAYMENT',
          effectiveDate: '2026-01-15',
          amount: 50_000,
          principal: -50_000,
          interest: 0,
          fees: 0,
          paymentId: payment.id,
          reversesId: null,
          createdAt: clock.now(),
        })
        expect(after.installments[0]).to.deep.include({ principalPaid: 50_000, interestPaid: 0, feesPaid: 0 })
        expect((await latest(loan.id)).principalOutstanding).to.equal(1_150_000)
        expect(await some(loans.payments.paymentById(payment.id))).to.deep.equal(payment)
        await expectConsistent(loan.id)
      })
    })

    describe('when due dates have passed', () => {
      it('accrues their interest first and pays past due first, oldest installment first', async () => {
        const { book, addMethod, pay, stored, latest, clock, expectConsistent } = setup()
        const { loan } = book()
        const method = await addMethod(loan.id)
        clock.set(at('2026-03-20'))
        const amount = P1 + 12_000 + 12_000 + 5
        const payment = right(await pay(loan.id, method, amount, 'k1'))
        expect(payment.allocation).to.deep.equal({ pastDue: { principal: P1 + 5, interest: 24_000, fees: 0 }, current: ZERO })
        expect(payment.perInstallment).to.deep.equal([
          { number: 1, paid: { principal: P1, interest: 12_000, fees: 0 } },
          { number: 2, paid: { principal: 5, interest: 12_000, fees: 0 } },
        ])
        const after = await stored(loan.id)
        // Interest to the payment date is posted first: two whole months (12,000 each) and 5 days (2,000).
        expect(after.transactions.slice(-2).map((t) => [t.type, t.effectiveDate, t.amount, t.principal, t.interest])).to.deep.equal([
          ['INTEREST_ACCRUAL', '2026-03-20', 26_000, 0, 26_000],
          ['PAYMENT', '2026-03-20', amount, -(P1 + 5), -24_000],
        ])
        const principal = 1_200_000 - P1 - 5
        // Installment 3's interest: the 5 days accrued, and 25 days (30/360, to 15 April) projected on the principal it and those after it owe.
        const projected = Math.round(((1_200_000 - P1 - P2) * 1_200 * 25) / 3_600_000)
        expect(figures(await latest(loan.id))).to.deep.equal({
          loanId: loan.id,
          asOf: '2026-03-20',
          principalOutstanding: principal,
          interestOutstanding: 2_000,
          feesOutstanding: 0,
          payoffAmount: principal + 2_000,
          pastDueAmount: P2 - 5,
          nextDueDate: '2026-04-15',
          nextDueAmount: P3 + 2_000 + projected,
        })
        await expectConsistent(loan.id)
      })

      it('refuses more than the payoff including the interest just due, and writes nothing', async () => {
        const { book, addMethod, pay, processor, written, clock, expectConsistent } = setup()
        const { loan } = book()
        const method = await addMethod(loan.id)
        clock.set(at('2026-03-20'))
        const before = await written(loan.id)
        // The payoff on 20 March: the principal and 64 days of interest (30/360: 2 months and 5 days).
        expect(await pay(loan.id, method, 1_226_001, 'k1')).to.deep.equal(E.left(overpayment(1_226_000)))
        expect(await written(loan.id)).to.deep.equal(before)
        expect(processor.charges()).to.deep.equal([])
        await expectConsistent(loan.id)
      })
    })

    it('refuses more than the payoff with Overpayment(payoff) and charges nothing', async () => {
      const { book, addMethod, pay, processor, written, expectConsistent } = setup()
      const { loan } = book({ originationFeeBps: 200 })
      const method = await addMethod(loan.id)
      const before = await written(loan.id)
      expect(await pay(loan.id, method, 1_200_001, 'k1')).to.deep.equal(E.left(overpayment(1_200_000)))
      expect(processor.charges()).to.deep.equal([])
      expect(await written(loan.id)).to.deep.equal(before)
      await expectConsistent(loan.id)
    })

    it('pays the loan off exactly: nothing outstanding, nothing due next', async () => {
      const { book, addMethod, pay, latest, clock, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      clock.set(at('2026-03-20'))
      right(await pay(loan.id, method, 1_226_000, 'k1'))
      expect(figures(await latest(loan.id))).to.deep.equal({
        loanId: loan.id,
        asOf: '2026-03-20',
        principalOutstanding: 0,
        interestOutstanding: 0,
        feesOutstanding: 0,
        payoffAmount: 0,
        pastDueAmount: 0,
        nextDueDate: null,
        nextDueAmount: null,
      })
      expect(await pay(loan.id, method, 1, 'k2')).to.deep.equal(E.left(overpayment(0)))
      await expectConsistent(loan.id)
    })

    it('marks the loan PAID_OFF on payoff, and ACTIVE again when that payment is reversed', async () => {
      const { book, addMethod, pay, reverse, stored, clock, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      clock.set(at('2026-03-20'))
      const payoff = right(await pay(loan.id, method, 1_226_000, 'k1'))
      expect((await stored(loan.id)).loan.status).to.equal('PAID_OFF')
      right(await reverse(payoff.id))
      expect((await stored(loan.id)).loan.status).to.equal('ACTIVE')
      await expectConsistent(loan.id)
    })

    describe('when the last installment is billed above the payoff (interest projected to its due date)', () => {
      // 1,200,000 for 1 month at 12%, booked 2026-01-15: the bill is 1,212,000, due 2026-02-15.
      const oneMonth = () => {
        const s = setup()
        const { loan } = s.book({ termMonths: 1 })
        return { ...s, loan }
      }

      it('accepts the bill on the booking day and settles at the payoff: charges 1,200,000 and records it', async () => {
        const { loan, addMethod, pay, processor, latest, stored, expectConsistent } = oneMonth()
        const method = await addMethod(loan.id)
        expect(await latest(loan.id)).to.deep.include({ payoffAmount: 1_200_000, nextDueAmount: 1_212_000 })
        const payment = right(await pay(loan.id, method, 1_212_000, 'k1'))
        expect([payment.status, payment.amount]).to.deep.equal(['SUCCEEDED', 1_200_000])
        expect(processor.charges().map((c) => c.amount)).to.deep.equal([1_200_000])
        expect((await stored(loan.id)).loan.status).to.equal('PAID_OFF')
        expect(await latest(loan.id)).to.deep.include({ payoffAmount: 0, nextDueAmount: null })
        expect(right(await pay(loan.id, method, 1_212_000, 'k1'))).to.deep.equal(payment)
        expect(processor.charges()).to.have.length(1)
        await expectConsistent(loan.id)
      })

      it('answers a retry of the settling request with that payment once it is reversed, charging nothing more', async () => {
        const { loan, addMethod, pay, reverse, processor, stored, expectConsistent } = oneMonth()
        const method = await addMethod(loan.id)
        const payment = right(await pay(loan.id, method, 1_212_000, 'k1'))
        right(await reverse(payment.id))
        expect((await stored(loan.id)).loan.status).to.equal('ACTIVE')
        const reversed = right(await pay(loan.id, method, 1_212_000, 'k1'))
        expect(reversed).to.deep.equal({ ...payment, status: 'REVERSED' })
        expect(await pay(loan.id, method, 1_200_000, 'k1')).to.deep.equal(E.left({ _tag: 'IdempotencyKeyReused' }))
        expect(processor.charges().map((c) => c.amount)).to.deep.equal([1_200_000])
        await expectConsistent(loan.id)
      })

      it('answers a retry of a declined bill with that payment, and refuses the key for the payoff it was capped at', async () => {
        const { loan, addMethod, pay, stored } = oneMonth()
        const method = await addMethod(loan.id, { ...CARD, card_token: 'tok_card_declined_1' })
        const declined = right(await pay(loan.id, method, 1_212_000, 'k1'))
        expect([declined.status, declined.amount]).to.deep.equal(['FAILED', 1_200_000])
        expect(right(await pay(loan.id, method, 1_212_000, 'k1'))).to.deep.equal(declined)
        expect(await pay(loan.id, method, 1_200_000, 'k1')).to.deep.equal(E.left({ _tag: 'IdempotencyKeyReused' }))
        expect((await stored(loan.id)).loan.status).to.equal('ACTIVE')
      })

      it('accepts the bill five days before the due date and charges the payoff of that day', async () => {
        const { loan, addMethod, pay, processor, clock, stored, expectConsistent } = oneMonth()
        const method = await addMethod(loan.id)
        clock.set(at('2026-02-10'))
        // 26 days of interest: 10,400.
        const payment = right(await pay(loan.id, method, 1_212_000, 'k1'))
        expect([payment.status, payment.amount]).to.deep.equal(['SUCCEEDED', 1_210_400])
        expect(processor.charges().map((c) => c.amount)).to.deep.equal([1_210_400])
        expect((await stored(loan.id)).loan.status).to.equal('PAID_OFF')
        await expectConsistent(loan.id)
      })

      it('refuses more than the bill with Overpayment(payoff)', async () => {
        const { loan, addMethod, pay, processor } = oneMonth()
        const method = await addMethod(loan.id)
        expect(await pay(loan.id, method, 1_212_001, 'k1')).to.deep.equal(E.left(overpayment(1_200_000)))
        expect(processor.charges()).to.deep.equal([])
      })
    })

    it('requires an Idempotency-Key', async () => {
      const { book, addMethod, pay, processor, written } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      const before = await written(loan.id)
      expect(await pay(loan.id, method, 50_000, undefined)).to.deep.equal(E.left(idempotencyKeyRequired))
      expect(processor.charges()).to.deep.equal([])
      expect(await written(loan.id)).to.deep.equal(before)
    })

    it('answers the same payment for the same client and key, charging and posting once, and refuses the key for another amount', async () => {
      const { book, addMethod, pay, processor, stored, balances, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      const first = right(await pay(loan.id, method, 50_000, 'k1'))
      const ledgerLength = (await stored(loan.id)).transactions.length
      const balanceCount = (await balances(loan.id)).length
      expect(await pay(loan.id, method, 50_000, 'k1')).to.deep.equal(E.right(first))
      // A different payment under the same key is refused, however long after (issue 35).
      expect(await pay(loan.id, method, 70_000, 'k1')).to.deep.equal(E.left({ _tag: 'IdempotencyKeyReused' }))
      expect(processor.charges().length).to.equal(1)
      expect((await stored(loan.id)).transactions.length).to.equal(ledgerLength)
      expect((await balances(loan.id)).length).to.equal(balanceCount)
      // The key is unique per API client: another client of the party makes its own payment.
      const theirs = right(await pay(loan.id, method, 50_000, 'k1', colleague))
      expect(theirs.id).not.to.equal(first.id)
      expect(theirs.clientId).to.equal(colleague.clientId)
      expect(processor.charges().length).to.equal(2)
      await expectConsistent(loan.id)
    })

    it('gives concurrent requests with one key one payment', async () => {
      const { book, addMethod, pay, processor, stored, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => pay(loan.id, method, 10_000, 'same')))
      const first = right(results[0]!)
      for (const r of results) expect(r).to.deep.equal(E.right(first))
      expect(processor.charges().length).to.equal(1)
      expect((await stored(loan.id)).transactions.filter((t) => t.type === 'PAYMENT').length).to.equal(1)
      await expectConsistent(loan.id)
    })

    it('serialises concurrent payments on one loan: those the payoff leaves room for succeed, the rest are refused', async () => {
      const { book, addMethod, pay, processor, stored, latest, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => pay(loan.id, method, 300_000, `k${n}`)))
      expect(results.filter(E.isRight).map((r) => [r.right.amount, r.right.status])).to.deep.equal(Array(4).fill([300_000, 'SUCCEEDED']))
      expect(results.filter(E.isLeft).map((r) => r.left)).to.deep.equal([overpayment(0), overpayment(0)])
      expect(processor.charges().length).to.equal(4)
      expect((await stored(loan.id)).transactions.filter((t) => t.type === 'PAYMENT').length).to.equal(4)
      expect((await latest(loan.id)).payoffAmount).to.equal(0)
      await expectConsistent(loan.id)
    })

    it("refuses another currency naming currency, and another loan's method naming payment_method_id", async () => {
      const { deps, book, addMethod, processor, written } = setup()
      const { loan } = book()
      const other = book()
      const method = await addMethod(loan.id)
      const othersMethod = await addMethod(other.loan.id)
      const before = await written(loan.id)
      const payWith = (input: object) => createPaymentIntentForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id, ...input, idempotency_key: 'k1' })()
      expect(await payWith({ amount: 1_000, currency: 'EUR', payment_method_id: method.id })).to.deep.equal(
        E.left(invalidRequest('currency must be USD, the currency of the loan.', 'currency')),
      )
      expect(await payWith({ amount: 1_000, currency: 'USD', payment_method_id: othersMethod.id })).to.deep.equal(
        E.left(invalidRequest(`payment_method_id ${othersMethod.id} is not a payment method of this loan.`, 'payment_method_id')),
      )
      for (const [input, param] of [
        [{ amount: 0, currency: 'USD', payment_method_id: method.id }, 'amount'],
        [{ amount: 10.5, currency: 'USD', payment_method_id: method.id }, 'amount'],
        [{ amount: 1_000, currency: 'usd', payment_method_id: method.id }, 'currency'],
        [{ amount: 1_000, currency: 'USD' }, 'payment_method_id'],
      ] as const) {
        const result = await payWith(input)
        expect(E.isLeft(result) && result.left, JSON.stringify(input)).to.deep.include({ _tag: 'InvalidRequest', param })
      }
      expect(processor.charges()).to.deep.equal([])
      expect(await written(loan.id)).to.deep.equal(before)
    })

    describe('when the processor declines', () => {
      it('records a FAILED payment with the failure code and changes no balance, not even the interest due', async () => {
        const { book, addMethod, pay, written, loans, clock, expectConsistent } = setup()
        const { loan } = book()
        const method = await addMethod(loan.id, { ...CARD, card_token: 'tok_insufficient_funds_1' })
        const declining = await addMethod(loan.id, { ...CARD, card_token: 'tok_card_declined_1' })
        clock.set(at('2026-03-20'))
        const before = await written(loan.id)
        const payment = right(await pay(loan.id, method, 100_000, 'k1'))
        expect(payment).to.deep.equal({
          id: payment.id,
          loanId: loan.id,
          clientId: caller.clientId,
          idempotencyKey: 'k1',
          paymentMethodId: method.id,
          amount: 100_000,
          currency: 'USD',
          status: 'FAILED',
          failureCode: 'insufficient_funds',
          allocation: null,
          perInstallment: [],
          transactionId: null,
          effectiveDate: '2026-03-20',
          createdAt: clock.now(),
        })
        expect(await written(loan.id)).to.deep.equal(before)
        expect(await some(loans.payments.paymentById(payment.id))).to.deep.equal(payment)
        const declined = right(await pay(loan.id, declining, 100_000, 'k2'))
        expect([declined.status, declined.failureCode]).to.deep.equal(['FAILED', 'card_declined'])
        // Replaying the key answers the failed payment again, without a second charge.
        expect(await pay(loan.id, method, 100_000, 'k1')).to.deep.equal(E.right(payment))
        await expectConsistent(loan.id)
      })
    })

    describe('when the rail debits later (a bank debit waiting for its file)', () => {
      const debitsLater = () => fakePaymentProcessor((request) => (request.token.startsWith('btok_') ? { status: 'PENDING' } : { status: 'SUCCEEDED' }))

      it('records a PENDING payment that posts nothing and sends no event; a retry answers it without a second charge', async () => {
        const { book, addMethod, pay, written, loans, eventLog, clock, processor, expectConsistent } = setup(debitsLater())
        const { loan } = book()
        const method = await addMethod(loan.id)
        clock.set(at('2026-03-20'))
        const before = await written(loan.id)
        const eventsBefore = eventLog.all().length
        const payment = right(await pay(loan.id, method, 100_000, 'k1'))
        expect(payment).to.deep.equal({
          id: payment.id,
          loanId: loan.id,
          clientId: caller.clientId,
          idempotencyKey: 'k1',
          paymentMethodId: method.id,
          amount: 100_000,
          currency: 'USD',
          status: 'PENDING',
          failureCode: null,
          allocation: null,
          perInstallment: [],
          transactionId: null,
          effectiveDate: '2026-03-20',
          createdAt: clock.now(),
        })
        expect(await written(loan.id)).to.deep.equal(before)
        expect(eventLog.all().length).to.equal(eventsBefore)
        expect(await run(loans.payments.pending(loan.id))).to.deep.equal([payment])
        expect(await run(loans.payments.posted(loan.id))).to.deep.equal([])
        expect(await pay(loan.id, method, 100_000, 'k1')).to.deep.equal(E.right(payment))
        expect(processor.charges().length).to.equal(1)
        await expectConsistent(loan.id)
      })

      it('counts what is pending against the payoff: a card payment that would pass it with the debit is refused, naming both', async () => {
        const { deps, book, addMethod, pay, written, clock, expectConsistent } = setup(debitsLater())
        const { loan } = book()
        const bank = await addMethod(loan.id)
        const card = await addMethod(loan.id, CARD)
        clock.set(at('2026-03-20'))
        const payoff = deriveLoan(loan, [], '2026-03-20').payoff
        right(await pay(loan.id, bank, 100_000, 'debit'))
        // The quote says what is pending against it.
        const quote = await run(getLoanPayoffForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))
        expect([quote.payoff, quote.pendingAmount]).to.deep.equal([payoff, 100_000])
        const before = await written(loan.id)
        expect(await pay(loan.id, card, payoff - 100_000 + 1, 'card-1')).to.deep.equal(E.left(overpayment(payoff, 100_000)))
        expect(await written(loan.id)).to.deep.equal(before)
        const paid = right(await pay(loan.id, card, payoff - 100_000, 'card-2'))
        expect([paid.status, paid.amount]).to.deep.equal(['SUCCEEDED', payoff - 100_000])
        await expectConsistent(loan.id)
      })
    })

    describe('a bank debit submitted in a file (docs/servicing.md "Submission and settlement")', () => {
      const debitsLater = () => fakePaymentProcessor((request) => (request.token.startsWith('btok_') ? { status: 'PENDING' } : { status: 'SUCCEEDED' }))

      it('posts on the day its file is cut, never ahead, then settles; reversible once settled only', async () => {
        const { deps, book, addMethod, pay, reverse, stored, latest, eventLog, clock, expectConsistent } = setup(debitsLater())
        const { loan } = book()
        const bank = await addMethod(loan.id)
        // Accepted on Thursday 2026-01-15, cut into Friday's file effective Tuesday 2026-01-20.
        const pending = right(await pay(loan.id, bank, 100_000, 'debit-1'))
        clock.set(at('2026-01-16'))
        const submitted = await run(submitPendingPayment(deps)(pending.id, '2026-01-20'))
        expect(submitted).to.deep.include({ id: pending.id, status: 'SUBMITTED', amount: 100_000, effectiveDate: '2026-01-16' })
        // One day of interest on 1,200,000 at 12% (400), then principal.
        expect(submitted.allocation).to.deep.equal({ pastDue: ZERO, current: { principal: 99_600, interest: 400, fees: 0 } })
        const ledger = (await stored(loan.id)).transactions.slice(-2)
        expect(ledger.map((t) => [t.type, t.effectiveDate, t.amount])).to.deep.equal([
          ['INTEREST_ACCRUAL', '2026-01-16', 400],
          ['PAYMENT', '2026-01-16', 100_000],
        ])
        expect((await latest(loan.id)).asOf).to.equal('2026-01-16')
        expect(eventLog.all().at(-1)).to.deep.include({ type: 'payment.submitted', resourceId: pending.id, previous: { status: 'PENDING' } })
        expect(await reverse(pending.id)).to.deep.equal(E.left(invalidState('payment', 'SUBMITTED', 'reverse')))
        expect(await submitPendingPayment(deps)(pending.id, '2026-01-20')()).to.deep.equal(E.left(invalidState('payment', 'SUBMITTED', 'submit')))
        // The days to its effective date accrue as any other days do.
        clock.set(at('2026-01-17'))
        expect(await run(accrueInterestForLoans(deps)({}))).to.deep.include({ loansChanged: 1, accruals: 1 })
        await expectConsistent(loan.id)

        // Two banking days after Tuesday the settlement job settles it; an operator may reverse it then.
        clock.set(at('2026-01-22'))
        const settled = await run(settleSubmittedPayment(deps)(pending.id))
        expect(settled).to.deep.equal({ ...submitted, status: 'SETTLED' })
        expect(eventLog.all().at(-1)).to.deep.include({ type: 'payment.settled', previous: { status: 'SUBMITTED' } })
        expect(await settleSubmittedPayment(deps)(pending.id)()).to.deep.equal(E.left(invalidState('payment', 'SETTLED', 'settle')))
        expect(right(await reverse(pending.id)).status).to.equal('REVERSED')
        expect((await latest(loan.id)).principalOutstanding).to.equal(1_200_000)
        await expectConsistent(loan.id)
      })

      it('fails, posting nothing, when the loan is charged off or the date is out of reach; caps a final bill at the payoff', async () => {
        const { deps, book, addMethod, pay, written, stored, eventLog, clock, expectConsistent } = setup(debitsLater())
        const { loan } = book()
        const bank = await addMethod(loan.id)
        clock.set(at('2026-01-16'))
        const early = right(await pay(loan.id, bank, 10_000, 'before-today'))
        const far = right(await pay(loan.id, bank, 10_000, 'too-far'))
        const before = await written(loan.id)
        const failedOn = async (id: typeof early.id, date: string) => {
          const failed = await run(submitPendingPayment(deps)(id, date))
          expect(eventLog.all().at(-1)).to.deep.include({ type: 'payment.failed', resourceId: id, previous: null })
          return [failed.status, failed.failureCode, failed.allocation]
        }
        expect(await failedOn(early.id, '2026-01-15')).to.deep.equal(['FAILED', 'invalid_effective_date', null])
        expect(await failedOn(far.id, '2026-01-24')).to.deep.equal(['FAILED', 'invalid_effective_date', null])
        expect(await written(loan.id)).to.deep.equal(before)

        const afterChargeOff = right(await pay(loan.id, bank, 10_000, 'charged-off'))
        await run(chargeOffLoan(deps)({ loanId: loan.id, reason: 'fraud' }))
        expect(await failedOn(afterChargeOff.id, '2026-01-19')).to.deep.equal(['FAILED', 'loan_not_payable', null])

        // A final bill debited on the booking day: charged at the payoff of the day its file is cut, the bill kept as asked.
        const other = book({ termMonths: 1 }).loan
        const bill = right(await pay(other.id, await addMethod(other.id), 1_212_000, 'final-bill'))
        expect([bill.status, bill.amount, bill.requestedAmount]).to.deep.equal(['PENDING', 1_200_000, 1_212_000])
        const submitted = await run(submitPendingPayment(deps)(bill.id, '2026-01-19'))
        expect([submitted.status, submitted.amount, submitted.requestedAmount]).to.deep.equal(['SUBMITTED', 1_200_000, 1_212_000])
        expect((await stored(other.id)).loan.status).to.equal('PAID_OFF')
        await expectConsistent(other.id)
        await expectConsistent(loan.id)
      })
    })

    describe('when the commit fails after the charge', () => {
      it('answers StoreUnavailable and records nothing; the retry under the same key moves no money again', async () => {
        const { deps, book, addMethod, pay, written, loans, processor, expectConsistent } = setup()
        const { loan } = book()
        const method = await addMethod(loan.id)
        const before = await written(loan.id)
        // The decision and the charge run under the lock; the commit after them fails.
        const commitFails: typeof loans.change = (target, decide) => loans.change(target, (found, reads) => pipe(decide(found, reads), TE.chainW(() => TE.left(storeUnavailable('connection reset')))))
        const lost = await createPaymentIntentForPartyLoan({ ...deps, loans: { change: commitFails } })(caller, { partyId: caller.partyId, loanId: loan.id, amount: 50_000, currency: 'USD', payment_method_id: method.id, idempotency_key: 'k1' })()
        expect(lost).to.deep.equal(E.left(storeUnavailable('connection reset')))
        expect(await written(loan.id)).to.deep.equal(before)
        const retried = right(await pay(loan.id, method, 50_000, 'k1'))
        expect(retried.status).to.equal('SUCCEEDED')
        expect(processor.charges().map((c) => [c.idempotencyKey, c.amount])).to.deep.equal([[`${caller.clientId}/k1`, 50_000]])
        await expectConsistent(loan.id)
      })
    })

    describe('when the processor is unreachable', () => {
      it('answers ProcessorUnavailable and records nothing; a retry with the same key then succeeds', async () => {
        const { book, addMethod, pay, written, loans, processor, expectConsistent } = setup()
        const { loan } = book()
        const method = await addMethod(loan.id)
        const before = await written(loan.id)
        processor.down('connection refused')
        expect(await pay(loan.id, method, 50_000, 'k1')).to.deep.equal(E.left({ _tag: 'ProcessorUnavailable', cause: 'connection refused' }))
        expect(await written(loan.id)).to.deep.equal(before)
        expect(await run(loans.payments.paymentByKey(caller.clientId, 'k1'))).to.deep.equal(O.none)
        processor.up()
        const retried = right(await pay(loan.id, method, 50_000, 'k1'))
        expect(retried.status).to.equal('SUCCEEDED')
        expect(processor.charges().length).to.equal(1)
        await expectConsistent(loan.id)
      })
    })
  })

  describe('reverseLoanPayment', () => {
    it('posts a REVERSAL, restores the balance and the installments exactly, and marks the payment REVERSED', async () => {
      const { book, addMethod, pay, reverse, stored, latest, loans, clock, expectConsistent } = setup()
      const { loan } = book({ originationFeeBps: 200 })
      const method = await addMethod(loan.id)
      clock.set(at('2026-03-20'))
      const payment = right(await pay(loan.id, method, P1 + 24_000 + 5, 'k1'))
      clock.set(at('2026-03-25'))
      const reversed = right(await reverse(payment.id))
      expect(reversed).to.deep.equal({ ...payment, status: 'REVERSED' })
      expect(await some(loans.payments.paymentById(payment.id))).to.deep.equal(reversed)
      const after = await stored(loan.id)
      expect(after.transactions.at(-1)).to.deep.equal({
        id: after.transactions.at(-1)!.id,
        loanId: loan.id,
        type: 'REVERSAL',
        effectiveDate: '2026-03-25',
        amount: P1 + 24_000 + 5,
        principal: P1 + 5,
        interest: 24_000,
        fees: 0,
        paymentId: payment.id,
        reversesId: payment.transactionId,
        createdAt: clock.now(),
      })
      expect(after.installments.map((i) => [i.principalPaid, i.interestPaid, i.feesPaid]).every(([p, i, f]) => p === 0 && i === 0 && f === 0)).to.equal(true)
      // The loan is derived again without the payment: the whole principal bore interest all along.
      expect(after.installments.slice(0, 2).map((i) => [i.interestDue, i.interestAccrued])).to.deep.equal([
        [12_000, true],
        [12_000, true],
      ])
      // Installment 3: 10 days accrued on 1,200,000 (4,000), 20 days projected on the principal it and those after it owe.
      const projected = Math.round(((1_200_000 - P1 - P2) * 1_200 * 20) / 3_600_000)
      expect(figures(await latest(loan.id))).to.deep.equal({
        loanId: loan.id,
        asOf: '2026-03-25',
        principalOutstanding: 1_200_000,
        interestOutstanding: 28_000,
        feesOutstanding: 0,
        payoffAmount: 1_228_000,
        pastDueAmount: P1 + 12_000 + P2 + 12_000,
        nextDueDate: '2026-04-15',
        nextDueAmount: P3 + 4_000 + projected,
      })
      await expectConsistent(loan.id)
    })

    it("refuses a second reversal with InvalidState('payment', 'REVERSED', 'reverse') and writes nothing", async () => {
      const { book, addMethod, pay, reverse, written, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      const payment = right(await pay(loan.id, method, 50_000, 'k1'))
      right(await reverse(payment.id, undefined))
      const before = await written(loan.id)
      expect(await reverse(payment.id)).to.deep.equal(E.left(invalidState('payment', 'REVERSED', 'reverse')))
      expect(await written(loan.id)).to.deep.equal(before)
      await expectConsistent(loan.id)
    })

    it('refuses to reverse a failed payment', async () => {
      const { book, addMethod, pay, reverse, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id, { ...CARD, card_token: 'tok_insufficient_funds_2' })
      const failed = right(await pay(loan.id, method, 50_000, 'k1'))
      expect(await reverse(failed.id)).to.deep.equal(E.left(invalidState('payment', 'FAILED', 'reverse')))
      await expectConsistent(loan.id)
    })

    it('answers NotFound for an unknown payment and InvalidRequest for a malformed id or an unknown field', async () => {
      const { reverse } = setup()
      expect(await reverse(UNKNOWN_ID)).to.deep.equal(E.left(notFound('payment')))
      const malformed = await reverse('nope')
      expect(E.isLeft(malformed) && malformed.left).to.deep.include({ _tag: 'InvalidRequest', param: 'paymentId' })
      const unknownField = await reverse(UNKNOWN_ID, { why: 'x' })
      expect(E.isLeft(unknownField) && unknownField.left).to.deep.include({ _tag: 'InvalidRequest', param: 'why' })
    })
  })

  describe('accrueInterestForLoans', () => {
    const twoLoans = () => {
      const s = setup()
      const a = s.book()
      s.clock.set(at('2026-02-01'))
      const b = s.book({ amount: 600_000 })
      return { ...s, a: a.loan, b: b.loan }
    }

    it('refuses an as_of after today everywhere (UTC+14), naming as_of', async () => {
      const { deps, a, written } = twoLoans()
      const before = await written(a.id)
      expect(await accrueInterestForLoans(deps)({ as_of: '2026-02-03' })()).to.deep.equal(
        E.left(invalidRequest('as_of must not be after today (in the latest time zone, UTC+14): interest accrues on dates that have come.', 'as_of')),
      )
      const malformed = await accrueInterestForLoans(deps)({ as_of: '2026-02-30' })()
      expect(E.isLeft(malformed) && malformed.left).to.deep.include({ _tag: 'InvalidRequest', param: 'as_of' })
      expect(await written(a.id)).to.deep.equal(before)
    })

    it('posts the interest accrued to today on every active loan, by default', async () => {
      const { deps, a, b, clock, stored, latest, expectConsistent } = twoLoans()
      clock.set(at('2026-03-20'))
      expect(await run(accrueInterestForLoans(deps)(undefined))).to.deep.equal({ asOf: '2026-03-20', loansExamined: 2, loansChanged: 2, accruals: 2, loansFailed: 0 })
      const accruals = async (id: string) =>
        (await stored(id)).transactions.filter((t) => t.type === 'INTEREST_ACCRUAL').map((t) => [t.effectiveDate, t.interest])
      // a: 2 months and 5 days (30/360) on 1,200,000 at 12%; b: 1 month and 19 days on 600,000.
      expect(await accruals(a.id)).to.deep.equal([['2026-03-20', 26_000]])
      expect(await accruals(b.id)).to.deep.equal([['2026-03-20', 9_800]])
      const projected = Math.round(((1_200_000 - P1 - P2) * 1_200 * 25) / 3_600_000)
      expect(figures(await latest(a.id))).to.deep.equal({
        loanId: a.id,
        asOf: '2026-03-20',
        principalOutstanding: 1_200_000,
        interestOutstanding: 26_000,
        feesOutstanding: 0,
        payoffAmount: 1_226_000,
        pastDueAmount: P1 + 12_000 + P2 + 12_000,
        nextDueDate: '2026-04-15',
        nextDueAmount: P3 + 2_000 + projected,
      })
      await expectConsistent(a.id)
      await expectConsistent(b.id)
    })

    it('as the scheduled daily job: posts what the operators\' run posts, records the run once, and is then not due', async () => {
      const { deps, a, b, clock, stored, expectConsistent } = twoLoans()
      const audit = inMemoryAuditLog()
      const leases = inMemoryJobLeases()
      clock.set(at('2026-03-20'))
      const job = dailyServicingJob({ ...deps, audit })('2026-03-20')
      const request = { runKey: '2026-03-20', holder: 'worker-1', leaseMs: 30_000, stopping: () => false }
      expect(await run(runLeasedJob({ leases, clock })(job, request))).to.deep.equal({ _tag: 'Completed', resumed: false })
      expect(await run(runLeasedJob({ leases, clock })(job, { ...request, holder: 'worker-2' }))).to.deep.equal({ _tag: 'NotDue' })
      const accruals = async (id: string) => (await stored(id)).transactions.filter((t) => t.type === 'INTEREST_ACCRUAL').map((t) => [t.effectiveDate, t.interest])
      // The figures of 'posts the interest accrued to today on every active loan, by default'.
      expect(await accruals(a.id)).to.deep.equal([['2026-03-20', 26_000]])
      expect(await accruals(b.id)).to.deep.equal([['2026-03-20', 9_800]])
      const events = audit.all().filter((e) => e.action === 'interest_accrual.completed')
      expect(events.map((e) => [e.actor, e.details])).to.deep.equal([
        [{ type: 'system' }, { as_of: '2026-03-20', loans_examined: 2, loans_changed: 2, accruals: 2, loans_failed: 0 }],
      ])
      await expectConsistent(a.id)
      await expectConsistent(b.id)
    })

    it('resumes a run saved before failed loans were counted, as 0 failed', () => {
      const { deps, a } = twoLoans()
      const job = dailyServicingJob({ ...deps, audit: inMemoryAuditLog() })('2026-03-20')
      const saved = { asOf: '2026-03-20', loansExamined: 100, loansChanged: 7, accruals: 9, after: a.id }
      expect(job.progress.decode(saved)).to.deep.equal(E.right({ ...saved, loansFailed: 0 }))
      expect(job.progress.is(saved)).to.equal(false)
      expect(job.progress.decode({ ...saved, loansFailed: 'one' })._tag).to.equal('Left')
    })

    it('goes on past a loan it cannot service: the loan is reported, left as it was, and tried again on the next run', async () => {
      const { deps, a, b, loans, clock, stored, written, expectConsistent } = twoLoans()
      // A snapshot that disagrees with the schedule: the engine refuses to post on this loan.
      const booked = await stored(a.id)
      loans.book({ ...booked, balance: { ...booked.balance, principalOutstanding: booked.balance.principalOutstanding + 1 } })
      const before = await written(a.id)
      const failures: unknown[] = []
      const audit = inMemoryAuditLog()
      const leases = inMemoryJobLeases()
      const jobDeps = { ...deps, audit, failures: { loanFailed: (f: { readonly loanId: string; readonly job: string }) => failures.push([f.job, f.loanId]) } }
      clock.set(at('2026-03-20'))
      const request = { runKey: '2026-03-20', holder: 'worker-1', leaseMs: 30_000, stopping: () => false }
      expect(await run(runLeasedJob({ leases, clock })(dailyServicingJob(jobDeps)('2026-03-20'), request))).to.deep.equal({ _tag: 'Completed', resumed: false })
      expect(failures).to.deep.equal([['servicing', a.id]])
      expect(await written(a.id)).to.deep.equal(before)
      expect((await stored(b.id)).transactions.filter((t) => t.type === 'INTEREST_ACCRUAL').map((t) => [t.effectiveDate, t.interest])).to.deep.equal([['2026-03-20', 9_800]])
      await expectConsistent(b.id)
      clock.set(at('2026-03-21'))
      const next = { ...request, runKey: '2026-03-21' }
      expect(await run(runLeasedJob({ leases, clock })(dailyServicingJob(jobDeps)('2026-03-21'), next))).to.deep.equal({ _tag: 'Completed', resumed: false })
      expect(failures).to.deep.equal([['servicing', a.id], ['servicing', a.id]])
    })

    it('skips a loan the store refuses while the store answers, and stops when the store is down', async () => {
      const { deps, a, b, loans, clock, stored } = twoLoans()
      clock.set(at('2026-03-20'))
      const refused = storeUnavailable(new Error('value out of range for type bigint'))
      const refusing = (id: string): typeof loans.change => (target, decide) => (target.loanId === id ? TE.left(refused) : loans.change(target, decide))
      // A group is one transaction: the store refuses the whole group that holds the loan.
      const refusingAll = (id: string): typeof loans.changeMany => (ids, decide) => (ids.some((loanId) => loanId === id) ? TE.left(refused) : loans.changeMany(ids, decide))
      const failures: unknown[] = []
      const jobDeps = { ...deps, loans: { activeLoanIds: loans.activeLoanIds, change: refusing(a.id), changeMany: refusingAll(a.id) }, failures: { loanFailed: (f: { readonly loanId: string; readonly reason: string }) => failures.push([f.loanId, f.reason]) } }
      expect(await run(accrueInterestForLoans(jobDeps)({}))).to.deep.equal({ asOf: '2026-03-20', loansExamined: 2, loansChanged: 1, accruals: 1, loansFailed: 1 })
      expect(failures).to.deep.equal([[a.id, 'the store refused this loan: value out of range for type bigint']])
      expect((await stored(b.id)).transactions.filter((t) => t.type === 'INTEREST_ACCRUAL').map((t) => t.effectiveDate)).to.deep.equal(['2026-03-20'])
      // The store goes down after the batch was read: the first loan's error is the outage's.
      const down = storeUnavailable(new Error('connection refused'))
      let reads = 0
      const listedThenDown: typeof loans.activeLoanIds = (after, limit) => (reads++ === 0 ? loans.activeLoanIds(after, limit) : TE.left(down))
      const outage = { ...jobDeps, loans: { activeLoanIds: listedThenDown, change: () => TE.left(down), changeMany: () => TE.left(down) } }
      expect(await accrueInterestForLoans(outage)({})()).to.deep.equal(E.left(down))
      expect(failures).to.have.length(1)
    })

    it('changes nothing when run twice for the same date', async () => {
      const { deps, a, b, clock, written, expectConsistent } = twoLoans()
      clock.set(at('2026-03-20'))
      right(await accrueInterestForLoans(deps)({})())
      const before = [await written(a.id), await written(b.id)]
      expect(await run(accrueInterestForLoans(deps)({ as_of: '2026-03-20' }))).to.deep.equal({ asOf: '2026-03-20', loansExamined: 2, loansChanged: 0, accruals: 0, loansFailed: 0 })
      expect([await written(a.id), await written(b.id)]).to.deep.equal(before)
      await expectConsistent(a.id)
      await expectConsistent(b.id)
    })

    it('posts only what accrued by an earlier as_of, then the rest; never goes back before a later posting', async () => {
      const { deps, a, b, clock, stored, expectConsistent } = twoLoans()
      clock.set(at('2026-03-20'))
      expect(await run(accrueInterestForLoans(deps)({ as_of: '2026-02-20' }))).to.deep.equal({ asOf: '2026-02-20', loansExamined: 2, loansChanged: 2, accruals: 2, loansFailed: 0 })
      expect(await run(accrueInterestForLoans(deps)({}))).to.deep.equal({ asOf: '2026-03-20', loansExamined: 2, loansChanged: 2, accruals: 2, loansFailed: 0 })
      expect(await run(accrueInterestForLoans(deps)({ as_of: '2026-03-01' }))).to.deep.equal({ asOf: '2026-03-01', loansExamined: 2, loansChanged: 0, accruals: 0, loansFailed: 0 })
      // The same total as one run on 20 March: 35 days, then 30 more, on 1,200,000.
      expect((await stored(a.id)).transactions.filter((t) => t.type === 'INTEREST_ACCRUAL').map((t) => [t.effectiveDate, t.interest])).to.deep.equal([
        ['2026-02-20', 14_000],
        ['2026-03-20', 12_000],
      ])
      await expectConsistent(a.id)
      await expectConsistent(b.id)
    })

    it('writes a snapshot when only the past-due figures moved', async () => {
      const { deps, book, clock, balances, latest } = setup()
      const { loan } = book({ interestRateBps: 0 })
      clock.set(at('2026-02-15'))
      expect(await run(accrueInterestForLoans(deps)({}))).to.deep.include({ loansChanged: 0, accruals: 0 })
      expect((await latest(loan.id)).pastDueAmount).to.equal(0)
      const count = (await balances(loan.id)).length
      clock.set(at('2026-02-16'))
      expect(await run(accrueInterestForLoans(deps)({}))).to.deep.include({ loansChanged: 1, accruals: 0 })
      expect((await balances(loan.id)).length).to.equal(count + 1)
      expect((await latest(loan.id)).pastDueAmount).to.equal(100_000)
    })

    it('accrues on the principal then outstanding, so paying ahead lowers the interest', async () => {
      const { deps, book, addMethod, pay, clock, stored, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      right(await pay(loan.id, method, 600_000, 'k1'))
      clock.set(at('2026-02-15'))
      right(await accrueInterestForLoans(deps)({})())
      expect((await stored(loan.id)).transactions.filter((t) => t.type === 'INTEREST_ACCRUAL').map((t) => t.interest)).to.deep.equal([6_000])
      await expectConsistent(loan.id)
    })
  })

  describe('chargeOffLoan', () => {
    it('posts what is owed to today, writes it all off with one CHARGE_OFF entry, audits it and freezes the loan', async () => {
      const { deps, book, addMethod, pay, stored, latest, applications, clock, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      clock.set(at('2026-05-20'))
      const charged = await run(chargeOffLoan(deps)({ loanId: loan.id, reason: 'Borrower insolvent' }))
      expect([charged.status, charged.chargedOffOn, charged.oldestUnpaidDueDate]).to.deep.equal(['CHARGED_OFF', '2026-05-20', '2026-02-15'])
      const after = await stored(loan.id)
      // 4 months and 5 days of interest on 1,200,000 at 12%: 50,000.
      expect(after.transactions.slice(-2).map((t) => [t.type, t.effectiveDate, t.amount, t.principal, t.interest, t.fees])).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-05-20', 50_000, 0, 50_000, 0],
        ['CHARGE_OFF', '2026-05-20', 1_250_000, -1_200_000, -50_000, 0],
      ])
      expect(ledgerSums(after.transactions)).to.deep.equal(ZERO)
      expect(figures(await latest(loan.id))).to.deep.include({ principalOutstanding: 0, interestOutstanding: 0, payoffAmount: 0, pastDueAmount: 0, nextDueDate: null })
      const [event] = applications.audit.all().filter((e) => e.action === 'loan.charged_off')
      expect(event?.details).to.deep.equal({
        charged_off_on: '2026-05-20',
        currency: 'USD',
        principal: 1_200_000,
        interest: 50_000,
        fees: 0,
        charge_off_transaction_id: after.transactions.at(-1)!.id,
        reason: 'Borrower insolvent',
      })
      // Frozen: no payment, no second charge-off, nothing accrues, days past due stop on that day.
      expect(await pay(loan.id, method, 100, 'k1')).to.deep.equal(E.left(invalidState('loan', 'CHARGED_OFF', 'pay')))
      expect(await chargeOffLoan(deps)({ loanId: loan.id })()).to.deep.equal(E.left(invalidState('loan', 'CHARGED_OFF', 'charge off')))
      clock.set(at('2026-07-01'))
      expect(await run(accrueInterestForLoans(deps)({}))).to.deep.include({ loansExamined: 0 })
      expect((await stored(loan.id)).transactions).to.have.length(after.transactions.length)
      expect(await getLatestLoanBalanceForParty(deps)(caller, { partyId: caller.partyId, loanId: loan.id })()).to.deep.equal(E.right({ ...(await latest(loan.id)), currency: 'USD' }))
      await expectConsistent(loan.id)
    })

    it('refuses an unknown loan (NotFound) and an unknown field (InvalidRequest)', async () => {
      const { deps, book } = setup()
      expect(await chargeOffLoan(deps)({ loanId: UNKNOWN_ID })()).to.deep.equal(E.left(notFound('loan')))
      const unknownField = await chargeOffLoan(deps)({ loanId: book().loan.id, why: 'x' })()
      expect(E.isLeft(unknownField) && unknownField.left).to.deep.include({ _tag: 'InvalidRequest', param: 'why' })
    })
  })

  describe('addLoanCollateral / listCollateralForPartyLoan', () => {
    it('records collateral items and lists them oldest first', async () => {
      const { deps, book, clock } = setup()
      const { loan } = book()
      const van = await run(addLoanCollateral(deps)({ loanId: loan.id, type: 'vehicle', description: '2024 Ford Transit', valuation: 3_500_000, currency: 'USD' }))
      expect(van).to.deep.equal({
        id: van.id,
        loanId: loan.id,
        type: 'vehicle',
        description: '2024 Ford Transit',
        valuation: 3_500_000,
        currency: 'USD',
        lienPosition: 1,
        createdAt: clock.now(),
      })
      clock.advance(1_000)
      const stock = await run(addLoanCollateral(deps)({ loanId: loan.id, type: 'inventory', description: 'Stock', valuation: 100, currency: 'USD', lien_position: 2 }))
      expect(await run(listCollateralForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId: loan.id }))).to.deep.equal({ items: [van, stock], nextCursor: null })
    })

    it('answers NotFound for an unknown loan and InvalidRequest for a bad item', async () => {
      const { deps, book } = setup()
      const { loan } = book()
      expect(await addLoanCollateral(deps)({ loanId: UNKNOWN_ID, type: 'cash', description: 'x', valuation: 1, currency: 'USD' })()).to.deep.equal(E.left(notFound('loan')))
      const bad = await addLoanCollateral(deps)({ loanId: loan.id, type: 'boat', description: 'x', valuation: 1, currency: 'USD' })()
      expect(E.isLeft(bad) && bad.left).to.deep.include({ _tag: 'InvalidRequest', param: 'type' })
    })
  })

  describe('attachLoanDocument / listDocumentsForPartyLoan', () => {
    it('lists the opening statement, then attached documents', async () => {
      const { deps, book, clock } = setup()
      const booked = book()
      const loanId = booked.loan.id
      clock.advance(1_000)
      const notice = await run(
        attachLoanDocument(deps)({ loanId, type: 'notice', storage_ref: 's3://docs/notice-1.pdf', period_start: '2026-01-01', period_end: '2026-01-31', content_type: 'application/pdf' }),
      )
      expect(notice).to.deep.equal({
        id: notice.id,
        loanId,
        type: 'notice',
        periodStart: '2026-01-01',
        periodEnd: '2026-01-31',
        storageRef: 's3://docs/notice-1.pdf',
        fileName: null,
        contentType: 'application/pdf',
        createdAt: clock.now(),
      })
      expect(await run(listDocumentsForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId }))).to.deep.equal({ items: [...booked.documents, notice], nextCursor: null })
    })

    it('refuses period_start after period_end, naming period_start, and stores nothing', async () => {
      const { deps, book } = setup()
      const booked = book()
      const loanId = booked.loan.id
      expect(await attachLoanDocument(deps)({ loanId, type: 'statement', storage_ref: 's3://x', period_start: '2026-02-01', period_end: '2026-01-31' })()).to.deep.equal(
        E.left(invalidRequest('period_start must not be after period_end.', 'period_start')),
      )
      expect((await run(listDocumentsForPartyLoan(deps)(caller, { partyId: caller.partyId, loanId }))).items).to.deep.equal(booked.documents)
      expect(await attachLoanDocument(deps)({ loanId: UNKNOWN_ID, type: 'other', storage_ref: 's3://x' })()).to.deep.equal(E.left(notFound('loan')))
    })
  })

  describe("another party's loan", () => {
    it("is PartyMismatch when the command names another party than the key's, before anything is read", async () => {
      const { deps, book } = setup()
      const { loan } = book({ partyId: stranger.partyId })
      const theirs = { partyId: stranger.partyId, loanId: loan.id }
      // Every servicing use case of a party, each with a command naming the stranger's party
      // (and a field that would fail, to show the party is checked first).
      const results: readonly [string, E.Either<unknown, unknown>][] = [
        ['listLoansForParty', await listLoansForParty(deps)(caller, { partyId: stranger.partyId, limit: '0' })()],
        ['getLoanForParty', await getLoanForParty(deps)(caller, theirs)()],
        ['listLoanBalancesForParty', await listLoanBalancesForParty(deps)(caller, { ...theirs, limit: '0' })()],
        ['getLatestLoanBalanceForParty', await getLatestLoanBalanceForParty(deps)(caller, theirs)()],
        ['listTransactionsForPartyLoan', await listTransactionsForPartyLoan(deps)(caller, { ...theirs, type: 'NOPE' })()],
        ['listLoanScheduleForParty', await listLoanScheduleForParty(deps)(caller, { ...theirs, limit: '0' })()],
        ['listCollateralForPartyLoan', await listCollateralForPartyLoan(deps)(caller, { ...theirs, limit: '0' })()],
        ['listDocumentsForPartyLoan', await listDocumentsForPartyLoan(deps)(caller, { ...theirs, limit: '0' })()],
        ['listPaymentMethodsForPartyLoan', await listPaymentMethodsForPartyLoan(deps)(caller, { ...theirs, limit: '0' })()],
        ['createPaymentMethodForPartyLoan', await createPaymentMethodForPartyLoan(deps)(caller, { ...theirs, type: 'cheque' })()],
        ['updatePaymentMethodForPartyLoan', await updatePaymentMethodForPartyLoan(deps)(caller, { ...theirs, paymentMethodId: 'nope' })()],
        ['createPaymentIntentForPartyLoan', await createPaymentIntentForPartyLoan(deps)(caller, { ...theirs, amount: -1, idempotency_key: 'k' })()],
      ]
      for (const [name, result] of results) expect(result, name).to.deep.equal(E.left(partyMismatch))
      expect(await getLoanForParty(deps)(caller, { loanId: loan.id })()).to.deep.equal(E.left(invalidRequest('partyId is required', 'partyId')))
    })

    it('is NotFound for every partner use case, and nothing is written or charged', async () => {
      const { deps, book, addMethod, pay, processor, tokenizer, written, paymentMethods, expectConsistent } = setup()
      const { loan } = book()
      const method = await addMethod(loan.id)
      right(await pay(loan.id, method, 10_000, 'k1'))
      const before = await written(loan.id)
      const seen = tokenizer.seen.length
      const params = { partyId: stranger.partyId, loanId: loan.id }
      const results: readonly [string, E.Either<unknown, unknown>][] = [
        ['getLoanForParty', await getLoanForParty(deps)(stranger, params)()],
        ['listLoanBalancesForParty', await listLoanBalancesForParty(deps)(stranger, params)()],
        ['getLatestLoanBalanceForParty', await getLatestLoanBalanceForParty(deps)(stranger, params)()],
        ['listTransactionsForPartyLoan', await listTransactionsForPartyLoan(deps)(stranger, { ...params, type: 'PAYMENT' })()],
        ['listLoanScheduleForParty', await listLoanScheduleForParty(deps)(stranger, params)()],
        ['listCollateralForPartyLoan', await listCollateralForPartyLoan(deps)(stranger, params)()],
        ['listDocumentsForPartyLoan', await listDocumentsForPartyLoan(deps)(stranger, params)()],
        ['listPaymentMethodsForPartyLoan', await listPaymentMethodsForPartyLoan(deps)(stranger, params)()],
        ['createPaymentMethodForPartyLoan', await createPaymentMethodForPartyLoan(deps)(stranger, { ...params, ...BANK })()],
        ['updatePaymentMethodForPartyLoan', await updatePaymentMethodForPartyLoan(deps)(stranger, { ...params, paymentMethodId: method.id, is_default: true })()],
        ['createPaymentIntentForPartyLoan', await pay(loan.id, method, 10_000, 'k2', stranger)],
      ]
      for (const [name, result] of results) expect(result, name).to.deep.equal(E.left(notFound('loan')))
      expect(await run(listLoansForParty(deps)(stranger, { partyId: stranger.partyId }))).to.deep.equal({ items: [], nextCursor: null })
      expect(await written(loan.id)).to.deep.equal(before)
      expect(processor.charges().length).to.equal(1)
      expect(tokenizer.seen.length).to.equal(seen)
      expect(paymentMethods.all()).to.deep.equal([method])
      await expectConsistent(loan.id)
    })
  })

  describe('invariants', () => {
    type Step =
      | { readonly kind: 'wait'; readonly days: number }
      | { readonly kind: 'accrue'; readonly back: number }
      | { readonly kind: 'pay'; readonly share: number; readonly fail: boolean }
      | { readonly kind: 'reverse'; readonly pick: number }
      | { readonly kind: 'burst'; readonly shares: readonly number[] }

    const share = fc.double({ min: 0, max: 1, noNaN: true })
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 70 }) }),
      fc.record({ kind: fc.constant('accrue' as const), back: fc.nat({ max: 60 }) }),
      fc.record({ kind: fc.constant('pay' as const), share, fail: fc.boolean() }),
      fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('burst' as const), shares: fc.array(share, { minLength: 2, maxLength: 6 }) }),
    )
    const terms = fc.record({
      amount: fc.integer({ min: 1, max: 50_000_000 }),
      interestRateBps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000 })),
      originationFeeBps: fc.integer({ min: 0, max: 1_000 }),
      termMonths: fc.integer({ min: 1, max: 24 }),
    })

    /** An amount ≤ payoff: `share` of it. */
    const amountOf = (payoff: number, s: number): number => Math.min(payoff, Math.max(1, Math.floor(payoff * s)))

    it('keeps ledger = latest balance = schedule through random clock moves, accruals, payments, reversals and concurrent payments', async () => {
      await fc.assert(
        fc.asyncProperty(terms, fc.array(step, { maxLength: 40, size: 'max' }), async (t, steps) => {
          const s = setup()
          const { loan, balance } = s.book(t)
          const method = await s.addMethod(loan.id)
          // A card whose charges the processor fails (`sandboxChargeOutcome`), whatever the amount.
          const failing = await s.addMethod(loan.id, { ...CARD, card_token: 'tok_insufficient_funds_p' })
          const payments: Payment[] = []
          let key = 0
          await s.expectConsistent(loan.id)
          for (const st of steps) {
            const ledgerBefore = (await s.stored(loan.id)).transactions.length
            const payoff = (await s.latest(loan.id)).payoffAmount
            if (st.kind === 'wait') s.clock.advance(st.days * 86_400_000)
            if (st.kind === 'accrue') {
              const asOf = new Date(Math.max(s.clock.now().getTime() - st.back * 86_400_000, Date.parse(loan.startDate))).toISOString().slice(0, 10)
              const active = (await s.stored(loan.id)).loan.status === 'ACTIVE'
              const result = await run(accrueInterestForLoans(s.deps)({ as_of: asOf }))
              // A paid-off loan is not visited: nothing can accrue on it.
              expect(result.loansExamined).to.equal(active ? 1 : 0)
              expect(active || payoff === 0, 'only a loan owing nothing is paid off').to.equal(true)
              expect((await s.stored(loan.id)).transactions.length).to.equal(ledgerBefore + result.accruals)
            }
            if (st.kind === 'pay') {
              if (payoff === 0) {
                expect(await s.pay(loan.id, method, 1, `k${(key += 1)}`)).to.deep.equal(E.left(overpayment(0)))
              } else {
                const amount = amountOf(payoff, st.share)
                const payment = right(await s.pay(loan.id, st.fail ? failing : method, amount, `k${(key += 1)}`))
                expect([payment.amount, payment.status]).to.deep.equal([amount, st.fail ? 'FAILED' : 'SUCCEEDED'])
                const after = (await s.stored(loan.id)).transactions
                if (payment.status === 'FAILED') expect(after.length).to.equal(ledgerBefore)
                else expect(after.at(-1)).to.deep.include({ id: payment.transactionId, type: 'PAYMENT', amount, paymentId: payment.id })
                payments.push(payment)
              }
            }
            if (st.kind === 'reverse' && payments.length > 0) {
              const chosen = payments[st.pick % payments.length]!
              const current = await some(s.loans.payments.paymentById(chosen.id))
              const result = await s.reverse(chosen.id)
              if (current.status === 'SUCCEEDED') expect(result).to.deep.equal(E.right({ ...current, status: 'REVERSED' }))
              else expect(result).to.deep.equal(E.left(invalidState('payment', current.status, 'reverse')))
            }
            if (st.kind === 'burst') {
              // Several payments at once, each within the payoff as it stood: the lock serialises them.
              const amounts = st.shares.map((x) => Math.max(1, Math.floor(payoff * x)))
              const results = await Promise.all(amounts.map((amount) => s.pay(loan.id, method, amount, `k${(key += 1)}`)))
              const answered: Payment[] = []
              results.forEach((r, n) => {
                if (E.isLeft(r)) {
                  // Refused only when the payments before it left no room for it.
                  expect(r.left).to.have.property('_tag', 'Overpayment')
                  expect((r.left as { payoffAmount: number }).payoffAmount).to.be.below(amounts[n]!)
                } else {
                  expect(r.right.status).to.equal('SUCCEEDED')
                  // Within the final bill but above the payoff: settled at the payoff, charging only that.
                  if (r.right.amount !== amounts[n]) expect(r.right.amount).to.be.below(amounts[n]!)
                  answered.push(r.right)
                }
              })
              if (answered.some((p, n) => p.amount !== amounts[results.findIndex((r) => E.isRight(r) && r.right.id === p.id)])) {
                expect((await s.stored(loan.id)).loan.status, 'a payment settled at the payoff pays the loan off').to.equal('PAID_OFF')
              }
              expect(new Set(answered.map((p) => p.id)).size).to.equal(answered.length)
              const posted = (await s.stored(loan.id)).transactions.slice(ledgerBefore).filter((x) => x.type === 'PAYMENT')
              const succeeded = answered.filter((p) => p.status === 'SUCCEEDED')
              expect(posted.map((x) => [x.paymentId, x.amount])).to.have.deep.members(succeeded.map((p) => [p.id, p.amount]))
              payments.push(...answered)
            }
            await s.expectConsistent(loan.id)
          }
        }),
        { seed: 20261123, numRuns: 300 },
      )
    })
  })
})
