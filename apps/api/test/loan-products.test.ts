import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { expectInvalid } from './support/expectations.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/** The servicing rules of a product that names none (docs/servicing.md). */
const SERVICING_DEFAULTS = { time_zone: 'UTC', day_count: 'THIRTY_360', prepayment: 'REDUCE_TERM', late_fee_flat: 0, late_fee_bps: 0, late_fee_grace_days: 0, returned_payment_fee: 0 }

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SEEDED_AT = '2026-11-22T00:00:00.000Z'

/** The catalogue of a fresh database (docs/applications.md "Loan products", migration 0009), as the live world answers it. */
export const SEEDED_PRODUCTS = [
  {
    livemode: true,
    product_id: '5b0c1d2e-0001-4a00-8000-000000000001',
    name: 'Working Capital Term Loan',
    description: 'Fixed-rate term loan for inventory, payroll and day-to-day operations.',
    currency: 'USD',
    min_amount: 500_000,
    max_amount: 25_000_000,
    min_term_months: 6,
    max_term_months: 36,
    interest_rate_bps: 1199,
    origination_fee_bps: 200,
    repayment_frequency: 'MONTHLY',
    ...SERVICING_DEFAULTS,
    active: true,
    created_at: SEEDED_AT,
    updated_at: SEEDED_AT,
  },
  {
    livemode: true,
    product_id: '5b0c1d2e-0002-4a00-8000-000000000002',
    name: 'Equipment Financing',
    description: 'Fixed-rate loan for machinery, vehicles and other equipment.',
    currency: 'USD',
    min_amount: 1_000_000,
    max_amount: 50_000_000,
    min_term_months: 12,
    max_term_months: 60,
    interest_rate_bps: 899,
    origination_fee_bps: 100,
    repayment_frequency: 'MONTHLY',
    ...SERVICING_DEFAULTS,
    active: true,
    created_at: SEEDED_AT,
    updated_at: SEEDED_AT,
  },
  {
    livemode: true,
    product_id: '5b0c1d2e-0003-4a00-8000-000000000003',
    name: 'Interest-Free Starter Loan',
    description: 'Small interest-free loan for new borrowers; a one-time origination fee applies.',
    currency: 'USD',
    min_amount: 100_000,
    max_amount: 1_000_000,
    min_term_months: 3,
    max_term_months: 12,
    interest_rate_bps: 0,
    origination_fee_bps: 300,
    repayment_frequency: 'MONTHLY',
    ...SERVICING_DEFAULTS,
    active: true,
    created_at: SEEDED_AT,
    updated_at: SEEDED_AT,
  },
] as const

const MINIMAL = {
  name: 'Bridge Loan',
  currency: 'USD',
  min_amount: 200_000,
  max_amount: 2_000_000,
  min_term_months: 3,
  max_term_months: 18,
  interest_rate_bps: 1450,
}
const INTERNAL_REFUSAL = {
  error: 'invalid_internal_token',
  detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
}
const EMPTY_PATCH = { error: 'invalid_request', detail: 'Send at least one field to update.' }

type Product = { readonly product_id: string; readonly [field: string]: unknown }

for (const database of testDatabases()) {
  describe(`loan products on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower

    /** Products this suite created: deactivated at the end, so other suites see only the seeded ones as available. */
    const created: string[] = []
    const internal = async (method: string, path: string, json?: unknown): Promise<Reply> => {
      const reply = await request(server.url, `/internal/loan-products${path}`, { method, headers: bearer(INTERNAL_TOKEN), ...(json === undefined ? {} : { json }) })
      if (method === 'POST' && reply.status === 201) created.push(reply.body.product_id)
      return reply
    }
    const available = (query = ''): Promise<Reply> =>
      request(server.url, `/public/parties/${borrower.partyId}/available-loan-products${query}`, { headers: bearer(borrower.key.api_key) })
    /** Every item of a list, following `next_cursor` page by page (100 a page). */
    const everything = async (fetchPage: (query: string) => Promise<Reply>, filter = ''): Promise<Product[]> => {
      const all: Product[] = []
      let cursor: string | null = null
      do {
        const page: Reply = await fetchPage(`?limit=100${filter}${cursor === null ? '' : `&cursor=${cursor}`}`)
        expect(page.status, page.text).to.equal(200)
        all.push(...(page.body.data as Product[]))
        cursor = page.body.next_cursor
      } while (cursor !== null)
      return all
    }
    const catalogue = (filter = ''): Promise<Product[]> => everything((q) => internal('GET', q), filter)
    const create = async (json: unknown = MINIMAL): Promise<Product> => {
      const reply = await internal('POST', '', json)
      expect(reply.status, reply.text).to.equal(201)
      return reply.body as Product
    }

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      borrower = await onboardBorrower(server, receiver)
    })
    after(async () => {
      for (const id of created) await internal('PATCH', `/${id}`, { active: false })
      await server.stop()
      await receiver.close()
    })

    describe('listAvailableLoanProductsForParty', () => {
      it('lists the seeded products first on a fresh server (200), oldest first', async () => {
        const reply = await available('?limit=3')
        expect(reply.status).to.equal(200)
        expect(reply.body.data).to.deep.equal(SEEDED_PRODUCTS)
        const all = await everything(available)
        expect(all.slice(0, 3)).to.deep.equal(SEEDED_PRODUCTS)
        expect(all.every((p) => p['active'] === true)).to.equal(true)
      })

      it('pages with limit=1 and the cursor', async () => {
        const first = await available('?limit=1')
        expect(first.status).to.equal(200)
        expect(first.body.data).to.deep.equal([SEEDED_PRODUCTS[0]])
        expect(first.body.next_cursor).to.be.a('string')
        const second = await available(`?limit=1&cursor=${first.body.next_cursor}`)
        expect(second.status).to.equal(200)
        expect(second.body.data).to.deep.equal([SEEDED_PRODUCTS[1]])
        expect(second.body.next_cursor).to.be.a('string')
      })

      it('lists a new active product, and no longer once it is deactivated (PATCH active:false)', async () => {
        const product = await create({ ...MINIMAL, name: 'Seasonal Loan' })
        expect(await everything(available)).to.deep.include(product)
        const deactivated = await internal('PATCH', `/${product.product_id}`, { active: false })
        expect(deactivated.status).to.equal(200)
        expect(deactivated.body.active).to.equal(false)
        const ids = (await everything(available)).map((p) => p.product_id)
        expect(ids).not.to.include(product.product_id)
        expect(ids).to.include.members(SEEDED_PRODUCTS.map((p) => p.product_id))
        const reactivated = await internal('PATCH', `/${product.product_id}`, { active: true })
        expect(reactivated.status).to.equal(200)
        expect(await everything(available)).to.deep.include(reactivated.body)
      })

      it('refuses bad list parameters with 400 naming them', async () => {
        for (const [query, param] of [
          ['?limit=0', 'limit'],
          ['?limit=101', 'limit'],
          ['?limit=ten', 'limit'],
          ['?cursor=%24%24%24', 'cursor'],
          ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
          ['?active=true', 'active'],
        ] as const) {
          expectInvalid(await available(query), param, query)
        }
      })

      it("answers 403 party_mismatch to another party's key", async () => {
        const stranger = await mintKey(server.url)
        const reply = await request(server.url, `/public/parties/${borrower.partyId}/available-loan-products`, { headers: bearer(stranger.api_key) })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal({ error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' })
      })
    })

    describe('createLoanProduct', () => {
      it('creates a product with the defaults (201)', async () => {
        const reply = await internal('POST', '', MINIMAL)
        expect(reply.status).to.equal(201)
        const { product_id, created_at, updated_at, ...rest } = reply.body
        expect(rest).to.deep.equal({
          ...MINIMAL,
          description: null,
          origination_fee_bps: 0,
          repayment_frequency: 'MONTHLY',
          ...SERVICING_DEFAULTS,
          active: true,
          livemode: true,
        })
        expect(product_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
        expect(updated_at).to.equal(created_at)
        expect(await catalogue()).to.deep.include(reply.body)
      })

      it('creates a product with every field (201), inactive when told', async () => {
        const full = {
          ...MINIMAL,
          name: 'Euro Term Loan',
          currency: 'EUR',
          description: 'A loan in euros.',
          origination_fee_bps: 150,
          repayment_frequency: 'MONTHLY',
          ...SERVICING_DEFAULTS,
          active: false,
        }
        const reply = await internal('POST', '', full)
        expect(reply.status).to.equal(201)
        const { product_id: _id, created_at: _c, updated_at: _u, ...rest } = reply.body
        expect(rest).to.deep.equal({ ...full, livemode: true })
        expect((await everything(available)).map((p) => p.product_id)).not.to.include(reply.body.product_id)
        expect(await catalogue()).to.deep.include(reply.body)
        expect(await catalogue('&active=false')).to.deep.include(reply.body)
      })

      it('accepts equal bounds and the extremes of the ranges whose loans amortize', async () => {
        const smallest = { min_amount: 1, max_amount: 1, min_term_months: 1, max_term_months: 1, interest_rate_bps: 10_000, origination_fee_bps: 10_000 }
        const reply = await internal('POST', '', { ...MINIMAL, ...smallest })
        expect(reply.status, reply.text).to.equal(201)
        expect(reply.body).to.deep.include(smallest)
        const longest = { min_amount: 10_000_000, max_amount: 10_000_000, min_term_months: 480, max_term_months: 480, interest_rate_bps: 600 }
        const long = await internal('POST', '', { ...MINIMAL, ...longest })
        expect(long.status, long.text).to.equal(201)
        expect(long.body).to.deep.include(longest)
      })

      it('refuses a product some of whose loans would not amortize: 100% over 480 months (400, naming interest_rate_bps)', async () => {
        const reply = await internal('POST', '', { ...MINIMAL, max_term_months: 480, interest_rate_bps: 10_000 })
        expect(reply.status, reply.text).to.equal(400)
        expect(reply.body).to.deep.include({ error: 'invalid_request', param: 'interest_rate_bps' })
        expect(reply.body.detail).to.match(/would not amortize/)
      })

      it('refuses a product whose last installment would be more than 1% and a unit per installment off the level payment (M3′: 1,233,725 at 24% over 480 months)', async () => {
        const terms = { min_amount: 1_233_725, max_amount: 1_233_725, min_term_months: 480, max_term_months: 480, interest_rate_bps: 2_400 }
        const reply = await internal('POST', '', { ...MINIMAL, ...terms })
        expect(reply.status, reply.text).to.equal(400)
        expect(reply.body).to.deep.equal({
          error: 'invalid_request',
          param: 'interest_rate_bps',
          detail: 'A loan of 1233725 over 480 months at 2400 bps would end with an installment of 242977 against a level payment of 24676: more than 1% and a minor unit per installment apart.',
        })
      })

      it('refuses invalid products with 400 naming the field, and creates nothing', async () => {
        const before = (await catalogue()).length
        for (const [json, param] of [
          [{ ...MINIMAL, name: undefined }, 'name'],
          [{ ...MINIMAL, name: '' }, 'name'],
          [{ ...MINIMAL, name: 'x'.repeat(101) }, 'name'],
          [{ ...MINIMAL, description: '' }, 'description'],
          [{ ...MINIMAL, description: 'x'.repeat(501) }, 'description'],
          [{ ...MINIMAL, currency: 'usd' }, 'currency'],
          [{ ...MINIMAL, currency: 'DOLLARS' }, 'currency'],
          [{ ...MINIMAL, currency: undefined }, 'currency'],
          [{ ...MINIMAL, min_amount: 0 }, 'min_amount'],
          [{ ...MINIMAL, min_amount: 1.5 }, 'min_amount'],
          [{ ...MINIMAL, min_amount: '200000' }, 'min_amount'],
          [{ ...MINIMAL, max_amount: -1 }, 'max_amount'],
          [{ ...MINIMAL, max_amount: undefined }, 'max_amount'],
          [{ ...MINIMAL, min_amount: 3_000_000 }, 'min_amount'],
          [{ ...MINIMAL, min_term_months: 0 }, 'min_term_months'],
          [{ ...MINIMAL, max_term_months: 481 }, 'max_term_months'],
          [{ ...MINIMAL, max_term_months: 12.5 }, 'max_term_months'],
          [{ ...MINIMAL, min_term_months: 24 }, 'min_term_months'],
          [{ ...MINIMAL, interest_rate_bps: 10_001 }, 'interest_rate_bps'],
          [{ ...MINIMAL, interest_rate_bps: -1 }, 'interest_rate_bps'],
          [{ ...MINIMAL, interest_rate_bps: undefined }, 'interest_rate_bps'],
          [{ ...MINIMAL, origination_fee_bps: 10_001 }, 'origination_fee_bps'],
          [{ ...MINIMAL, origination_fee_bps: '100' }, 'origination_fee_bps'],
          [{ ...MINIMAL, repayment_frequency: 'WEEKLY' }, 'repayment_frequency'],
          [{ ...MINIMAL, active: 'yes' }, 'active'],
          [{ ...MINIMAL, rate_bps: 100 }, 'rate_bps'],
          [{ ...MINIMAL, product_id: randomUUID() }, 'product_id'],
        ] as const) {
          expectInvalid(await internal('POST', '', json), param, JSON.stringify(json))
        }
        expect(await catalogue()).to.have.length(before)
      })
    })

    describe('updateLoanProduct', () => {
      let product: Product
      beforeEach(async () => {
        product = await create({ ...MINIMAL, name: 'Patchable Loan', origination_fee_bps: 100 })
      })

      it('changes the fields sent (200), keeps the others and created_at', async () => {
        const reply = await internal('PATCH', `/${product.product_id}`, { name: 'Renamed Loan', interest_rate_bps: 1500, description: 'Now described.' })
        expect(reply.status).to.equal(200)
        const { updated_at, ...rest } = reply.body
        const { updated_at: before, ...unchanged } = product
        expect(rest).to.deep.equal({ ...unchanged, name: 'Renamed Loan', interest_rate_bps: 1500, description: 'Now described.' })
        expect(updated_at).to.match(ISO_MS)
        expect(Date.parse(updated_at)).to.be.at.least(Date.parse(before as string))
        expect((await catalogue()).find((p) => p.product_id === product.product_id)).to.deep.equal(reply.body)

        const cleared = await internal('PATCH', `/${product.product_id}`, { description: null })
        expect(cleared.status, 'null clears the description (JSON Merge Patch)').to.equal(200)
        expect(cleared.body).to.deep.include({ name: 'Renamed Loan', description: null })
        expect((await catalogue()).find((p) => p.product_id === product.product_id)).to.deep.equal(cleared.body)
      })

      it('refuses a change that leaves min above max (400), and changes nothing', async () => {
        expectInvalid(await internal('PATCH', `/${product.product_id}`, { min_amount: 2_000_001 }), 'min_amount')
        const terms = await internal('PATCH', `/${product.product_id}`, { max_term_months: 2 })
        expect(terms.status).to.equal(400)
        expect(terms.body.error).to.equal('invalid_request')
        expect(terms.body.param).to.be.oneOf(['min_term_months', 'max_term_months'])
        expect((await catalogue()).find((p) => p.product_id === product.product_id)).to.deep.equal(product)
      })

      it('refuses an empty patch, unknown fields and invalid values with 400', async () => {
        const empty = await internal('PATCH', `/${product.product_id}`, {})
        expect(empty.status).to.equal(400)
        expect(empty.body).to.deep.equal(EMPTY_PATCH)
        expectInvalid(await internal('PATCH', `/${product.product_id}`, { rate: 5 }), 'rate')
        expectInvalid(await internal('PATCH', `/${product.product_id}`, { origination_fee_bps: null }), 'origination_fee_bps')
        expectInvalid(await internal('PATCH', `/${product.product_id}`, { active: 'false' }), 'active')
        expectInvalid(await internal('PATCH', `/${product.product_id}`, { currency: 'eur' }), 'currency')
        expectInvalid(await internal('PATCH', `/${product.product_id}`, { interest_rate_bps: 99.9 }), 'interest_rate_bps')
        expect((await catalogue()).find((p) => p.product_id === product.product_id)).to.deep.equal(product)
      })

      it('answers 404 for an unknown product and 400 for a malformed id', async () => {
        const unknown = await internal('PATCH', `/${randomUUID()}`, { name: 'X' })
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal({ error: 'not_found', detail: 'No such loan product.' })
        expectInvalid(await internal('PATCH', '/loan-1', { name: 'X' }), 'productId')
      })
    })

    describe('listLoanProducts', () => {
      it('lists every product oldest first, the seeded ones first (200)', async () => {
        const reply = await internal('GET', '?limit=3')
        expect(reply.status).to.equal(200)
        expect(reply.body.data).to.deep.equal(SEEDED_PRODUCTS)
        expect(reply.body.next_cursor).to.be.a('string')
        const all = await catalogue()
        const positions = all.map((p) => `${p['created_at'] as string} ${p.product_id}`)
        expect(positions).to.deep.equal([...positions].sort())
      })

      it('filters with ?active=true|false', async () => {
        const on = await create({ ...MINIMAL, name: 'Active Loan' })
        const off = await create({ ...MINIMAL, name: 'Inactive Loan', active: false })
        const active = await catalogue('&active=true')
        const inactive = await catalogue('&active=false')
        expect(active).to.deep.include(on)
        expect(active).not.to.deep.include(off)
        expect(active.every((p) => p['active'] === true)).to.equal(true)
        expect(inactive).to.deep.include(off)
        expect(inactive).not.to.deep.include(on)
        expect(inactive.every((p) => p['active'] === false)).to.equal(true)
        expect(active.slice(0, 3)).to.deep.equal(SEEDED_PRODUCTS)
        expect(await everything(available)).to.deep.equal(active)
      })

      it('pages with limit=1 and the cursor', async () => {
        const first = await internal('GET', '?limit=1')
        expect(first.status).to.equal(200)
        expect(first.body.data).to.deep.equal([SEEDED_PRODUCTS[0]])
        const second = await internal('GET', `?limit=1&cursor=${first.body.next_cursor}`)
        expect(second.body.data).to.deep.equal([SEEDED_PRODUCTS[1]])
        const third = await internal('GET', `?limit=1&cursor=${second.body.next_cursor}`)
        expect(third.body.data).to.deep.equal([SEEDED_PRODUCTS[2]])
      })

      it('refuses bad list parameters with 400 naming them', async () => {
        for (const [query, param] of [
          ['?active=yes', 'active'],
          ['?active=TRUE', 'active'],
          ['?limit=0', 'limit'],
          ['?limit=-1', 'limit'],
          ['?cursor=%25%25', 'cursor'],
          ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
          ['?currency=USD', 'currency'],
        ] as const) {
          expectInvalid(await internal('GET', query), param, query)
        }
      })
    })

    describe('internal authentication', () => {
      it('answers 401 invalid_internal_token to partner keys and to no credential, on every catalogue route', async () => {
        const product = await create({ ...MINIMAL, name: 'Guarded Loan' })
        for (const headers of [bearer(borrower.key.api_key), { 'X-Api-Key': borrower.key.api_key }, {} as Record<string, string>, bearer('wrong-token')]) {
          for (const [method, path, json] of [
            ['GET', '', undefined],
            ['POST', '', MINIMAL],
            ['PATCH', `/${product.product_id}`, { name: 'Hijacked' }],
          ] as const) {
            const reply = await request(server.url, `/internal/loan-products${path}`, { method, headers, ...(json === undefined ? {} : { json }) })
            expect(reply.status, `${method} ${path} ${JSON.stringify(headers)}`).to.equal(401)
            expect(reply.body).to.deep.equal(INTERNAL_REFUSAL)
          }
        }
        expect((await catalogue()).find((p) => p.product_id === product.product_id)).to.deep.equal(product)
      })
    })
  })
}
