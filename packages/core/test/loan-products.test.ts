import { DEFAULT_SERVICING_TERMS } from '../src/domain/loans/servicing-terms.js'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type { Address } from '../src/domain/onboarding/address.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { invalidRequest, notFound, partyMismatch } from '../src/domain/foundations/errors.js'
import type { LoanProduct } from '../src/domain/loans/loan-product.js'
import { encodeCursor } from '../src/domain/foundations/pagination.js'
import type { Party } from '../src/domain/onboarding/party.js'
import {
  createLoanProduct,
  listAvailableLoanProductsForParty,
  listLoanProducts,
  updateLoanProduct,
} from '../src/use-cases/loan-products/loan-products.js'
import { createPartyAddress, getParty, listPartyAddresses, updatePartyAddress } from '../src/use-cases/parties/parties.js'
import { inMemoryLoanProductRepository, inMemoryOnboardingSessionRepository, sequentialIds, testClock } from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'

/** The loan product catalogue and the borrower's party (docs/applications.md), against the in-memory adapters. */

const T0 = new Date('2026-01-15T10:00:00.000Z')
const UNKNOWN_ID = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd'

const product = (over: Partial<LoanProduct> & Pick<LoanProduct, 'id' | 'createdAt'>): LoanProduct => ({
  name: 'Product',
  description: null,
  currency: 'USD',
  minAmount: 100_000,
  maxAmount: 1_000_000,
  minTermMonths: 3,
  maxTermMonths: 12,
  interestRateBps: 0,
  originationFeeBps: 0,
  repaymentFrequency: 'MONTHLY',
  servicing: DEFAULT_SERVICING_TERMS,
  active: true,
  updatedAt: over.createdAt,
  ...over,
})

/** The seeded catalogue (docs/applications.md "Loan products") around two inactive products, by age. */
const WORKING_CAPITAL = product({
  id: testId('5b0c1d2e-0001-4a00-8000-000000000001'),
  name: 'Working Capital Term Loan',
  minAmount: 500_000,
  maxAmount: 25_000_000,
  minTermMonths: 6,
  maxTermMonths: 36,
  interestRateBps: 1199,
  originationFeeBps: 200,
  createdAt: new Date('2025-12-01T00:00:00.000Z'),
})
const RETIRED = product({ id: testId('5b0c1d2e-0009-4a00-8000-000000000009'), name: 'Retired', active: false, createdAt: new Date('2025-12-02T00:00:00.000Z') })
const EQUIPMENT = product({
  id: testId('5b0c1d2e-0002-4a00-8000-000000000002'),
  name: 'Equipment Financing',
  minAmount: 1_000_000,
  maxAmount: 50_000_000,
  minTermMonths: 12,
  maxTermMonths: 60,
  interestRateBps: 899,
  originationFeeBps: 100,
  createdAt: new Date('2025-12-03T00:00:00.000Z'),
})
const PAUSED = product({ id: testId('5b0c1d2e-0008-4a00-8000-000000000008'), name: 'Paused', active: false, createdAt: new Date('2025-12-04T00:00:00.000Z') })
const STARTER = product({
  id: testId('5b0c1d2e-0003-4a00-8000-000000000003'),
  name: 'Interest-Free Starter Loan',
  originationFeeBps: 300,
  createdAt: new Date('2025-12-05T00:00:00.000Z'),
})
const CATALOGUE = [STARTER, PAUSED, EQUIPMENT, RETIRED, WORKING_CAPITAL]

const productSetup = () => {
  const products = inMemoryLoanProductRepository(CATALOGUE)
  return { products, deps: { products, ids: sequentialIds(), clock: testClock(T0) } }
}

const NEW_PRODUCT = {
  name: 'Seasonal Line',
  currency: 'USD',
  min_amount: 250_000,
  max_amount: 5_000_000,
  min_term_months: 3,
  max_term_months: 18,
  interest_rate_bps: 1450,
}

describe('listAvailableLoanProductsForParty', () => {
  it('lists only active products, oldest first', async () => {
    const { deps } = productSetup()
    expect(await listAvailableLoanProductsForParty(deps)(caller, { partyId: PARTY })()).to.deep.equal(E.right({ items: [WORKING_CAPITAL, EQUIPMENT, STARTER], nextCursor: null }))
  })

  it('pages with limit and cursor', async () => {
    const { deps } = productSetup()
    const list = listAvailableLoanProductsForParty(deps)
    expect(await list(caller, { partyId: PARTY, limit: '2' })()).to.deep.equal(E.right({ items: [WORKING_CAPITAL, EQUIPMENT], nextCursor: encodeCursor(EQUIPMENT) }))
    expect(await list(caller, { partyId: PARTY, limit: '2', cursor: encodeCursor(EQUIPMENT) })()).to.deep.equal(E.right({ items: [STARTER], nextCursor: null }))
  })

  it('refuses a filter it does not have and a forged cursor', async () => {
    const { deps } = productSetup()
    const list = listAvailableLoanProductsForParty(deps)
    expect(await list(caller, { partyId: PARTY, active: 'false' })()).to.deep.equal(E.left(invalidRequest('active is not a known field', 'active')))
    expect(await list(caller, { partyId: PARTY, cursor: 'bm90LWEtY3Vyc29y' })()).to.deep.equal(E.left(invalidRequest('cursor is not a cursor returned by this list', 'cursor')))
  })
})

describe('listLoanProducts', () => {
  it('lists every product without a filter, oldest first', async () => {
    const { deps } = productSetup()
    expect(await listLoanProducts(deps)({})()).to.deep.equal(E.right({ items: [WORKING_CAPITAL, RETIRED, EQUIPMENT, PAUSED, STARTER], nextCursor: null }))
  })

  it('lists only active or only inactive products with ?active=', async () => {
    const { deps } = productSetup()
    expect(await listLoanProducts(deps)({ active: 'true' })()).to.deep.equal(E.right({ items: [WORKING_CAPITAL, EQUIPMENT, STARTER], nextCursor: null }))
    expect(await listLoanProducts(deps)({ active: 'false' })()).to.deep.equal(E.right({ items: [RETIRED, PAUSED], nextCursor: null }))
  })

  it('pages through a filtered list', async () => {
    const { deps } = productSetup()
    const list = listLoanProducts(deps)
    expect(await list({ active: 'false', limit: '1' })()).to.deep.equal(E.right({ items: [RETIRED], nextCursor: encodeCursor(RETIRED) }))
    expect(await list({ active: 'false', limit: '1', cursor: encodeCursor(RETIRED) })()).to.deep.equal(E.right({ items: [PAUSED], nextCursor: null }))
    expect(await list({ limit: '3' })()).to.deep.equal(E.right({ items: [WORKING_CAPITAL, RETIRED, EQUIPMENT], nextCursor: encodeCursor(EQUIPMENT) }))
  })

  it('refuses an unknown query parameter, a bad active value and a bad limit', async () => {
    const { deps } = productSetup()
    const list = listLoanProducts(deps)
    expect(await list({ currency: 'USD' })()).to.deep.equal(E.left(invalidRequest('currency is not a known field', 'currency')))
    expect(await list({ active: 'yes' })()).to.deep.equal(E.left(invalidRequest('active must be one of: true, false', 'active')))
    expect(await list({ limit: '0' })()).to.deep.equal(E.left(invalidRequest('limit must be an integer from 1 to 100', 'limit')))
  })
})

describe('createLoanProduct', () => {
  it('creates an active MONTHLY product with no description and no fee by default', async () => {
    const { deps, products } = productSetup()
    const expected: LoanProduct = {
      id: testId('00000000-0000-4000-8000-000000000001'),
      name: 'Seasonal Line',
      description: null,
      currency: 'USD',
      minAmount: 250_000,
      maxAmount: 5_000_000,
      minTermMonths: 3,
      maxTermMonths: 18,
      interestRateBps: 1450,
      originationFeeBps: 0,
      repaymentFrequency: 'MONTHLY',
      servicing: DEFAULT_SERVICING_TERMS,
      active: true,
      createdAt: T0,
      updatedAt: T0,
    }
    expect(await createLoanProduct(deps)(NEW_PRODUCT)()).to.deep.equal(E.right(expected))
    expect(products.all()).to.deep.equal([...CATALOGUE, expected])
  })

  it('takes every optional field', async () => {
    const { deps } = productSetup()
    const input = { ...NEW_PRODUCT, currency: 'EUR', description: 'For the busy season', origination_fee_bps: 10_000, repayment_frequency: 'MONTHLY', active: false }
    expect(await createLoanProduct(deps)(input)()).to.deep.equal(
      E.right({
        id: '00000000-0000-4000-8000-000000000001',
        name: 'Seasonal Line',
        description: 'For the busy season',
        currency: 'EUR',
        minAmount: 250_000,
        maxAmount: 5_000_000,
        minTermMonths: 3,
        maxTermMonths: 18,
        interestRateBps: 1450,
        originationFeeBps: 10_000,
        repaymentFrequency: 'MONTHLY',
        servicing: DEFAULT_SERVICING_TERMS,
        active: false,
        createdAt: T0,
        updatedAt: T0,
      }),
    )
  })

  it('accepts equal bounds and the extremes of every range that amortize', async () => {
    const { deps } = productSetup()
    const fields = (p: LoanProduct) => [p.minAmount, p.maxAmount, p.minTermMonths, p.maxTermMonths, p.interestRateBps]
    const smallest = await createLoanProduct(deps)({ ...NEW_PRODUCT, min_amount: 1, max_amount: 1, min_term_months: 1, max_term_months: 1, interest_rate_bps: 10_000 })()
    expect(E.isRight(smallest) && fields(smallest.right)).to.deep.equal([1, 1, 1, 1, 10_000])
    const longest = await createLoanProduct(deps)({ ...NEW_PRODUCT, min_amount: 10_000_000, max_amount: 10_000_000, min_term_months: 480, max_term_months: 480, interest_rate_bps: 600 })()
    expect(E.isRight(longest) && fields(longest.right)).to.deep.equal([10_000_000, 10_000_000, 480, 480, 600])
  })

  describe('refuses a product some of whose loans would not amortize (issue 37, item 7)', () => {
    it('100% over 480 months: every installment but the last would pay interest only', async () => {
      const { deps, products } = productSetup()
      const refused = await createLoanProduct(deps)({ ...NEW_PRODUCT, max_term_months: 480, interest_rate_bps: 10_000 })()
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: 'InvalidRequest', param: 'interest_rate_bps' })
      expect(E.isLeft(refused) && refused.left).to.have.property('detail').that.matches(/would not amortize/)
      expect(products.all()).to.deep.equal(CATALOGUE)
    })

    it('36% over 360 months on a small amount: the level payment would round to the interest', async () => {
      const { deps } = productSetup()
      const refused = await createLoanProduct(deps)({ ...NEW_PRODUCT, min_amount: 100, max_term_months: 360, interest_rate_bps: 3_600 })()
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: 'InvalidRequest', param: 'interest_rate_bps' })
    })

    it('under Actual/365, whatever day a loan starts: 1,000 at 20% over 60 months retires nothing in a 31-day month', async () => {
      const { deps } = productSetup()
      const refused = await createLoanProduct(deps)({ ...NEW_PRODUCT, min_amount: 1_000, max_term_months: 60, interest_rate_bps: 2_000, day_count: 'ACTUAL_365' })()
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: 'InvalidRequest', param: 'interest_rate_bps' })
    })

    it('a last installment more than 1% and a unit per installment off the level payment (M3′: 1,233,725 at 24% over 480 months, level 24,676, last 242,977)', async () => {
      const { deps, products } = productSetup()
      const refused = await createLoanProduct(deps)({ ...NEW_PRODUCT, min_amount: 1_233_725, max_amount: 1_233_725, min_term_months: 480, max_term_months: 480, interest_rate_bps: 2_400 })()
      expect(E.isLeft(refused) && refused.left).to.deep.equal(
        invalidRequest('A loan of 1233725 over 480 months at 2400 bps would end with an installment of 242977 against a level payment of 24676: more than 1% and a minor unit per installment apart.', 'interest_rate_bps'),
      )
      expect(products.all()).to.deep.equal(CATALOGUE)
    })

    it('totals above 2^53 − 1 minor units, naming max_amount', async () => {
      const { deps } = productSetup()
      const refused = await createLoanProduct(deps)({ ...NEW_PRODUCT, max_amount: 9_000_000_000_000_000, interest_rate_bps: 1_000 })()
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: 'InvalidRequest', param: 'max_amount' })
      expect(E.isLeft(refused) && refused.left).to.have.property('detail').that.matches(/more than the API states exactly/)
    })

    it('a patch that would break amortization, naming the field it changed, and changes nothing', async () => {
      const { deps, products } = productSetup()
      const created = await createLoanProduct(deps)(NEW_PRODUCT)()
      if (E.isLeft(created)) return expect.fail(JSON.stringify(created.left))
      const refused = await updateLoanProduct(deps)({ productId: created.right.id, max_term_months: 480, interest_rate_bps: 10_000 })()
      expect(E.isLeft(refused) && refused.left).to.deep.include({ _tag: 'InvalidRequest', param: 'interest_rate_bps' })
      expect(products.all().at(-1)).to.deep.equal(created.right)
    })
  })

  describe('when the input is invalid', () => {
    const cases: readonly (readonly [string, object, ReturnType<typeof invalidRequest>])[] = [
      ['min_amount above max_amount', { min_amount: 5_000_001 }, invalidRequest('min_amount (5000001) must not exceed max_amount (5000000).', 'min_amount')],
      ['min_term_months above max_term_months', { min_term_months: 19 }, invalidRequest('min_term_months (19) must not exceed max_term_months (18).', 'min_term_months')],
      ['an unknown currency', { currency: 'XYZ' }, invalidRequest('currency must be an ISO 4217 currency code in upper case, such as USD', 'currency')],
      ['a lower-case currency', { currency: 'usd' }, invalidRequest('currency must be an ISO 4217 currency code in upper case, such as USD', 'currency')],
      ['an interest rate above 10000 bps', { interest_rate_bps: 10_001 }, invalidRequest('interest_rate_bps must be an integer from 0 to 10000', 'interest_rate_bps')],
      ['a negative interest rate', { interest_rate_bps: -1 }, invalidRequest('interest_rate_bps must be an integer from 0 to 10000', 'interest_rate_bps')],
      ['a fee above 10000 bps', { origination_fee_bps: 10_001 }, invalidRequest('origination_fee_bps must be an integer from 0 to 10000', 'origination_fee_bps')],
      ['a zero min_amount', { min_amount: 0 }, invalidRequest('min_amount must be an integer from 1 to 9007199254740991', 'min_amount')],
      ['a term of 481 months', { max_term_months: 481 }, invalidRequest('max_term_months must be an integer from 1 to 480', 'max_term_months')],
      ['an empty name', { name: ' ' }, invalidRequest('name must be between 1 and 100 characters', 'name')],
      ['a name of 101 characters', { name: 'n'.repeat(101) }, invalidRequest('name must be between 1 and 100 characters', 'name')],
      ['a description of 501 characters', { description: 'd'.repeat(501) }, invalidRequest('description must be between 1 and 500 characters', 'description')],
      ['another repayment frequency', { repayment_frequency: 'WEEKLY' }, invalidRequest('repayment_frequency must be one of: MONTHLY', 'repayment_frequency')],
      ['active as a string', { active: 'true' }, invalidRequest('active must be true or false', 'active')],
      ['an unknown field', { product_id: UNKNOWN_ID }, invalidRequest('product_id is not a known field', 'product_id')],
      ['a missing required field', { interest_rate_bps: undefined }, invalidRequest('interest_rate_bps is required', 'interest_rate_bps')],
    ]
    for (const [name, change, error] of cases) {
      it(`refuses ${name} and stores nothing`, async () => {
        const { deps, products } = productSetup()
        expect(await createLoanProduct(deps)({ ...NEW_PRODUCT, ...change })()).to.deep.equal(E.left(error))
        expect(products.all()).to.deep.equal(CATALOGUE)
      })
    }
  })
})

describe('updateLoanProduct', () => {
  it('changes the given fields and updated_at, nothing else', async () => {
    const { deps, products } = productSetup()
    deps.clock.advance(60_000)
    const expected: LoanProduct = { ...EQUIPMENT, interestRateBps: 950, description: 'Machines', active: false, updatedAt: new Date(T0.getTime() + 60_000) }
    expect(await updateLoanProduct(deps)({ productId: EQUIPMENT.id, interest_rate_bps: 950, description: 'Machines', active: false })()).to.deep.equal(
      E.right(expected),
    )
    expect(products.all().find((p) => p.id === EQUIPMENT.id)).to.deep.equal(expected)
  })

  it('accepts a change of both bounds that keeps them ordered', async () => {
    const { deps } = productSetup()
    const updated = await updateLoanProduct(deps)({ productId: EQUIPMENT.id, min_amount: 60_000_000, max_amount: 70_000_000 })()
    expect(E.isRight(updated) && [updated.right.minAmount, updated.right.maxAmount]).to.deep.equal([60_000_000, 70_000_000])
  })

  describe('when the patch is refused', () => {
    const cases: readonly (readonly [string, object, ReturnType<typeof invalidRequest>])[] = [
      ['an empty patch', {}, invalidRequest('Send at least one field to update.')],
      // EQUIPMENT lends 1,000,000 – 50,000,000 over 12 – 60 months.
      ['a min_amount above the current max_amount', { min_amount: 50_000_001 }, invalidRequest('min_amount (50000001) must not exceed max_amount (50000000).', 'min_amount')],
      ['a max_amount below the current min_amount', { max_amount: 999_999 }, invalidRequest('min_amount (1000000) must not exceed max_amount (999999).', 'max_amount')],
      ['a min_term_months above the current max', { min_term_months: 61 }, invalidRequest('min_term_months (61) must not exceed max_term_months (60).', 'min_term_months')],
      ['a max_term_months below the current min', { max_term_months: 11 }, invalidRequest('min_term_months (12) must not exceed max_term_months (11).', 'max_term_months')],
      ['a lower-case currency', { currency: 'eur' }, invalidRequest('currency must be an ISO 4217 currency code in upper case, such as USD', 'currency')],
      ['a fee above 10000 bps', { origination_fee_bps: 20_000 }, invalidRequest('origination_fee_bps must be an integer from 0 to 10000', 'origination_fee_bps')],
      ['an unknown field', { min_rate: 1 }, invalidRequest('min_rate is not a known field', 'min_rate')],
    ]
    for (const [name, patch, error] of cases) {
      it(`refuses ${name} and changes nothing`, async () => {
        const { deps, products } = productSetup()
        expect(await updateLoanProduct(deps)({ productId: EQUIPMENT.id, ...patch })()).to.deep.equal(E.left(error))
        expect(products.all()).to.deep.equal(CATALOGUE)
      })
    }
  })

  it('answers NotFound for an unknown product and refuses an id that is not a UUID', async () => {
    const { deps, products } = productSetup()
    expect(await updateLoanProduct(deps)({ productId: UNKNOWN_ID, name: 'X' })()).to.deep.equal(E.left(notFound('loan_product')))
    expect(await updateLoanProduct(deps)({ productId: 'equipment', name: 'X' })()).to.deep.equal(E.left(invalidRequest('productId must be a UUID', 'productId')))
    expect(products.all()).to.deep.equal(CATALOGUE)
  })
})

// ---------------------------------------------------------------------------------------------
// Parties

const PARTY = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
const OTHER_PARTY = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
const NO_PARTY = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc'

const callerOf = (partyId: string): Caller => ({ keyId: testId('key-1'), clientId: testId('client-1'), partyId: testId(partyId), environment: 'live', scopes: ['partner:api'] })
const caller = callerOf(PARTY)

const address = (id: string, type: Address['type'], createdAt: Date): Address => ({
  id: testId(id),
  type,
  line1: '9 Harbour Rd',
  line2: null,
  city: 'Portland',
  region: 'OR',
  postalCode: '97201',
  country: 'US',
  createdAt,
  updatedAt: createdAt,
})

const THEIR_ADDRESS = address('eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee', 'registered', new Date('2026-01-02T00:00:00.000Z'))

const party = (id: string, addresses: readonly Address[]): Party => ({
  id: testId(id),
  sessionId: testId('11111111-1111-4111-8111-111111111111'),
  clientId: testId('client-1'),
  type: 'business',
  legalName: 'Acme Ltd',
  tradingName: 'Acme',
  legalForm: 'llc',
  registrationNumber: 'R-123',
  incorporationDate: '2020-05-01',
  industryCode: '5411',
  website: 'https://acme.example',
  taxId: '12-3456789',
  countryOfIncorporation: 'US',
  email: 'a@b.co',
  phone: '+14155550123',
  addresses,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
})

const REGISTERED = { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }
const MAILING = { type: 'mailing', line1: 'PO Box 7', city: 'Springfield', postal_code: '62702', country: 'US' }

const partySetup = (addresses: readonly Address[] = []) => {
  const sessions = inMemoryOnboardingSessionRepository(new Map([[PARTY, party(PARTY, addresses)], [OTHER_PARTY, party(OTHER_PARTY, [THEIR_ADDRESS])]]))
  const deps = { parties: sessions.parties, ids: sequentialIds(), clock: testClock(T0) }
  const stored = async (id = PARTY): Promise<Party | undefined> => {
    const found = await deps.parties.findById(testId(id))()
    return E.isRight(found) && found.right._tag === 'Some' ? found.right.value : undefined
  }
  const run = async <A>(te: () => Promise<E.Either<unknown, A>>): Promise<A> => {
    const r = await te()
    if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
    return r.right
  }
  return { deps, stored, run }
}

describe("a party's use cases", () => {
  it("are PartyMismatch for a command naming another party than the key's, checked before anything else", async () => {
    const { deps } = partySetup()
    const products = { products: inMemoryLoanProductRepository([WORKING_CAPITAL]) }
    const theirs = { partyId: OTHER_PARTY }
    const results: readonly [string, E.Either<unknown, unknown>][] = [
      ['getParty', await getParty(deps)(caller, theirs)()],
      ['listPartyAddresses', await listPartyAddresses(deps)(caller, { ...theirs, limit: '0' })()],
      ['createPartyAddress', await createPartyAddress(deps)(caller, { ...theirs, street: 'x' })()],
      ['updatePartyAddress', await updatePartyAddress(deps)(caller, { ...theirs, addressId: THEIR_ADDRESS.id, city: 'X' })()],
      ['listAvailableLoanProductsForParty', await listAvailableLoanProductsForParty(products)(caller, { ...theirs, limit: '0' })()],
    ]
    for (const [name, result] of results) expect(result, name).to.deep.equal(E.left(partyMismatch))
  })
})

describe('getParty', () => {
  it("answers the key's party with its addresses", async () => {
    const mine = address('00000000-0000-4000-8000-0000000000aa', 'registered', T0)
    const { deps } = partySetup([mine])
    expect(await getParty(deps)(caller, { partyId: PARTY })()).to.deep.equal(E.right(party(PARTY, [mine])))
  })

  it('answers NotFound(party) for a key whose party is not a borrower', async () => {
    const { deps } = partySetup()
    expect(await getParty(deps)(callerOf(NO_PARTY), { partyId: NO_PARTY })()).to.deep.equal(E.left(notFound('party')))
  })
})

describe('listPartyAddresses', () => {
  it("lists the party's addresses oldest first, in pages", async () => {
    const { deps, run } = partySetup()
    const first = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    deps.clock.advance(1_000)
    const second = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...MAILING }))
    deps.clock.advance(1_000)
    const third = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...MAILING, type: 'operating' }))
    const list = listPartyAddresses(deps)
    expect(await list(caller, { partyId: PARTY })()).to.deep.equal(E.right({ items: [first, second, third], nextCursor: null }))
    expect(await list(caller, { partyId: PARTY, limit: '2' })()).to.deep.equal(E.right({ items: [first, second], nextCursor: encodeCursor(second) }))
    expect(await list(caller, { partyId: PARTY, limit: '2', cursor: encodeCursor(second) })()).to.deep.equal(E.right({ items: [third], nextCursor: null }))
  })

  it('answers an empty list for a party without addresses', async () => {
    const { deps } = partySetup()
    expect(await listPartyAddresses(deps)(caller, { partyId: PARTY })()).to.deep.equal(E.right({ items: [], nextCursor: null }))
  })

  it('answers NotFound(party) for a key whose party is not a borrower, and refuses unknown parameters', async () => {
    const { deps } = partySetup()
    expect(await listPartyAddresses(deps)(callerOf(NO_PARTY), { partyId: NO_PARTY })()).to.deep.equal(E.left(notFound('party')))
    expect(await listPartyAddresses(deps)(caller, { partyId: PARTY, type: 'mailing' })()).to.deep.equal(E.left(invalidRequest('type is not a known field', 'type')))
  })
})

describe('createPartyAddress', () => {
  it('adds an address to the party', async () => {
    const { deps, stored } = partySetup()
    const expected: Address = {
      id: testId('00000000-0000-4000-8000-000000000001'),
      type: 'registered',
      line1: '1 Main St',
      line2: 'Suite 4',
      city: 'Springfield',
      region: null,
      postalCode: '62701',
      country: 'US',
      createdAt: T0,
      updatedAt: T0,
    }
    expect(await createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED, line2: 'Suite 4' })()).to.deep.equal(E.right(expected))
    expect((await stored())!.addresses).to.deep.equal([expected])
  })

  it('refuses a second registered address naming type, and stores nothing', async () => {
    const { deps, stored, run } = partySetup()
    const registered = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    expect(await createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED, line1: '2 Main St' })()).to.deep.equal(
      E.left(invalidRequest('The party already has a registered address; update that one instead.', 'type')),
    )
    expect((await stored())!.addresses).to.deep.equal([registered])
  })

  it('holds at most 20 addresses', async () => {
    const { deps, stored, run } = partySetup()
    await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    for (let i = 1; i < 20; i += 1) await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...MAILING, line1: `PO Box ${i}` }))
    const before = (await stored())!.addresses
    expect(before.length).to.equal(20)
    expect(await createPartyAddress(deps)(caller, { partyId: PARTY, ...MAILING })()).to.deep.equal(E.left(invalidRequest('A party holds at most 20 addresses.')))
    expect((await stored())!.addresses).to.deep.equal(before)
  })

  it('refuses an unknown field, an unknown type and an unknown country', async () => {
    const { deps, stored } = partySetup()
    expect(await createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED, street: 'x' })()).to.deep.equal(E.left(invalidRequest('street is not a known field', 'street')))
    expect(await createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED, type: 'billing' })()).to.deep.equal(
      E.left(invalidRequest('type must be one of: registered, operating, mailing', 'type')),
    )
    expect(await createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED, country: 'XX' })()).to.deep.equal(
      E.left(invalidRequest('country must be an ISO 3166-1 alpha-2 country code in upper case, such as US', 'country')),
    )
    expect((await stored())!.addresses).to.deep.equal([])
  })

  it('answers NotFound(party) for a key whose party is not a borrower', async () => {
    const { deps } = partySetup()
    expect(await createPartyAddress(deps)(callerOf(NO_PARTY), { partyId: NO_PARTY, ...REGISTERED })()).to.deep.equal(E.left(notFound('party')))
  })
})

describe('updatePartyAddress', () => {
  it('changes the given fields and updated_at', async () => {
    const { deps, stored, run } = partySetup()
    const created = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    deps.clock.advance(1_000)
    const expected: Address = { ...created, city: 'Shelbyville', region: 'IL', updatedAt: new Date(T0.getTime() + 1_000) }
    expect(await updatePartyAddress(deps)(caller, { partyId: PARTY, addressId: created.id, city: 'Shelbyville', region: 'IL' })()).to.deep.equal(E.right(expected))
    expect((await stored())!.addresses).to.deep.equal([expected])
  })

  it('lets the registered address stay registered', async () => {
    const { deps, run } = partySetup()
    const created = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    expect(await updatePartyAddress(deps)(caller, { partyId: PARTY, addressId: created.id, type: 'registered', line1: '3 Main St' })()).to.deep.equal(
      E.right({ ...created, line1: '3 Main St' }),
    )
  })

  it('refuses turning another address into a second registered one, and changes nothing', async () => {
    const { deps, stored, run } = partySetup()
    await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    const mailing = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...MAILING }))
    const before = (await stored())!.addresses
    expect(await updatePartyAddress(deps)(caller, { partyId: PARTY, addressId: mailing.id, type: 'registered' })()).to.deep.equal(
      E.left(invalidRequest('The party already has a registered address; update that one instead.', 'type')),
    )
    expect((await stored())!.addresses).to.deep.equal(before)
  })

  it('refuses an empty patch', async () => {
    const { deps, run } = partySetup()
    const created = await run(createPartyAddress(deps)(caller, { partyId: PARTY, ...REGISTERED }))
    expect(await updatePartyAddress(deps)(caller, { partyId: PARTY, addressId: created.id })()).to.deep.equal(E.left(invalidRequest('Send at least one field to update.')))
  })

  it("answers NotFound(party_address) for an unknown address and for another party's, changing nothing", async () => {
    const { deps, stored } = partySetup()
    expect(await updatePartyAddress(deps)(caller, { partyId: PARTY, addressId: UNKNOWN_ID, city: 'X' })()).to.deep.equal(E.left(notFound('party_address')))
    expect(await updatePartyAddress(deps)(caller, { partyId: PARTY, addressId: THEIR_ADDRESS.id, city: 'X' })()).to.deep.equal(E.left(notFound('party_address')))
    expect((await stored(OTHER_PARTY))!.addresses).to.deep.equal([THEIR_ADDRESS])
  })

  it('answers NotFound(party) for a key whose party is not a borrower', async () => {
    const { deps } = partySetup()
    expect(await updatePartyAddress(deps)(callerOf(NO_PARTY), { partyId: NO_PARTY, addressId: THEIR_ADDRESS.id, city: 'X' })()).to.deep.equal(E.left(notFound('party')))
  })
})
