import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { BookedLoan } from '../../domain/loans/loan.js'
import type { PageRequest } from '../../domain/foundations/pagination.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import { at, freshId, right, type Implementation } from './run.js'
import { bankAccountOf } from './loan-servicing-fixtures.js'
import type { LoanId, PartyId } from '../../domain/foundations/ids.js'
import { type TestId } from '../test-ids.js'

const firstPage = (limit: number): PageRequest => ({ limit, after: O.none })

const bankAccount = (loanId: LoanId, iso: string, isDefault: boolean): PaymentMethod => bankAccountOf(loanId, at(iso), isDefault)

const card = (loanId: LoanId, iso: string, isDefault: boolean): PaymentMethod => ({
  id: freshId(),
  loanId,
  type: 'card',
  nickname: null,
  isDefault,
  status: 'active',
  token: `card_vault_${freshId().replace(/-/g, '')}`,
  last4: '4242',
  accountHolderName: null,
  accountType: null,
  brand: 'visa',
  expMonth: 9,
  expYear: 2031,
  createdAt: at(iso),
  updatedAt: at(iso),
})

/**
 * The behaviour every `PaymentMethodRepository` must have: field-for-field storage per loan,
 * pagination, counts, and one default per loan, even under concurrent changes. `bookedLoan`
 * returns a stored loan (methods reference their loan).
 */
export const paymentMethodRepositoryContract = (
  impl: Implementation<{ readonly repo: PaymentMethodRepository; readonly bookedLoan: () => Promise<BookedLoan> }>,
): void => {
  describe(`PaymentMethodRepository contract: ${impl.name}`, () => {
    let repo: PaymentMethodRepository
    let loan: () => Promise<LoanId>
    /** The party of each loan `loan()` booked. */
    const partyOf = new Map<LoanId, PartyId>()
    before(async () => {
      const made = await impl.make()
      repo = made.repo
      loan = async () => {
        const booked = (await made.bookedLoan()).loan
        partyOf.set(booked.id, booked.partyId)
        return booked.id
      }
    })

    /** A page of the loan's methods, read as its own party's. */
    const listPage = async (loanId: LoanId, page: PageRequest): Promise<readonly PaymentMethod[]> => {
      const found = await right(repo.listForPartyLoan(partyOf.get(loanId) ?? freshId(), loanId, page))
      if (O.isNone(found)) throw new Error(`no methods list for loan ${loanId} of its own party`)
      return found.value
    }
    const list = (loanId: LoanId) => listPage(loanId, firstPage(100))

    it('stores a bank account and a card field for field, found through their own loan only', async () => {
      const loanId = await loan()
      const account = bankAccount(loanId, '2026-03-10T10:00:00.000Z', true)
      const visa = card(loanId, '2026-03-10T10:00:01.000Z', false)
      await right(repo.insert(account, null))
      await right(repo.insert(visa, null))
      expect(await right(repo.findForLoan(loanId, account.id))).to.deep.equal(O.some(account))
      expect(await right(repo.findForLoan(loanId, visa.id))).to.deep.equal(O.some(visa))
      expect(await right(repo.findForLoan(await loan(), account.id))).to.deep.equal(O.none)
      expect(await right(repo.findForLoan(loanId, freshId()))).to.deep.equal(O.none)
    })

    it("keeps a bank account's sealed numbers apart from its row, found by the method's id only", async () => {
      const loanId = await loan()
      const account = bankAccount(loanId, '2026-03-10T10:00:00.000Z', true)
      const unsealed = bankAccount(loanId, '2026-03-10T10:00:01.000Z', false)
      await right(repo.insert(account, 'sealed-numbers-of-the-account'))
      await right(repo.insert(unsealed, null))
      expect(await right(repo.sealedAccount(account.id))).to.deep.equal(O.some('sealed-numbers-of-the-account'))
      expect(await right(repo.sealedAccount(unsealed.id))).to.deep.equal(O.none)
      expect(await right(repo.sealedAccount(freshId()))).to.deep.equal(O.none)
      expect(await right(repo.findForLoan(loanId, account.id))).to.deep.equal(O.some(account))
      // Updating the method (its default flag, its nickname) leaves its sealed numbers alone.
      await right(repo.update({ ...account, nickname: 'Operating account', updatedAt: at('2026-03-11T10:00:00.000Z') }))
      expect(await right(repo.sealedAccount(account.id))).to.deep.equal(O.some('sealed-numbers-of-the-account'))
    })

    it("lists a loan's methods in (createdAt, id) order, limit + 1 rows, page after page, and counts them", async () => {
      const loanId = await loan()
      const other = await loan()
      const [low, high] = [freshId(), freshId()].sort() as [TestId, TestId]
      const first = bankAccount(loanId, '2026-03-10T10:00:00.000Z', true)
      const tiedHigh = { ...card(loanId, '2026-03-10T10:00:00.001Z', false), id: high }
      const tiedLow = { ...bankAccount(loanId, '2026-03-10T10:00:00.001Z', false), id: low, accountType: 'savings' as const, nickname: 'Reserve' }
      for (const m of [tiedHigh, first, tiedLow, bankAccount(other, '2026-03-10T09:00:00.000Z', true)]) await right(repo.insert(m, null))
      expect(await list(loanId)).to.deep.equal([first, tiedLow, tiedHigh])
      expect(await listPage(loanId, firstPage(1))).to.deep.equal([first, tiedLow])
      expect(await listPage(loanId, { limit: 1, after: O.some({ createdAt: tiedLow.createdAt, id: tiedLow.id }) })).to.deep.equal([tiedHigh])
      expect(await right(repo.countForLoan(loanId))).to.equal(3)
      expect(await right(repo.countForLoan(other))).to.equal(1)
      const empty = await loan()
      expect(await list(empty)).to.deep.equal([])
      expect(await right(repo.countForLoan(empty))).to.equal(0)
    })

    it("lists a loan's methods only for the loan's own party: none for another party's loan and for an unknown loan, an empty list for a loan without methods", async () => {
      const loanId = await loan()
      const other = await loan()
      const method = card(loanId, '2026-03-10T10:00:00.000Z', true)
      await right(repo.insert(method, null))
      const listed = (partyId: PartyId, id: LoanId) => right(repo.listForPartyLoan(partyId, id, firstPage(10)))
      expect(await listed(partyOf.get(loanId) as PartyId, loanId)).to.deep.equal(O.some([method]))
      expect(await listed(partyOf.get(other) as PartyId, loanId)).to.deep.equal(O.none)
      expect(await listed(partyOf.get(loanId) as PartyId, freshId())).to.deep.equal(O.none)
      expect(await listed(partyOf.get(other) as PartyId, other)).to.deep.equal(O.some([]))
    })

    it("inserting a default unmarks the loan's other default, and only that loan's", async () => {
      const loanId = await loan()
      const other = await loan()
      const old = bankAccount(loanId, '2026-03-10T10:00:00.000Z', true)
      const plain = card(loanId, '2026-03-10T10:00:01.000Z', false)
      const theirs = bankAccount(other, '2026-03-10T10:00:00.000Z', true)
      for (const m of [old, plain, theirs]) await right(repo.insert(m, null))
      const fresh = card(loanId, '2026-03-11T12:00:00.000Z', true)
      await right(repo.insert(fresh, null))
      expect(await list(loanId)).to.deep.equal([{ ...old, isDefault: false, updatedAt: fresh.updatedAt }, plain, fresh])
      expect(await list(other)).to.deep.equal([theirs])
    })

    it("updating a method to the default unmarks the loan's other default; other updates leave it alone", async () => {
      const loanId = await loan()
      const other = await loan()
      const first = bankAccount(loanId, '2026-03-10T10:00:00.000Z', true)
      const second = card(loanId, '2026-03-10T10:00:01.000Z', false)
      const theirs = bankAccount(other, '2026-03-10T10:00:00.000Z', true)
      for (const m of [first, second, theirs]) await right(repo.insert(m, null))

      const renamed = { ...second, nickname: 'Company card', updatedAt: at('2026-03-12T08:00:00.000Z') }
      await right(repo.update(renamed))
      expect(await list(loanId)).to.deep.equal([first, renamed])

      const madeDefault = { ...renamed, isDefault: true, updatedAt: at('2026-03-13T08:00:00.000Z') }
      await right(repo.update(madeDefault))
      expect(await list(loanId)).to.deep.equal([{ ...first, isDefault: false, updatedAt: madeDefault.updatedAt }, madeDefault])
      expect(await right(repo.findForLoan(loanId, second.id))).to.deep.equal(O.some(madeDefault))
      expect([await right(repo.defaultForLoan(loanId)), await right(repo.defaultForLoan(other)), await right(repo.defaultForLoan(await loan()))]).to.deep.equal([O.some(madeDefault), O.some(theirs), O.none])

      const stillDefault = { ...madeDefault, nickname: null, updatedAt: at('2026-03-14T08:00:00.000Z') }
      await right(repo.update(stillDefault))
      expect(await list(loanId)).to.deep.equal([{ ...first, isDefault: false, updatedAt: madeDefault.updatedAt }, stillDefault])
      expect(await list(other)).to.deep.equal([theirs])
      expect(await right(repo.countForLoan(loanId))).to.equal(2)
    })

    it('ends with exactly one default when two methods are made the default at once', async () => {
      for (let round = 0; round < 3; round += 1) {
        const loanId = await loan()
        const current = bankAccount(loanId, '2026-03-10T10:00:00.000Z', true)
        const one = card(loanId, '2026-03-10T10:00:01.000Z', false)
        const two = bankAccount(loanId, '2026-03-10T10:00:02.000Z', false)
        for (const m of [current, one, two]) await right(repo.insert(m, null))
        const now = at('2026-03-15T09:00:00.000Z')
        const results = await Promise.all([repo.update({ ...one, isDefault: true, updatedAt: now })(), repo.update({ ...two, isDefault: true, updatedAt: now })()])
        expect(results).to.deep.equal([E.right(undefined), E.right(undefined)])
        const stored = await list(loanId)
        const defaults = stored.filter((m) => m.isDefault).map((m) => m.id)
        expect(defaults).to.have.length(1)
        expect([one.id, two.id]).to.include(defaults[0])
        expect(stored).to.deep.equal([current, one, two].map((m) => ({ ...m, isDefault: m.id === defaults[0], updatedAt: now })))
      }
    })
  })
}
