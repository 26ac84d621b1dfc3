import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { applicationApprovedEvent, NOT_AUDITED, OPERATOR_CONTEXT, type AuditEvent } from '../../domain/audit/audit-event.js'
import { alreadyExists, concurrentUpdate } from '../../domain/foundations/errors.js'
import { newLoanApplication, type LoanApplication } from '../../domain/loans/loan-application.js'
import type { LoanProduct } from '../../domain/loans/loan-product.js'
import { bookLoan, type BookedLoan } from '../../domain/loans/loan.js'
import type { Position } from '../../domain/foundations/pagination.js'
import type { LoanApplicationRepository } from '../../ports/loan-application-repository.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import { at, freshId, right, type Implementation } from './run.js'
import type { ClientId, PartyId } from '../../domain/foundations/ids.js'

/** The audit event of an approval, as the decision makes it. */
const approvedEvent = (application: LoanApplication, booked: BookedLoan): AuditEvent =>
  applicationApprovedEvent(freshId(), OPERATOR_CONTEXT, application, booked.loan, application.updatedAt)

/** Who an application belongs to: a stored party and the API client whose key created it. */
export type Borrower = { readonly partyId: PartyId; readonly clientId: ClientId }

/**
 * The behaviour every `LoanApplicationRepository` must have, and of `LoanRepository.findById`
 * reading back what `saveApproved` booked. `borrower` returns a stored party (with its client)
 * and `product` a stored loan product (applications and loans reference both).
 */
export const loanApplicationRepositoryContract = (
  impl: Implementation<{
    readonly repo: LoanApplicationRepository
    readonly loans: LoanRepository
    readonly borrower: () => Promise<Borrower>
    readonly product: () => Promise<LoanProduct>
  }>,
): void => {
  describe(`LoanApplicationRepository contract: ${impl.name}`, () => {
    let repo: LoanApplicationRepository
    let loans: LoanRepository
    let borrower: () => Promise<Borrower>
    let product: () => Promise<LoanProduct>
    before(async () => {
      ;({ repo, loans, borrower, product } = await impl.make())
    })

    const draft = async (owner?: Borrower, createdAt = at('2026-07-01T08:00:00.125Z')): Promise<LoanApplication> => {
      const p = await product()
      const input = { product_id: p.id, amount: 1_200_000, currency: 'USD', term_months: 12, purpose: 'Inventory for the holiday season' }
      return newLoanApplication(input, owner ?? (await borrower()), p, freshId(), createdAt)
    }

    const submitted = (a: LoanApplication): LoanApplication => ({
      ...a,
      status: 'SUBMITTED',
      submittedAt: at('2026-07-02T09:00:00.250Z'),
      updatedAt: at('2026-07-02T09:00:00.250Z'),
    })

    /** The approval of `a` (as stored, SUBMITTED) with the loan it books. */
    const approval = (a: LoanApplication, now = at('2026-07-31T23:59:59.999Z')): { application: LoanApplication; booked: BookedLoan } => {
      const booked = bookLoan(a, { next: freshId }, now)
      const application: LoanApplication = {
        ...a,
        status: 'APPROVED',
        decision: { decision: 'APPROVED', reason: null, decidedBy: 'internal', decidedAt: now },
        loanId: booked.loan.id,
        updatedAt: now,
      }
      return { application, booked }
    }

    const justBefore = (ms: number): Position => ({ createdAt: new Date(ms - 1), id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' })

    it('stores an application and returns it field for field, to its party only', async () => {
      const a = await draft()
      await right(repo.insert(a))
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(a))
      expect(await right(repo.findForParty(a.partyId, a.id))).to.deep.equal(O.some(a))
      expect(await right(repo.findForParty((await borrower()).partyId, a.id))).to.deep.equal(O.none)
      expect(await right(repo.findById(freshId()))).to.deep.equal(O.none)
      expect(await right(repo.findForParty(a.partyId, freshId()))).to.deep.equal(O.none)
    })

    it('round-trips a decided application: no purpose, submission time, decision with reason', async () => {
      const a = await draft()
      const declined: LoanApplication = {
        ...submitted(a),
        purpose: null,
        interestRateBps: 0,
        originationFeeBps: 0,
        status: 'DECLINED',
        decision: { decision: 'DECLINED', reason: 'Insufficient trading history', decidedBy: 'ops@lendgate', decidedAt: at('2026-07-03T10:00:00.001Z') },
        version: 4,
        updatedAt: at('2026-07-03T10:00:00.001Z'),
      }
      await right(repo.insert(declined))
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(declined))
    })

    it('refuses a second application with the same id as AlreadyExists and keeps the first', async () => {
      const a = await draft()
      await right(repo.insert(a))
      expect(await repo.insert({ ...a, amount: 600_000 })()).to.deep.equal(E.left(alreadyExists('loan_application')))
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(a))
    })

    it('saves every field, bumping the version each time', async () => {
      const a = await draft()
      await right(repo.insert(a))
      const other = await product()
      const edited: LoanApplication = {
        ...a,
        productId: other.id,
        amount: 2_500_000,
        termMonths: 24,
        purpose: null,
        interestRateBps: 899,
        originationFeeBps: 100,
        updatedAt: at('2026-07-01T09:00:00.000Z'),
      }
      const first = await right(repo.save(edited, NOT_AUDITED, []))
      expect(first).to.deep.equal({ ...edited, version: a.version + 1 })
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(first))
      const second = await right(repo.save(submitted(first), NOT_AUDITED, []))
      expect(second).to.deep.equal({ ...submitted(first), version: a.version + 2 })
      expect(await right(repo.findForParty(a.partyId, a.id))).to.deep.equal(O.some(second))
    })

    it('refuses a save based on a stale version and writes nothing', async () => {
      const a = await draft()
      await right(repo.insert(a))
      const first = await right(repo.save({ ...a, amount: 700_000 }, NOT_AUDITED, []))
      expect(await repo.save({ ...a, amount: 800_000 }, NOT_AUDITED, [])()).to.deep.equal(E.left(concurrentUpdate('loan_application')))
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(first))
      expect(await repo.save({ ...a, id: freshId() }, NOT_AUDITED, [])()).to.deep.equal(E.left(concurrentUpdate('loan_application')))
    })

    it('approves in one step: the application and the booked loan, schedule, ledger and balance, readable back', async () => {
      const a = await draft()
      await right(repo.insert(a))
      const stored = await right(repo.save(submitted(a), NOT_AUDITED, []))
      const { application, booked } = approval(stored)
      expect(booked.transactions.map((t) => t.type)).to.deep.equal(['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD'])
      const saved = await right(repo.saveApproved(application, booked, approvedEvent(application, booked), []))
      expect(saved).to.deep.equal({ ...application, version: stored.version + 1 })
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(saved))
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
      expect(await right(loans.findById(freshId()))).to.deep.equal(O.none)
    })

    it('books an interest-free loan without a fee: one ledger entry, dates unshifted', async () => {
      const a = await draft()
      await right(repo.insert({ ...a, interestRateBps: 0, originationFeeBps: 0, termMonths: 3 }))
      const stored = await right(repo.save(submitted({ ...a, interestRateBps: 0, originationFeeBps: 0, termMonths: 3 }), NOT_AUDITED, []))
      const { application, booked } = approval(stored, at('2026-01-31T00:00:00.000Z'))
      expect(booked.transactions.map((t) => t.type)).to.deep.equal(['DISBURSEMENT'])
      await right(repo.saveApproved(application, booked, approvedEvent(application, booked), []))
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.some(booked))
    })

    it('writes no loan when the approval is based on a stale version', async () => {
      const a = await draft()
      await right(repo.insert(a))
      const stored = await right(repo.save(submitted(a), NOT_AUDITED, []))
      const { application, booked } = approval({ ...stored, version: a.version })
      expect(await repo.saveApproved(application, booked, approvedEvent(application, booked), [])()).to.deep.equal(E.left(concurrentUpdate('loan_application')))
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some(stored))
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.none)
    })

    it('lets exactly one of two concurrent approvals of the same version win, booking one loan', async () => {
      const a = await draft()
      await right(repo.insert(a))
      const stored = await right(repo.save(submitted(a), NOT_AUDITED, []))
      const one = approval(stored)
      const two = approval(stored)
      const results = await Promise.all([repo.saveApproved(one.application, one.booked, approvedEvent(one.application, one.booked), [])(), repo.saveApproved(two.application, two.booked, approvedEvent(two.application, two.booked), [])()])
      const winners = results.filter(E.isRight)
      expect(winners).to.have.length(1)
      expect(results.filter(E.isLeft)).to.deep.equal([E.left(concurrentUpdate('loan_application'))])
      const [won, lost] = E.isRight(results[0]!) ? [one, two] : [two, one]
      expect(await right(repo.findById(a.id))).to.deep.equal(O.some({ ...won.application, version: stored.version + 1 }))
      expect(await right(loans.findById(won.booked.loan.id))).to.deep.equal(O.some(won.booked))
      expect(await right(loans.findById(lost.booked.loan.id))).to.deep.equal(O.none)
    })

    it("lists a party's applications in (createdAt, id) order, limit + 1 rows, page after page, by status too", async () => {
      const owner = await borrower()
      const base = Date.parse('2032-01-01T00:00:00.000Z') + Math.floor(Math.random() * 1e9)
      const [lowId, highId] = [freshId(), freshId()].sort()
      const first = await draft(owner, new Date(base))
      const second = submitted(await draft(owner, new Date(base + 1)))
      const tiedHigh = { ...(await draft(owner, new Date(base + 2))), id: highId! }
      const tiedLow = { ...(await draft(owner, new Date(base + 2))), id: lowId! }
      for (const a of [tiedHigh, second, tiedLow, first]) await right(repo.insert(a))
      const none = O.none
      expect(await right(repo.list({ of: 'party', partyId: owner.partyId }, { limit: 10, after: none }))).to.deep.equal([first, second, tiedLow, tiedHigh])
      expect(await right(repo.list({ of: 'party', partyId: owner.partyId }, { limit: 2, after: none }))).to.deep.equal([first, second, tiedLow])
      const next = O.some({ createdAt: second.createdAt, id: second.id })
      expect(await right(repo.list({ of: 'party', partyId: owner.partyId }, { limit: 2, after: next }))).to.deep.equal([tiedLow, tiedHigh])
      expect(await right(repo.list({ of: 'party', partyId: owner.partyId, status: 'DRAFT' }, { limit: 10, after: none }))).to.deep.equal([first, tiedLow, tiedHigh])
      expect(await right(repo.list({ of: 'party', partyId: owner.partyId, status: 'SUBMITTED' }, { limit: 10, after: none }))).to.deep.equal([second])
      expect(await right(repo.list({ of: 'party', partyId: owner.partyId, status: 'APPROVED' }, { limit: 10, after: none }))).to.deep.equal([])
      expect(await right(repo.list({ of: 'party', partyId: (await borrower()).partyId }, { limit: 10, after: none }))).to.deep.equal([])
    })

    it('lists applications of every party by status, in (createdAt, id) order', async () => {
      const base = Date.parse('2033-01-01T00:00:00.000Z') + Math.floor(Math.random() * 1e9)
      const mine = submitted(await draft(undefined, new Date(base)))
      const theirs = submitted(await draft(undefined, new Date(base + 1)))
      const drafted = await draft(undefined, new Date(base + 1))
      const later = submitted(await draft(undefined, new Date(base + 2)))
      for (const a of [later, drafted, theirs, mine]) await right(repo.insert(a))
      const after = O.some(justBefore(base))
      expect(await right(repo.list({ of: 'book', status: 'SUBMITTED' }, { limit: 2, after }))).to.deep.equal([mine, theirs, later])
      const ids = [mine, theirs, drafted, later].map((a) => a.id)
      const drafts = await right(repo.list({ of: 'book', status: 'DRAFT' }, { limit: 100, after }))
      expect(drafts.filter((a) => ids.includes(a.id))).to.deep.equal([drafted])
      const all = await right(repo.list({ of: 'book' }, { limit: 100, after }))
      expect(all.filter((a) => ids.includes(a.id))).to.deep.equal(
        [mine, theirs, drafted, later].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1)),
      )
    })
  })
}
