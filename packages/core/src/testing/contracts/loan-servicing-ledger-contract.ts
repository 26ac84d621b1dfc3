import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { sequencePosition } from '../../domain/foundations/pagination.js'
import type { LoanRepository, Posting } from '../../ports/loan-repository.js'
import { accrualPosting, bookedLocked, paymentPosting, post } from './loan-servicing-postings.js'
import { firstPage, withoutSequence, type ServicingSuite } from './loan-servicing-suite.js'
import { at, right } from './run.js'

const increasing = (rows: readonly { readonly sequence: number }[]): boolean => rows.every((r, i) => i === 0 || r.sequence > rows[i - 1]!.sequence)
const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms)

/** The servicing contract's ledger and balance snapshots: their order, filters and pages, and which snapshot is the latest. */
export const loanLedgerContract = (suite: ServicingSuite): void => {
  const { bookedLoan, ownLoan, ofOwn, readsOf, method } = suite
  let loans: LoanRepository
  before(() => {
    loans = suite.loans()
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
      const locked = await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments: [], audit: NOT_AUDITED, events: [] }), null)
      expect(locked.handed).to.deep.equal(O.some({ ...accrued.state, latest: skewed.balance! }))
    })
  })
}
