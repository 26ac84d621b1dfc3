import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { invalidRequest } from '../../domain/foundations/errors.js'
import { collateralAddedEvent, documentAttachedEvent, OPERATOR_CONTEXT } from '../../domain/audit/audit-event.js'
import type { CollateralItem } from '../../domain/loans/collateral.js'
import type { LoanId } from '../../domain/foundations/ids.js'
import type { LoanDocument } from '../../domain/loans/loan-document.js'
import { loanSummary } from '../../domain/loans/loan.js'
import type { BookTime } from '../../domain/loans/book-time.js'
import { decodeLoanPage, loanPageOf, oldestFirst, type LoanSort } from '../../domain/loans/loan-order.js'
import type { DelinquencyCount, LoanFilter, LoanRepository } from '../../ports/loan-repository.js'
import { sequencePosition, type PageRequest } from '../../domain/foundations/pagination.js'
import { testId, type TestId } from '../test-ids.js'
import { BOOKED_AT } from './loan-servicing-fixtures.js'
import { firstPage, withoutSequence, type ServicingSuite } from './loan-servicing-suite.js'
import { at, freshId, right } from './run.js'

/**
 * What `after` counts beyond `before` (the book is shared with other tests): each group's loans
 * and sums less the same group's before, the groups that changed, by currency and days.
 */
const countsAdded = (before: readonly DelinquencyCount[], after: readonly DelinquencyCount[]): DelinquencyCount[] => {
  const key = (c: DelinquencyCount): string => `${c.currency} ${c.daysPastDue}`
  const earlier = new Map(before.map((c) => [key(c), c]))
  return after
    .map((c) => {
      const was = earlier.get(key(c))
      return was === undefined
        ? c
        : { ...c, loans: c.loans - was.loans, principalOutstanding: c.principalOutstanding - was.principalOutstanding, pastDueAmount: c.pastDueAmount - was.pastDueAmount }
    })
    .filter((c) => c.loans !== 0)
    .sort((x, y) => (x.currency === y.currency ? x.daysPastDue - y.daysPastDue : x.currency < y.currency ? -1 : 1))
}

/** The servicing contract's reads: a party's loans (found, listed, by delinquency), active loans' ids, collateral and documents. */
export const loanReadsContract = (suite: ServicingSuite): void => {
  const { borrower, bookedLoan, ofOwn, readsOf, expectOnlyForItsParty } = suite
  let loans: LoanRepository
  before(() => {
    loans = suite.loans()
  })

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
      expect(await right(loans.list({ of: 'party', partyId: owner.partyId, now: BOOKED_AT }, oldestFirst(firstPage(10))))).to.deep.equal(all)
      expect(await right(loans.list({ of: 'party', partyId: owner.partyId, now: BOOKED_AT }, oldestFirst(firstPage(1))))).to.deep.equal(all.slice(0, 2))
      const after = O.some({ createdAt: tiedLow.loan.createdAt, id: tiedLow.loan.id })
      expect(await right(loans.list({ of: 'party', partyId: owner.partyId, now: BOOKED_AT }, oldestFirst({ limit: 1, after })))).to.deep.equal([loanSummary(tiedHigh.loan)])
      expect(await right(loans.list({ of: 'party', partyId: (await borrower()).partyId, now: BOOKED_AT }, oldestFirst(firstPage(10))))).to.deep.equal([])
    })

    it('finds any loan by id whoever its party is (an operator read), an unknown id none', async () => {
      const booked = await bookedLoan()
      expect(await right(loans.find(booked.loan.id))).to.deep.equal(O.some(booked.loan))
      expect(await right(loans.find(freshId()))).to.deep.equal(O.none)
    })

    /** The ids of `ours` on every page of the list, in the list's order. */
    const listed = async (filter: LoanFilter, ours: ReadonlySet<LoanId>): Promise<LoanId[]> => {
      const found: LoanId[] = []
      let after: PageRequest['after'] = O.none
      for (;;) {
        const rows = await right(loans.list(filter, oldestFirst({ limit: 100, after })))
        found.push(...rows.slice(0, 100).filter((l) => ours.has(l.id)).map((l) => l.id))
        if (rows.length <= 100) return found
        const last = rows[99]!
        after = O.some({ createdAt: last.createdAt, id: last.id })
      }
    }
    /** Every party's loans judged at `iso`, no party on a time of its own. */
    const book = (iso: string): BookTime => ({ now: at(iso), partyTimes: [] })

    it("lists every party's loans without a party, in the same order and by the same buckets", async () => {
      const late = await bookedLoan({ borrower: await borrower(), at: at('2026-03-10T00:00:00.002Z') })
      const early = await bookedLoan({ borrower: await borrower(), at: at('2026-03-10T00:00:00.001Z') })
      const ours = new Set([late.loan.id, early.loan.id])
      expect(await listed({ of: 'book', time: book('2026-03-10T09:30:00.000Z') }, ours)).to.deep.equal([early.loan.id, late.loan.id])
      // Nothing is paid: both fall past due after their first due dates, one party's filter or none.
      const april20 = book('2026-04-20T12:00:00.000Z')
      expect(await listed({ of: 'book', time: april20, delinquency: 'DPD_1_30' }, ours)).to.deep.equal([early.loan.id, late.loan.id])
      expect(await listed({ of: 'book', time: april20, delinquency: 'CURRENT' }, ours)).to.deep.equal([])
      expect(await listed({ of: 'book', time: april20, partyId: late.loan.partyId, delinquency: 'DPD_1_30' }, ours)).to.deep.equal([late.loan.id])
    })

    it("judges each party's loans at its party's time, the rest at the book's now", async () => {
      const onClock = await bookedLoan()
      const onCalendar = await bookedLoan()
      const ours = new Set([onClock.loan.id, onCalendar.loan.id])
      // The book's now is before the first due date (2026-04-10); the clock's party lives 40 days past it.
      const time: BookTime = { now: at('2026-04-01T12:00:00.000Z'), partyTimes: [{ partyId: onClock.loan.partyId, now: at('2026-05-20T12:00:00.000Z') }] }
      expect(await listed({ of: 'book', time, delinquency: 'DPD_31_60' }, ours)).to.deep.equal([onClock.loan.id])
      expect(await listed({ of: 'book', time, delinquency: 'CURRENT' }, ours)).to.deep.equal([onCalendar.loan.id])
    })

    it("filters the book by status, and keeps paid-off and charged-off loans out of the delinquency queue", async () => {
      const owner = await borrower()
      const active = await bookedLoan({ borrower: owner })
      const paidOff = await bookedLoan({ borrower: owner, status: 'PAID_OFF' })
      const chargedOff = await bookedLoan({ borrower: owner, status: 'CHARGED_OFF' })
      const ours = new Set([active.loan.id, paidOff.loan.id, chargedOff.loan.id])
      const may = book('2026-05-20T12:00:00.000Z')
      expect(await listed({ of: 'book', time: may, status: 'CHARGED_OFF' }, ours)).to.deep.equal([chargedOff.loan.id])
      expect(await listed({ of: 'book', time: may, status: 'ACTIVE' }, ours)).to.deep.equal([active.loan.id])
      expect(await listed({ of: 'book', time: may, delinquency: 'DPD_31_60' }, ours)).to.deep.equal([active.loan.id])
      expect(await listed({ of: 'book', time: may, status: 'CHARGED_OFF', delinquency: 'DPD_31_60' }, ours)).to.deep.equal([])
      // A party's own list shows the bucket its loan view shows, whatever the loan's status: a charged-off loan's too.
      expect(await listed({ of: 'party', partyId: owner.partyId, now: may.now, delinquency: 'DPD_31_60' }, ours)).to.have.members([active.loan.id, chargedOff.loan.id])
      expect(await listed({ of: 'party', partyId: owner.partyId, now: may.now, delinquency: 'CURRENT' }, ours)).to.deep.equal([paidOff.loan.id])
    })

    it('pages the book in each sort by its cursors: oldest first, oldest unpaid installment first (owing nothing last), largest first', async () => {
      const owner = await borrower()
      const { loan: early } = await bookedLoan({ borrower: owner, at: at('2026-02-10T09:00:00.000Z'), amount: 3_000_000 })
      const { loan: low } = await bookedLoan({ borrower: owner, at: at('2026-03-10T09:00:00.001Z'), amount: 1_000_000 })
      const { loan: high } = await bookedLoan({ borrower: owner, at: at('2026-03-10T09:00:00.002Z'), amount: 3_000_000 })
      const { loan: paidOff } = await bookedLoan({ borrower: owner, at: at('2026-03-10T09:00:00.003Z'), status: 'PAID_OFF' })
      const filter: LoanFilter = { of: 'book', time: book('2026-05-20T12:00:00.000Z'), partyId: owner.partyId }
      /** Every loan of the list in `sort`, a page of one at a time, each page reached by the previous page's cursor. */
      const inOrder = async (sort: LoanSort): Promise<LoanId[]> => {
        const found: LoanId[] = []
        let cursor: string | undefined
        for (let n = 0; n < 10; n++) {
          const page = await right(TE.fromEither(decodeLoanPage(sort, 1, cursor)))
          const next = loanPageOf(await right(loans.list(filter, page)), page, (l) => l)
          found.push(...next.items.map((l) => l.id))
          if (next.nextCursor === null) return found
          cursor = next.nextCursor
        }
        return expect.fail(`more pages than loans in ${sort}`)
      }
      const byIdAscending = (a: { id: string }, b: { id: string }) => (a.id < b.id ? [a.id, b.id] : [b.id, a.id])
      expect(await inOrder('created_at')).to.deep.equal([early.id, low.id, high.id, paidOff.id])
      // Due 2026-03-10, then two due 2026-04-10 (by id), then the paid-off loan that owes nothing.
      expect(await inOrder('oldest_unpaid_due_date')).to.deep.equal([early.id, ...byIdAscending(low, high), paidOff.id])
      // 3,000,000 twice (by id from the last), 1,200,000, 1,000,000.
      expect(await inOrder('-principal')).to.deep.equal([...byIdAscending(early, high).reverse(), paidOff.id, low.id])
      // A cursor is its order's: another order's is refused.
      const first = loanPageOf(await right(loans.list(filter, await right(TE.fromEither(decodeLoanPage('-principal', 1, undefined))))), { sort: '-principal', limit: 1, after: O.none }, (l) => l)
      expect(decodeLoanPage('oldest_unpaid_due_date', 1, first.nextCursor!)).to.deep.equal(E.left(invalidRequest('cursor is not a cursor returned by this list in this sort', 'cursor')))
      expect(decodeLoanPage('created_at', 1, first.nextCursor!)).to.deep.equal(E.left(invalidRequest('cursor is not a cursor returned by this list', 'cursor')))
    })

    it("counts the book's active loans by currency and days past due, each at its party's time, with their latest snapshots' sums", async () => {
      const time: BookTime = { now: at('2026-04-20T12:00:00.000Z'), partyTimes: [] }
      const before = await right(loans.delinquencyCounts(time))
      const owner = await borrower()
      const [a, b] = [await bookedLoan({ borrower: owner }), await bookedLoan({ borrower: owner })]
      await bookedLoan({ borrower: owner, status: 'PAID_OFF' })
      await bookedLoan({ borrower: owner, status: 'CHARGED_OFF' })
      const onClock = await bookedLoan()
      const withClock: BookTime = { ...time, partyTimes: [{ partyId: onClock.loan.partyId, now: at('2026-05-20T12:00:00.000Z') }] }
      const added = countsAdded(before, await right(loans.delinquencyCounts(withClock)))
      const { currency } = a.loan
      // Due 2026-04-10, unpaid: 10 days past due on 2026-04-20, and the clock's party's 40 on 2026-05-20.
      expect(added).to.deep.equal([
        { currency, daysPastDue: 10, loans: 2, principalOutstanding: a.balance.principalOutstanding + b.balance.principalOutstanding, pastDueAmount: a.balance.pastDueAmount + b.balance.pastDueAmount },
        { currency, daysPastDue: 40, loans: 1, principalOutstanding: onClock.balance.principalOutstanding, pastDueAmount: onClock.balance.pastDueAmount },
      ])
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
          const rows = await right(loans.list({ of: 'party', partyId: owner.partyId, delinquency, now: at(iso) }, oldestFirst(firstPage(10))))
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
}
