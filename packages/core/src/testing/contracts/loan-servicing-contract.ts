import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { applicationApprovedEvent, collateralAddedEvent, documentAttachedEvent, NOT_AUDITED, OPERATOR_CONTEXT, paymentReversedEvent } from '../../domain/audit/audit-event.js'
import type { CollateralItem } from '../../domain/loans/collateral.js'
import { notFound, overpayment, type NotFound, type Overpayment, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newLoanApplication, type LoanApplication } from '../../domain/loans/loan-application.js'
import type { LoanDocument } from '../../domain/loans/loan-document.js'
import type { LoanProduct } from '../../domain/loans/loan-product.js'
import { bookLoan, loanSummary, type BookedLoan, type LoanStatus } from '../../domain/loans/loan.js'
import { post as postEvent, settled } from '../../use-cases/servicing/posting.js'
import { utcDate } from '../../domain/foundations/instant.js'
import type { PageRequest } from '../../domain/foundations/pagination.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { LoanApplicationRepository } from '../../ports/loan-application-repository.js'
import type { LoanRepository, LockedLoan, OfPartyLoan, PaymentReads, Posting, TransactionFilter } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import { sequencePosition } from '../../domain/foundations/pagination.js'
import { at, freshId, right, type Implementation } from './run.js'
import type { ClientId, LoanId, PartyId, PaymentMethodId } from '../../domain/foundations/ids.js'
import { testId, type TestId } from '../test-ids.js'

/** Who a loan belongs to: a stored party and an API client (payments reference both). */
export type LoanBorrower = { readonly partyId: PartyId; readonly clientId: ClientId }

/** What `bookedLoan` may be told; anything left out is a new borrower, a fixed time, a fresh id, ACTIVE. */
export type LoanToBook = {
  readonly borrower?: LoanBorrower
  /** When the loan is booked: its `createdAt` and (as a UTC date) its start date. */
  readonly at?: Date
  readonly id?: string
  readonly status?: LoanStatus
}

/** The servicing suites' fixtures: the repositories and a factory of stored, booked loans. */
export type LoanServicingFixtures = {
  readonly loans: LoanRepository
  readonly methods: PaymentMethodRepository
  /** A stored party with an API client of its own. */
  readonly borrower: () => Promise<LoanBorrower>
  /** Books a loan the way approval does (`saveApproved` of an approved application) and returns it. */
  readonly bookedLoan: (options?: LoanToBook) => Promise<BookedLoan>
}

/** The default booking time of `bookedLoan`: start date 2026-03-10, first due date 2026-04-10. */
export const BOOKED_AT = at('2026-03-10T09:30:00.000Z')

/**
 * A `bookedLoan` factory over any `LoanApplicationRepository`: stores a submitted application of
 * `product` (1,200,000 over 12 months) and approves it with the loan `bookLoan` books.
 */
export const bookingThrough =
  (applications: LoanApplicationRepository, product: LoanProduct, borrower: () => Promise<LoanBorrower>) =>
  async (options: LoanToBook = {}): Promise<BookedLoan> => {
    const owner = options.borrower ?? (await borrower())
    const now = options.at ?? BOOKED_AT
    const input = { product_id: product.id, amount: 1_200_000, currency: product.currency, term_months: 12, purpose: 'Working capital' }
    const draft = newLoanApplication(input, owner, product, freshId(), now)
    await right(applications.insert(draft))
    const submitted = await right(applications.save({ ...draft, status: 'SUBMITTED', submittedAt: now, updatedAt: now }, NOT_AUDITED))
    let loanId = options.id
    const ids = (): string => {
      const id = loanId ?? freshId()
      loanId = undefined
      return id
    }
    const booked = bookLoan(submitted, { next: ids }, now)
    const loan = { ...booked.loan, status: options.status ?? booked.loan.status }
    const approved: LoanApplication = {
      ...submitted,
      status: 'APPROVED',
      decision: { decision: 'APPROVED', reason: null, decidedBy: 'internal', decidedAt: now },
      loanId: loan.id,
      updatedAt: now,
    }
    const result = { ...booked, loan }
    await right(applications.saveApproved(approved, result, applicationApprovedEvent(freshId(), OPERATOR_CONTEXT, approved, loan, now)))
    return result
  }

const firstPage = (limit: number): PageRequest => ({ limit, after: O.none })
const withoutSequence = <A extends { readonly sequence: number }>(rows: readonly A[]): Omit<A, 'sequence'>[] =>
  rows.map(({ sequence: _sequence, ...rest }) => rest)
const increasing = (rows: readonly { readonly sequence: number }[]): boolean => rows.every((r, i) => i === 0 || r.sequence > rows[i - 1]!.sequence)
const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms)

/** A bank account of `loanId` (payments reference a stored method). */
export const bankAccountOf = (loanId: LoanId, now: Date, isDefault = true): PaymentMethod => ({
  id: freshId(),
  loanId,
  type: 'bank_account',
  nickname: 'Operating account',
  isDefault,
  status: 'active',
  token: `tok_${freshId().replace(/-/g, '')}`,
  last4: '6789',
  accountHolderName: 'Acme Widgets LLC',
  accountType: 'checking',
  brand: null,
  expMonth: null,
  expYear: null,
  createdAt: now,
  updatedAt: now,
})

/** What `change` hands its callback for a just-booked loan. */
const bookedLocked = (booked: BookedLoan): LockedLoan => ({ loan: booked.loan, installments: booked.installments, latest: booked.balance })

/** The locked loan after `posting` is written on `locked`. */
const afterPosting = (locked: LockedLoan, posting: Posting): LockedLoan => {
  return {
    loan: {
      ...locked.loan,
      ...(posting.loanStatus === undefined ? {} : { status: posting.loanStatus }),
      ...(posting.oldestUnpaidDueDate === undefined ? {} : { oldestUnpaidDueDate: posting.oldestUnpaidDueDate }),
      ...(posting.chargedOffOn === undefined ? {} : { chargedOffOn: posting.chargedOffOn }),
      ...(posting.checkpoint === undefined ? {} : { checkpoint: posting.checkpoint }),
    },
    installments: posting.installments,
    latest: posting.balance ?? locked.latest,
  }
}

/** A successful payment of `amount` on `now`'s date, as the payment use case posts it. */
const paymentPosting = (
  locked: LockedLoan,
  amount: number,
  now: Date,
  methodId: PaymentMethodId,
  clientId: ClientId,
  idempotencyKey: string = freshId(),
): { readonly state: LockedLoan; readonly payment: Payment; readonly posting: Posting } => {
  const today = utcDate(now)
  const base = { id: freshId(), loanId: locked.loan.id, clientId, idempotencyKey, paymentMethodId: methodId, amount, currency: locked.loan.currency, effectiveDate: today, createdAt: now }
  const { posting, change } = postEvent(locked, null, { type: 'PAYMENT', payment: settled(base) }, today, { ids: freshId, now })
  const { allocation, perInstallment, transactionId } = change.allocation!
  const payment: Payment = { ...base, status: 'SUCCEEDED', failureCode: null, allocation, perInstallment, transactionId }
  const full: Posting = { ...posting, payments: [payment, ...posting.payments], audit: NOT_AUDITED }
  return { state: afterPosting(locked, full), payment, posting: full }
}

/** Interest accrual alone as of `now`'s date, as the daily job posts it. */
const accrualPosting = (locked: LockedLoan, now: Date): { readonly state: LockedLoan; readonly posting: Posting } => {
  const { posting } = postEvent(locked, null, { type: 'TIME' }, utcDate(now), { ids: freshId, now })
  if (posting.transactions.length === 0) throw new Error('accrualPosting: nothing to accrue')
  return { state: afterPosting(locked, posting), posting }
}

/** The reversal of `payment` on `now`'s date, as the reversal use case posts it (`payments`: the loan's successful ones). */
const reversalPosting = (
  locked: LockedLoan,
  payment: Payment,
  payments: readonly Payment[],
  now: Date,
): { readonly state: LockedLoan; readonly payment: Payment; readonly posting: Posting } => {
  const { posting, change } = postEvent(locked, payments, { type: 'REVERSAL', payment }, utcDate(now), { ids: freshId, now })
  const reversed: Payment = { ...payment, status: 'REVERSED' }
  const reversal = change.transactions.find((t) => t.type === 'REVERSAL')!
  const full: Posting = {
    ...posting,
    payments: [reversed, ...posting.payments],
    audit: paymentReversedEvent(freshId(), OPERATOR_CONTEXT, reversed, locked.loan, reversal.id, null, now),
  }
  return { state: afterPosting(locked, full), payment: reversed, posting: full }
}

/** Runs `change` with a callback that records what it was handed and returns `posting` with `result`. */
const post = async <A>(
  loans: LoanRepository,
  loanId: LoanId,
  posting: (locked: LockedLoan) => Posting,
  result: A,
): Promise<{ readonly handed: O.Option<LockedLoan>; readonly result: A }> => {
  let handed: O.Option<LockedLoan> = O.none
  const returned = await right(
    loans.change({ loanId }, (loan) => {
      handed = loan
      return O.isNone(loan) ? TE.left(notFound('loan')) : TE.right({ posting: posting(loan.value), result })
    }),
  )
  return { handed, result: returned }
}

/**
 * The behaviour every `LoanRepository` must have in servicing: reads of loans, schedules,
 * ledgers and snapshots; `change` (locked, all or nothing, serialised per loan); payments,
 * collateral and documents. States are built by the domain's own servicing functions.
 */
export const loanServicingContract = (impl: Implementation<LoanServicingFixtures>): void => {
  describe(`LoanRepository servicing contract: ${impl.name}`, () => {
    let loans: LoanRepository
    let methods: PaymentMethodRepository
    let borrower: () => Promise<LoanBorrower>
    let bookedLoan: (options?: LoanToBook) => Promise<BookedLoan>
    before(async () => {
      ;({ loans, methods, borrower, bookedLoan } = await impl.make())
    })

    /** A loan and the API client of its borrower (payments reference the client). */
    const ownLoan = async (): Promise<{ readonly booked: BookedLoan; readonly clientId: ClientId }> => {
      const owner = await borrower()
      return { booked: await bookedLoan({ borrower: owner }), clientId: owner.clientId }
    }

    /** What a read of one of a party's loans found; the loan must be found (the party's). */
    const ofOwn = async <A>(read: OfPartyLoan<A>): Promise<A> => {
      const found = await right(read)
      if (O.isNone(found)) return expect.fail("the party's loan was not found")
      return found.value
    }

    /** The reads of `loan` by its own party, which must find it. */
    const readsOf = (loan: BookedLoan['loan']) => ({
      servicing: () => ofOwn(loans.servicing(loan.partyId, loan.id)),
      ledger: async (filter: TransactionFilter, page: PageRequest) => (await ofOwn(loans.listTransactions(loan.partyId, loan.id, filter, page))).transactions,
      balances: async (page: PageRequest) => (await ofOwn(loans.listBalances(loan.partyId, loan.id, page))).balances,
      latest: () => ofOwn(loans.latestBalanceForParty(loan.partyId, loan.id)),
      collateral: (page: PageRequest) => ofOwn(loans.listCollateral(loan.partyId, loan.id, page)),
      documents: (page: PageRequest) => ofOwn(loans.listDocuments(loan.partyId, loan.id, page)),
    })

    /** Each read of one of a party's loans finds none for another party's loan and for an unknown one. */
    const expectOnlyForItsParty = async (loan: BookedLoan['loan'], read: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<unknown>) => {
      expect(O.isSome(await right(read(loan.partyId, loan.id)))).to.equal(true)
      expect(await right(read((await borrower()).partyId, loan.id))).to.deep.equal(O.none)
      expect(await right(read(loan.partyId, freshId()))).to.deep.equal(O.none)
    }

    /** A stored default bank account of `loanId`. */
    const method = async (loanId: LoanId, now = BOOKED_AT): Promise<PaymentMethod> => {
      const m = bankAccountOf(loanId, now)
      await right(methods.insert(m))
      return m
    }

    describe('reading loans', () => {
      it('finds a loan for its own party only', async () => {
        const booked = await bookedLoan()
        const other = await borrower()
        expect(await right(loans.findForParty(booked.loan.partyId, booked.loan.id))).to.deep.equal(O.some(booked.loan))
        expect(await right(loans.findForParty(other.partyId, booked.loan.id))).to.deep.equal(O.none)
        expect(await right(loans.findForParty(booked.loan.partyId, freshId()))).to.deep.equal(O.none)
      })

      it("lists a party's loans in (createdAt, id) order, limit + 1 rows, page after page", async () => {
        const owner = await borrower()
        const [low, high] = [freshId(), freshId()].sort() as [TestId, TestId]
        const first = await bookedLoan({ borrower: owner, at: at('2026-02-01T08:00:00.000Z') })
        const tiedHigh = await bookedLoan({ borrower: owner, at: at('2026-02-01T08:00:00.001Z'), id: high })
        const tiedLow = await bookedLoan({ borrower: owner, at: at('2026-02-01T08:00:00.001Z'), id: low, status: 'PAID_OFF' })
        await bookedLoan({ at: at('2026-02-01T08:00:00.000Z') })
        // Listed without their checkpoints (`LoanSummary`), every other field as booked.
        const all = [first.loan, tiedLow.loan, tiedHigh.loan].map(loanSummary)
        expect(first.loan.checkpoint).to.not.equal(null)
        expect(await right(loans.listForParty(owner.partyId, { now: BOOKED_AT }, firstPage(10)))).to.deep.equal(all)
        expect(await right(loans.listForParty(owner.partyId, { now: BOOKED_AT }, firstPage(1)))).to.deep.equal(all.slice(0, 2))
        const after = O.some({ createdAt: tiedLow.loan.createdAt, id: tiedLow.loan.id })
        expect(await right(loans.listForParty(owner.partyId, { now: BOOKED_AT }, { limit: 1, after }))).to.deep.equal([loanSummary(tiedHigh.loan)])
        expect(await right(loans.listForParty((await borrower()).partyId, { now: BOOKED_AT }, firstPage(10)))).to.deep.equal([])
      })

      it("reads what servicing derives from (the loan with its checkpoint, its latest snapshot), of the party's loan only", async () => {
        const booked = await bookedLoan()
        expect(booked.installments.map((i) => i.number)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        const { latest, ...rest } = await ofOwn(loans.servicing(booked.loan.partyId, booked.loan.id))
        expect({ ...rest, latest: withoutSequence([latest])[0] }).to.deep.equal({ loan: booked.loan, latest: booked.balance })
        await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.servicing(partyId, loanId))
      })

      it("reads each list of a loan as the party's only: another party's loan and an unknown one are none", async () => {
        const booked = await bookedLoan()
        await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.listTransactions(partyId, loanId, {}, firstPage(10)))
        await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.listBalances(partyId, loanId, firstPage(10)))
        await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.latestBalanceForParty(partyId, loanId))
        await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.listCollateral(partyId, loanId, firstPage(10)))
        await expectOnlyForItsParty(booked.loan, (partyId, loanId) => loans.listDocuments(partyId, loanId, firstPage(10)))
      })

      it('finds a loan of the party whose list is empty: an empty list, not none', async () => {
        const booked = await bookedLoan()
        const { partyId, id } = booked.loan
        expect(await ofOwn(loans.listCollateral(partyId, id, firstPage(10)))).to.deep.equal([])
        expect(await ofOwn(loans.listTransactions(partyId, id, { type: 'PAYMENT' }, firstPage(10)))).to.deep.equal({ currency: booked.loan.currency, transactions: [] })
        const { currency, balances: [newest] } = await ofOwn(loans.listBalances(partyId, id, firstPage(10)))
        expect(currency).to.equal(booked.loan.currency)
        expect(await ofOwn(loans.listBalances(partyId, id, { limit: 10, after: O.some(sequencePosition(newest!)) }))).to.deep.equal({ currency, balances: [] })
      })

      it("filters a party's loans by delinquency bucket on each loan's today", async () => {
        const owner = await borrower()
        // Booked 2026-03-10 (UTC): the first installment is due 2026-04-10 and nothing is paid.
        const booked = await bookedLoan({ borrower: owner })
        const bucketAt = async (iso: string) => {
          const found: string[] = []
          for (const delinquency of ['CURRENT', 'DPD_1_30', 'DPD_31_60', 'DPD_61_90', 'DPD_90_PLUS'] as const) {
            const rows = await right(loans.listForParty(owner.partyId, { delinquency, now: at(iso) }, firstPage(10)))
            if (rows.some((l) => l.id === booked.loan.id)) found.push(delinquency)
          }
          return found
        }
        expect(await bucketAt('2026-04-10T23:59:59.999Z')).to.deep.equal(['CURRENT'])
        expect(await bucketAt('2026-04-11T00:00:00.000Z')).to.deep.equal(['DPD_1_30'])
        expect(await bucketAt('2026-05-10T12:00:00.000Z')).to.deep.equal(['DPD_1_30'])
        expect(await bucketAt('2026-05-11T12:00:00.000Z')).to.deep.equal(['DPD_31_60'])
        expect(await bucketAt('2026-07-09T12:00:00.000Z')).to.deep.equal(['DPD_61_90'])
        expect(await bucketAt('2026-07-10T12:00:00.000Z')).to.deep.equal(['DPD_90_PLUS'])
      })

      it("lists active loans' ids in id order, after an id, at most limit", async () => {
        const prefix = freshId().slice(0, -3)
        const [one, two, three, four] = ['001', '002', '003', '004'].map((n) => testId(`${prefix}${n}`)) as [TestId, TestId, TestId, TestId]
        await bookedLoan({ id: three })
        await bookedLoan({ id: two, status: 'PAID_OFF' })
        await bookedLoan({ id: one })
        await bookedLoan({ id: four, status: 'CHARGED_OFF' })
        expect(await right(loans.activeLoanIds(testId(`${prefix}000`), 2))).to.deep.equal([one, three])
        expect(await right(loans.activeLoanIds(one, 1))).to.deep.equal([three])
        const every = await right(loans.activeLoanIds(null, 1_000_000))
        expect(every.filter((id) => id.startsWith(prefix))).to.deep.equal([one, three])
        expect(every).to.deep.equal([...every].sort())
      })
    })

    describe('the ledger and the snapshots', () => {
      /** A loan with a payment on its first due date and an accrual on its second. */
      const serviced = async () => {
        const { booked, clientId: owner } = await ownLoan()
        const m = await method(booked.loan.id)
        const firstDue = at(`${booked.loan.firstDueDate}T12:00:00.000Z`)
        const paid = paymentPosting(bookedLocked(booked), booked.loan.paymentAmount, firstDue, m.id, owner)
        await post(loans, booked.loan.id, () => paid.posting, null)
        const secondDue = at(`${booked.installments[1]!.dueDate}T00:05:00.000Z`)
        const accrued = accrualPosting(paid.state, secondDue)
        await post(loans, booked.loan.id, () => accrued.posting, null)
        return { booked, paid, accrued }
      }

      it('lists the ledger in (createdAt, sequence) order, by type and effective dates (inclusive), page after page', async () => {
        const { booked, paid, accrued } = await serviced()
        const id = booked.loan.id
        const ledgerOf = readsOf(booked.loan).ledger
        const ledger = [...booked.transactions, ...paid.posting.transactions, ...accrued.posting.transactions]
        expect(ledger.map((t) => t.type)).to.deep.equal(['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD', 'INTEREST_ACCRUAL', 'PAYMENT', 'INTEREST_ACCRUAL'])
        const listed = await ofOwn(loans.listTransactions(booked.loan.partyId, id, {}, firstPage(10)))
        expect(listed.currency).to.equal(booked.loan.currency)
        const all = listed.transactions
        expect(withoutSequence(all)).to.deep.equal(ledger)
        expect(increasing(all)).to.equal(true)

        const accruals = await ledgerOf({ type: 'INTEREST_ACCRUAL' }, firstPage(10))
        expect(accruals).to.deep.equal([all[3], all[5]])
        const onFirstDue = { from: booked.loan.firstDueDate, to: booked.loan.firstDueDate }
        expect(await ledgerOf(onFirstDue, firstPage(10))).to.deep.equal([all[3], all[4]])
        expect(await ledgerOf({ from: booked.installments[1]!.dueDate }, firstPage(10))).to.deep.equal([all[5]])
        expect(await ledgerOf({ to: booked.loan.startDate }, firstPage(10))).to.deep.equal(all.slice(0, 3))
        expect(await ledgerOf({ type: 'PAYMENT', to: booked.loan.startDate }, firstPage(10))).to.deep.equal([])

        expect(await ledgerOf({}, firstPage(1))).to.deep.equal(all.slice(0, 2))
        const afterFirst = O.some(sequencePosition(all[0]!))
        expect(await ledgerOf({}, { limit: 1, after: afterFirst })).to.deep.equal(all.slice(1, 3))
        const afterFee = O.some(sequencePosition(all[2]!))
        expect(await ledgerOf({}, { limit: 5, after: afterFee })).to.deep.equal(all.slice(3))
        const afterAccrual = O.some(sequencePosition(all[3]!))
        expect(await ledgerOf({ type: 'INTEREST_ACCRUAL' }, { limit: 5, after: afterAccrual })).to.deep.equal([all[5]])
      })

      it('lists the snapshots in (createdAt, sequence) order, page after page; the latest is the last written', async () => {
        const { booked, paid, accrued } = await serviced()
        const { balances: balancesOf, latest } = readsOf(booked.loan)
        const balances = await balancesOf(firstPage(10))
        expect(withoutSequence(balances)).to.deep.equal([booked.balance, paid.posting.balance, accrued.posting.balance])
        expect(increasing(balances)).to.equal(true)
        expect(await balancesOf(firstPage(1))).to.deep.equal(balances.slice(0, 2))
        expect(await balancesOf({ limit: 1, after: O.some(sequencePosition(balances[1]!)) })).to.deep.equal([balances[2]])
        expect(await latest()).to.deep.equal(balances[2])
      })

      it('takes the latest snapshot by sequence, not by time, and orders the lists by time', async () => {
        const booked = await bookedLoan()
        const earlier = addMs(booked.loan.createdAt, -60_000)
        const accrued = accrualPosting(bookedLocked(booked), at(`${booked.loan.firstDueDate}T00:00:00.000Z`))
        const skewed: Posting = {
          ...accrued.posting,
          transactions: accrued.posting.transactions.map((t) => ({ ...t, createdAt: earlier })),
          balance: { ...accrued.posting.balance!, createdAt: earlier },
        }
        await post(loans, booked.loan.id, () => skewed, null)
        const balances = await readsOf(booked.loan).balances(firstPage(10))
        expect(withoutSequence(balances)).to.deep.equal([skewed.balance, booked.balance])
        expect(await right(loans.latestBalanceForParty(booked.loan.partyId, booked.loan.id))).to.deep.equal(O.some(balances[0]))
        const ledger = await readsOf(booked.loan).ledger({}, firstPage(10))
        expect(withoutSequence(ledger)).to.deep.equal([...skewed.transactions, ...booked.transactions])
        expect(await readsOf(booked.loan).ledger({}, { limit: 10, after: O.some(sequencePosition(ledger[0]!)) })).to.deep.equal(ledger.slice(1))
        const locked = await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED }), null)
        expect(locked.handed).to.deep.equal(O.some({ ...accrued.state, latest: skewed.balance! }))
      })
    })

    describe('change', () => {
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

        const next = await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED }), 'nothing')
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
        await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [failed], audit: NOT_AUDITED }), null)
        expect(await right(loans.payments.paymentById(failed.id))).to.deep.equal(O.some(failed))
        expect(await right(loans.payments.paymentByKey(clientId, 'declined-1'))).to.deep.equal(O.some(failed))
        expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
        expect(withoutSequence(await readsOf(booked.loan).balances(firstPage(10)))).to.deep.equal([booked.balance])
      })

      it("lists a loan's payments, whatever their status, in (createdAt, id) order, page after page, for its party only", async () => {
        const { booked, clientId } = await ownLoan()
        const m = await method(booked.loan.id)
        const paid = paymentPosting(bookedLocked(booked), 120_000, at(`${booked.loan.startDate}T09:00:00.000Z`), m.id, clientId)
        await post(loans, booked.loan.id, () => paid.posting, null)
        const declinedAt = at(`${booked.loan.startDate}T10:00:00.000Z`)
        const declined: Payment = { ...paid.payment, id: freshId(), idempotencyKey: freshId(), status: 'FAILED', failureCode: 'card_declined', allocation: null, perInstallment: [], transactionId: null, createdAt: declinedAt }
        await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [declined], audit: NOT_AUDITED }), null)
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
            posting: { transactions: [], installments: O.isSome(loan) ? loan.value.installments : [], balance: null, payments: [], loanStatus: 'PAID_OFF', audit: NOT_AUDITED },
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
          return TE.right({ posting: { transactions: [], installments: [], balance: null, payments: [], audit: NOT_AUDITED }, result: 'looked' })
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
            return TE.right({ posting: { transactions: [], installments: O.isSome(loan) ? loan.value.installments : [], balance: null, payments: [], audit: NOT_AUDITED }, result: 'looked' })
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
    })

    describe('collateral and documents', () => {
      it("lists a loan's collateral field for field in (createdAt, id) order, page after page", async () => {
        const booked = await bookedLoan()
        const other = await bookedLoan()
        const item = (loanId: LoanId, iso: string, type: CollateralItem['type'], valuation: number): CollateralItem => ({
          id: freshId(),
          loanId,
          type,
          description: `${type} pledged as security`,
          valuation,
          currency: 'USD',
          lienPosition: 1,
          createdAt: at(iso),
        })
        const [low, high] = [freshId(), freshId()].sort() as [TestId, TestId]
        const a = item(booked.loan.id, '2026-03-11T10:00:00.000Z', 'equipment', 4_500_000)
        const tiedHigh = { ...item(booked.loan.id, '2026-03-11T10:00:00.001Z', 'receivables', 800_000), id: high }
        const tiedLow = { ...item(booked.loan.id, '2026-03-11T10:00:00.001Z', 'real_estate', 35_000_000), id: low, lienPosition: 2 }
        for (const c of [tiedHigh, a, tiedLow, item(other.loan.id, '2026-03-11T09:00:00.000Z', 'cash', 100)]) await right(loans.addCollateral(c, collateralAddedEvent(freshId(), OPERATOR_CONTEXT, c, c.loanId === other.loan.id ? other.loan : booked.loan)))
        expect(await readsOf(booked.loan).collateral(firstPage(10))).to.deep.equal([a, tiedLow, tiedHigh])
        expect(await readsOf(booked.loan).collateral(firstPage(1))).to.deep.equal([a, tiedLow])
        expect(await readsOf(booked.loan).collateral({ limit: 5, after: O.some({ createdAt: tiedLow.createdAt, id: tiedLow.id }) })).to.deep.equal([tiedHigh])
      })

      it("lists a loan's documents, the booking's opening statement first, page after page", async () => {
        const booked = await bookedLoan()
        const other = await bookedLoan()
        const [opening] = booked.documents
        expect(booked.documents).to.have.length(1)
        const document = (loanId: LoanId, iso: string, type: LoanDocument['type']): LoanDocument => ({
          id: freshId(),
          loanId,
          type,
          periodStart: type === 'statement' ? '2026-03-10' : null,
          periodEnd: type === 'statement' ? '2026-04-09' : null,
          storageRef: `s3://lendgate-docs/${loanId}/${freshId()}.pdf`,
          fileName: type === 'statement' ? 'statement-2026-04.pdf' : null,
          contentType: type === 'statement' ? 'application/pdf' : null,
          createdAt: at(iso),
        })
        const notice = document(booked.loan.id, '2026-04-12T08:00:00.000Z', 'notice')
        const statement = document(booked.loan.id, '2026-04-10T08:00:00.000Z', 'statement')
        for (const d of [notice, statement, document(other.loan.id, '2026-04-10T08:00:00.000Z', 'other')]) await right(loans.addDocument(d, documentAttachedEvent(freshId(), OPERATOR_CONTEXT, d, d.loanId === other.loan.id ? other.loan : booked.loan)))
        expect(await readsOf(booked.loan).documents(firstPage(10))).to.deep.equal([opening, statement, notice])
        expect(await readsOf(booked.loan).documents(firstPage(1))).to.deep.equal([opening, statement])
        expect(await readsOf(booked.loan).documents({ limit: 1, after: O.some({ createdAt: statement.createdAt, id: statement.id }) })).to.deep.equal([notice])
      })
    })
  })
}
