import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { PageRequest } from '../../domain/foundations/pagination.js'
import type { BookedLoan } from '../../domain/loans/loan.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { LoanRepository, OfPartyLoan, TransactionFilter } from '../../ports/loan-repository.js'
import type { ClientId, LoanId, PartyId } from '../../domain/foundations/ids.js'
import { BOOKED_AT, bankAccountOf, type LoanBorrower, type LoanServicingFixtures, type LoanToBook } from './loan-servicing-fixtures.js'
import { freshId, right } from './run.js'

/** The first page of a list, at most `limit` (the repositories answer limit + 1 rows). */
export const firstPage = (limit: number): PageRequest => ({ limit, after: O.none })
/** Listed rows without their store-assigned `sequence`, to compare with what was written. */
export const withoutSequence = <A extends { readonly sequence: number }>(rows: readonly A[]): Omit<A, 'sequence'>[] =>
  rows.map(({ sequence: _sequence, ...rest }) => rest)

/** What the parts of the servicing contract work with: the run's fixtures, and setups and reads built on them. */
export type ServicingSuite = ReturnType<typeof servicingSuite>

/**
 * The servicing suite over the run's fixtures. The parts register their cases before `before`
 * makes the fixtures, so every member reads them when it is called: `loans()`, not `loans`.
 */
export const servicingSuite = (fixtures: () => LoanServicingFixtures) => {
  const loans = (): LoanRepository => fixtures().loans
  const borrower = (): Promise<LoanBorrower> => fixtures().borrower()
  const bookedLoan = (options?: LoanToBook): Promise<BookedLoan> => fixtures().bookedLoan(options)

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
    servicing: () => ofOwn(loans().servicing(loan.partyId, loan.id)),
    ledger: async (filter: TransactionFilter, page: PageRequest) => (await ofOwn(loans().listTransactions(loan.partyId, loan.id, filter, page))).transactions,
    balances: async (page: PageRequest) => (await ofOwn(loans().listBalances(loan.partyId, loan.id, page))).balances,
    latest: () => ofOwn(loans().latestBalanceForParty(loan.partyId, loan.id)),
    collateral: (page: PageRequest) => ofOwn(loans().listCollateral(loan.partyId, loan.id, page)),
    documents: (page: PageRequest) => ofOwn(loans().listDocuments(loan.partyId, loan.id, page)),
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
    await right(fixtures().methods.insert(m, null))
    return m
  }

  return { loans, borrower, bookedLoan, ownLoan, ofOwn, readsOf, expectOnlyForItsParty, method }
}
