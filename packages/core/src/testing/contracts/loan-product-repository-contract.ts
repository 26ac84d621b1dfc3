import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { OPERATOR_CONTEXT, productCreatedEvent, productUpdatedEvent, type AuditEvent } from '../../domain/audit/audit-event.js'
import { alreadyExists } from '../../domain/foundations/errors.js'
import type { LoanProduct } from '../../domain/loans/loan-product.js'
import type { Position } from '../../domain/foundations/pagination.js'
import type { LoanProductRepository } from '../../ports/loan-product-repository.js'
import { at, freshId, right, type Implementation } from './run.js'

/** The audit events of a product's creation and of a change to it (here against itself: only the write is under test). */
const created = (product: LoanProduct): AuditEvent => productCreatedEvent(freshId(), OPERATOR_CONTEXT, product)
const updated = (product: LoanProduct): AuditEvent => productUpdatedEvent(freshId(), OPERATOR_CONTEXT, product, product)

/**
 * The behaviour every `LoanProductRepository` must have. A database may already hold other
 * products (the seeded catalogue, other tests' rows): lists are checked on rows created far
 * in the future, at a random time, and read from just before them. Every product the suite
 * stores is created after the seeded catalogue, which stays first in a shared database.
 */
export const loanProductRepositoryContract = (impl: Implementation<LoanProductRepository>): void => {
  describe(`LoanProductRepository contract: ${impl.name}`, () => {
    let repo: LoanProductRepository
    before(async () => {
      repo = await impl.make()
    })

    const product = (overrides: Partial<LoanProduct> = {}): LoanProduct => ({
      id: freshId(),
      name: 'Working Capital Term Loan',
      description: 'Fixed-rate term loan for day-to-day operations.',
      currency: 'USD',
      minAmount: 500_000,
      maxAmount: 25_000_000,
      minTermMonths: 6,
      maxTermMonths: 36,
      interestRateBps: 1199,
      originationFeeBps: 200,
      repaymentFrequency: 'MONTHLY',
      servicing: { dayCount: 'ACTUAL_365', prepayment: 'REDUCE_INSTALLMENT', lateFee: { flat: 2_500, bps: 500, graceDays: 10 }, returnedPaymentFee: 2_500, timeZone: 'America/New_York' },
      active: true,
      createdAt: at('2030-05-01T10:00:00.123Z'),
      updatedAt: at('2030-05-01T10:00:00.123Z'),
      ...overrides,
    })

    /** A random instant far in the future, so rows of one test sort apart from everything else. */
    const farFuture = (): number => Date.parse('2031-01-01T00:00:00.000Z') + Math.floor(Math.random() * 1e9)
    const justBefore = (ms: number): Position => ({ createdAt: new Date(ms - 1), id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' })

    it('stores a product and returns it field for field, and none for an unknown id', async () => {
      const described = product()
      const bare = product({
        name: 'Interest-Free Starter Loan',
        description: null,
        currency: 'EUR',
        minAmount: 1,
        maxAmount: 9_007_199_254_740_991,
        minTermMonths: 1,
        maxTermMonths: 480,
        interestRateBps: 0,
        originationFeeBps: 0,
        active: false,
        updatedAt: at('2030-05-02T11:30:00.999Z'),
      })
      await right(repo.insert(described, created(described)))
      await right(repo.insert(bare, created(bare)))
      expect(await right(repo.findById(described.id))).to.deep.equal(O.some(described))
      expect(await right(repo.findById(bare.id))).to.deep.equal(O.some(bare))
      expect(await right(repo.findById(freshId()))).to.deep.equal(O.none)
    })

    it('refuses a second product with the same id as AlreadyExists and keeps the first', async () => {
      const p = product()
      await right(repo.insert(p, created(p)))
      expect(await repo.insert({ ...p, name: 'Impostor', active: false }, created({ ...p, name: 'Impostor', active: false }))()).to.deep.equal(E.left(alreadyExists('loan_product')))
      expect(await right(repo.findById(p.id))).to.deep.equal(O.some(p))
    })

    it('overwrites every field on update, keeping the creation time', async () => {
      const p = product()
      await right(repo.insert(p, created(p)))
      const changed: LoanProduct = {
        ...p,
        name: 'Equipment Financing',
        description: null,
        currency: 'GBP',
        minAmount: 1_000_000,
        maxAmount: 50_000_000,
        minTermMonths: 12,
        maxTermMonths: 60,
        interestRateBps: 899,
        originationFeeBps: 100,
        active: false,
        updatedAt: at('2030-06-01T09:15:00.456Z'),
      }
      await right(repo.update(changed, updated(changed)))
      expect(await right(repo.findById(p.id))).to.deep.equal(O.some(changed))
      const again: LoanProduct = { ...changed, description: 'Back in the catalogue.', active: true, updatedAt: at('2030-06-02T09:15:00.456Z') }
      await right(repo.update(again, updated(again)))
      expect(await right(repo.findById(p.id))).to.deep.equal(O.some(again))
    })

    it('creates nothing when updating an unknown product', async () => {
      const p = product()
      await right(repo.update(p, updated(p)))
      expect(await right(repo.findById(p.id))).to.deep.equal(O.none)
    })

    it('lists products in (createdAt, id) order, limit + 1 rows, page after page', async () => {
      const base = farFuture()
      const [lowId, highId] = [freshId(), freshId()].sort()
      const first = product({ createdAt: new Date(base), updatedAt: new Date(base) })
      const tiedHigh = product({ id: highId!, active: false, createdAt: new Date(base + 1), updatedAt: new Date(base + 1) })
      const tiedLow = product({ id: lowId!, createdAt: new Date(base + 1), updatedAt: new Date(base + 1) })
      const last = product({ description: null, createdAt: new Date(base + 2), updatedAt: new Date(base + 2) })
      for (const p of [last, tiedHigh, first, tiedLow]) await right(repo.insert(p, created(p)))
      const after = O.some(justBefore(base))
      expect(await right(repo.list(undefined, { limit: 3, after }))).to.deep.equal([first, tiedLow, tiedHigh, last])
      expect(await right(repo.list(undefined, { limit: 1, after }))).to.deep.equal([first, tiedLow])
      const next = O.some({ createdAt: tiedLow.createdAt, id: tiedLow.id })
      expect(await right(repo.list(undefined, { limit: 1, after: next }))).to.deep.equal([tiedHigh, last])
    })

    it('lists only active, only inactive, or all products', async () => {
      const base = farFuture()
      const made = [true, false, true, false].map((active, i) =>
        product({ active, createdAt: new Date(base + i), updatedAt: new Date(base + i) }),
      )
      for (const p of made) await right(repo.insert(p, created(p)))
      const ids = made.map((p) => p.id)
      const mine = (rows: readonly LoanProduct[]) => rows.filter((p) => ids.includes(p.id))
      const page = { limit: 100, after: O.some(justBefore(base)) }
      expect(mine(await right(repo.list(true, page)))).to.deep.equal([made[0], made[2]])
      expect(mine(await right(repo.list(false, page)))).to.deep.equal([made[1], made[3]])
      expect(mine(await right(repo.list(undefined, page)))).to.deep.equal(made)
      expect(await right(repo.list(true, { limit: 1, after: O.some(justBefore(base)) }))).to.deep.equal([made[0], made[2]])
    })
  })
}
