import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { TERM_LOAN_PRODUCT } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { expectInvalid, expectInvalidState } from './support/expectations.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const DATE = /^\d{4}-\d{2}-\d{2}$/

const WORKING_CAPITAL = '5b0c1d2e-0001-4a00-8000-000000000001'
const EQUIPMENT = '5b0c1d2e-0002-4a00-8000-000000000002'
const STARTER = '5b0c1d2e-0003-4a00-8000-000000000003'

const DRAFT_INPUT = { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12, purpose: 'Inventory for the holiday season' }

const PARTY_MISMATCH = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }
const NO_SUCH_APPLICATION = { error: 'not_found', detail: 'No such loan application.' }
const NO_SUCH_PARTY = { error: 'not_found', detail: 'No such party.' }
const EMPTY_PATCH = { error: 'invalid_request', detail: 'Send at least one field to update.' }
const INTERNAL_REFUSAL = {
  error: 'invalid_internal_token',
  detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
}

type Application = { readonly application_id: string; readonly [field: string]: unknown }

/** `amount × bps ÷ 10000` rounded half up (docs/applications.md), written independently. */
const feeOf = (amount: number, bps: number): number => Math.floor((amount * bps) / 10_000 + 0.5)

const utcToday = (): string => new Date().toISOString().slice(0, 10)

for (const database of testDatabases()) {
  describe(`loan applications on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    /** The borrower under test, and another borrower whose applications must stay invisible. */
    let borrower: Borrower
    let other: Borrower

    const call = (k: MintedKey, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      request(server.url, path, { method, headers: { ...bearer(k.api_key), ...headers }, ...(json === undefined ? {} : { json }) })
    const apps = (method: string, path: string, json?: unknown, k: MintedKey = borrower.key): Promise<Reply> =>
      call(k, method, `/public/applications${path}`, json)
    const internal = (method: string, path: string, json?: unknown): Promise<Reply> =>
      request(server.url, `/internal${path}`, { method, headers: bearer(INTERNAL_TOKEN), ...(json === undefined ? {} : { json }) })

    const createDraft = async (input: Record<string, unknown> = DRAFT_INPUT, k: MintedKey = borrower.key): Promise<Application> => {
      const reply = await apps('POST', '', input, k)
      expect(reply.status, reply.text).to.equal(201)
      return reply.body as Application
    }
    const submitted = async (input: Record<string, unknown> = DRAFT_INPUT, k: MintedKey = borrower.key): Promise<Application> => {
      const draft = await createDraft(input, k)
      const reply = await apps('POST', `/${draft.application_id}/submit`, {}, k)
      expect(reply.status, reply.text).to.equal(200)
      return reply.body as Application
    }
    const current = async (a: Application, k: MintedKey = borrower.key): Promise<Application> => {
      const reply = await apps('GET', `/${a.application_id}`, undefined, k)
      expect(reply.status, reply.text).to.equal(200)
      return reply.body as Application
    }
    /** Products this suite created: deactivated at the end, so other suites see only the seeded ones as available. */
    const createdProducts: string[] = []
    const createProduct = async (overrides: Record<string, unknown> = {}): Promise<{ product_id: string }> => {
      const reply = await internal('POST', '/loan-products', { ...TERM_LOAN_PRODUCT, ...overrides })
      expect(reply.status, reply.text).to.equal(201)
      createdProducts.push(reply.body.product_id)
      return reply.body
    }
    const patchProduct = async (productId: string, json: unknown): Promise<void> => {
      const reply = await internal('PATCH', `/loan-products/${productId}`, json)
      expect(reply.status, reply.text).to.equal(200)
    }
    /** Every application the operators' list holds (following cursors), optionally of one status. */
    const reviewList = async (filter = ''): Promise<Application[]> => {
      const all: Application[] = []
      let cursor: string | null = null
      do {
        const page: Reply = await internal('GET', `/applications?limit=100${filter}${cursor === null ? '' : `&cursor=${cursor}`}`)
        expect(page.status, page.text).to.equal(200)
        all.push(...(page.body.data as Application[]))
        cursor = page.body.next_cursor
      } while (cursor !== null)
      return all
    }

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      borrower = await onboardBorrower(server, receiver)
      other = await onboardBorrower(server, receiver)
    })
    after(async () => {
      for (const id of createdProducts) await internal('PATCH', `/loan-products/${id}`, { active: false })
      await server.stop()
      await receiver.close()
    })

    describe('createLoanApplication', () => {
      it("creates a DRAFT of the key's party (201), priced by the product", async () => {
        const reply = await apps('POST', '', DRAFT_INPUT)
        expect(reply.status).to.equal(201)
        const { application_id, created_at, updated_at, ...rest } = reply.body
        expect(rest).to.deep.equal({
          livemode: true,
          party_id: borrower.partyId,
          product_id: WORKING_CAPITAL,
          status: 'DRAFT',
          amount: 1_200_000,
          currency: 'USD',
          term_months: 12,
          purpose: 'Inventory for the holiday season',
          interest_rate_bps: 1199,
          origination_fee_bps: 200,
          submitted_at: null,
          decision: null,
          loan_id: null,
        })
        expect(application_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
        expect(updated_at).to.equal(created_at)
        expect(await current(reply.body)).to.deep.equal(reply.body)
      })

      it('accepts the bounds of the product, no purpose, and party_id when it is the key’s own', async () => {
        const low = await apps('POST', '', { product_id: STARTER, amount: 100_000, currency: 'USD', term_months: 3 })
        expect(low.status, low.text).to.equal(201)
        expect(low.body).to.deep.include({ product_id: STARTER, amount: 100_000, term_months: 3, purpose: null, interest_rate_bps: 0, origination_fee_bps: 300 })
        const high = await apps('POST', '', { product_id: STARTER, amount: 1_000_000, currency: 'USD', term_months: 12, party_id: borrower.partyId })
        expect(high.status, high.text).to.equal(201)
        expect(high.body).to.deep.include({ party_id: borrower.partyId, amount: 1_000_000, term_months: 12 })
        const upper = await apps('POST', '', { ...DRAFT_INPUT, party_id: borrower.partyId.toUpperCase() })
        expect(upper.status, upper.text).to.equal(201)
        expect(upper.body.party_id).to.equal(borrower.partyId)
      })

      it('refuses a party_id other than the key’s with 403 party_mismatch, and creates nothing', async () => {
        const before = (await call(borrower.key, 'GET', `/public/parties/${borrower.partyId}/applications?limit=100`)).body.data.length
        const reply = await apps('POST', '', { ...DRAFT_INPUT, party_id: other.partyId })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal(PARTY_MISMATCH)
        expect((await call(borrower.key, 'GET', `/public/parties/${borrower.partyId}/applications?limit=100`)).body.data).to.have.length(before)
        expect((await call(other.key, 'GET', `/public/parties/${other.partyId}/applications?limit=100`)).body.data).to.deep.equal([])
      })

      it("answers 404 'No such party.' to a key whose party is not an onboarded borrower", async () => {
        const reply = await apps('POST', '', DRAFT_INPUT, borrower.partnerKey)
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal(NO_SUCH_PARTY)
        const stranger = await mintKey(server.url)
        expect((await apps('POST', '', DRAFT_INPUT, stranger)).body).to.deep.equal(NO_SUCH_PARTY)
      })

      it('refuses terms outside the product with 400 naming the field and the allowed range', async () => {
        const cases = [
          [{ ...DRAFT_INPUT, amount: 499_999 }, 'amount', 'amount must be from 500000 to 25000000 (USD minor units) for this product.'],
          [{ ...DRAFT_INPUT, amount: 25_000_001 }, 'amount', 'amount must be from 500000 to 25000000 (USD minor units) for this product.'],
          [{ ...DRAFT_INPUT, term_months: 5 }, 'term_months', 'term_months must be from 6 to 36 for this product.'],
          [{ ...DRAFT_INPUT, term_months: 37 }, 'term_months', 'term_months must be from 6 to 36 for this product.'],
          [{ ...DRAFT_INPUT, currency: 'EUR' }, 'currency', 'currency must be USD, the currency of the product.'],
        ] as const
        for (const [json, param, detail] of cases) {
          const reply = await apps('POST', '', json)
          expect(reply.status, JSON.stringify(json)).to.equal(400)
          expect(reply.body, JSON.stringify(json)).to.deep.equal({ error: 'invalid_request', detail, param })
        }
      })

      it('refuses an unknown or inactive product with 400 naming product_id', async () => {
        const unknown = randomUUID()
        const reply = await apps('POST', '', { ...DRAFT_INPUT, product_id: unknown })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: `product_id ${unknown} is not an active loan product.`, param: 'product_id' })
        const inactive = await createProduct({ active: false })
        expectInvalid(await apps('POST', '', { ...DRAFT_INPUT, product_id: inactive.product_id }), 'product_id', 'inactive product')
      })

      it('refuses malformed input with 400 naming the field', async () => {
        const { purpose: _purpose, ...required } = DRAFT_INPUT
        for (const [json, param] of [
          [{ ...DRAFT_INPUT, amount: 1_200_000.5 }, 'amount'],
          [{ ...DRAFT_INPUT, amount: '1200000' }, 'amount'],
          [{ ...DRAFT_INPUT, amount: 0 }, 'amount'],
          [{ ...DRAFT_INPUT, amount: -500_000 }, 'amount'],
          [{ ...DRAFT_INPUT, amount: 1e20 }, 'amount'],
          [{ ...required, amount: undefined }, 'amount'],
          [{ ...DRAFT_INPUT, term_months: '12' }, 'term_months'],
          [{ ...DRAFT_INPUT, term_months: 12.5 }, 'term_months'],
          [{ ...required, term_months: undefined }, 'term_months'],
          [{ ...DRAFT_INPUT, currency: 'usd' }, 'currency'],
          [{ ...DRAFT_INPUT, currency: 'DOLLARS' }, 'currency'],
          [{ ...required, currency: undefined }, 'currency'],
          [{ ...DRAFT_INPUT, product_id: 'working-capital' }, 'product_id'],
          [{ ...required, product_id: undefined }, 'product_id'],
          [{ ...DRAFT_INPUT, purpose: '' }, 'purpose'],
          [{ ...DRAFT_INPUT, purpose: 'x'.repeat(501) }, 'purpose'],
          [{ ...DRAFT_INPUT, party_id: 'me' }, 'party_id'],
          [{ ...DRAFT_INPUT, amout: 1_200_000 }, 'amout'],
          [{ ...DRAFT_INPUT, status: 'SUBMITTED' }, 'status'],
          [{ ...DRAFT_INPUT, interest_rate_bps: 1 }, 'interest_rate_bps'],
        ] as const) {
          expectInvalid(await apps('POST', '', json), param, JSON.stringify(json))
        }
        const array = await apps('POST', '', [DRAFT_INPUT])
        expect(array.status).to.equal(400)
        expect(array.body.error).to.equal('invalid_request')
      })

      it('replays the first response for the same Idempotency-Key (Idempotent-Replayed: true), creating one application', async () => {
        const list = async () => (await call(borrower.key, 'GET', `/public/parties/${borrower.partyId}/applications?limit=100`)).body.data as Application[]
        const before = (await list()).length
        const headers = { 'Idempotency-Key': `create-${randomUUID()}` }
        const first = await call(borrower.key, 'POST', '/public/applications', DRAFT_INPUT, headers)
        expect(first.status).to.equal(201)
        expect(first.headers.get('idempotent-replayed')).to.equal(null)
        const replay = await call(borrower.key, 'POST', '/public/applications', DRAFT_INPUT, headers)
        expect(replay.status).to.equal(201)
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        expect(replay.body).to.deep.equal(first.body)
        const after = await list()
        expect(after).to.have.length(before + 1)
        expect(after.filter((a) => a.application_id === first.body.application_id)).to.deep.equal([first.body])
        const reused = await call(borrower.key, 'POST', '/public/applications', { ...DRAFT_INPUT, amount: 1_300_000 }, headers)
        expect(reused.status).to.equal(422)
        expect(reused.body).to.deep.equal({ error: 'idempotency_key_reused', detail: 'This Idempotency-Key was used for a different request (method, path or body).' })
      })
    })

    describe('getLoanApplication', () => {
      it('answers 400 for a malformed id and 404 for an unknown one', async () => {
        expectInvalid(await apps('GET', '/not-a-uuid'), 'applicationId')
        const unknown = await apps('GET', `/${randomUUID()}`)
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
      })
    })

    describe("another party's application", () => {
      it('is 404 not_found for get, patch, submit, withdraw and preview, and stays as it was', async () => {
        const theirs = await createDraft(DRAFT_INPUT, other.key)
        const partnerOfTheirs = other.partnerKey
        for (const k of [borrower.key, partnerOfTheirs]) {
          for (const [method, path, json] of [
            ['GET', '', undefined],
            ['PATCH', '', { amount: 600_000 }],
            ['POST', '/submit', {}],
            ['POST', '/withdraw', {}],
            ['GET', '/schedule-preview', undefined],
            ['GET', '/schedule-preview?start_date=2026-01-15', undefined],
          ] as const) {
            const reply = await apps(method, `/${theirs.application_id}${path}`, json, k)
            expect(reply.status, `${method} ${path}`).to.equal(404)
            expect(reply.body, `${method} ${path}`).to.deep.equal(NO_SUCH_APPLICATION)
          }
        }
        expect(await current(theirs, other.key)).to.deep.equal(theirs)
      })
    })

    describe('updateLoanApplication', () => {
      it('changes the terms of a draft (200), keeping the rest, and re-prices it when the product changes', async () => {
        const draft = await createDraft()
        const reply = await apps('PATCH', `/${draft.application_id}`, { amount: 2_400_000, term_months: 24 })
        expect(reply.status).to.equal(200)
        const { updated_at, ...rest } = reply.body
        const { updated_at: before, ...unchanged } = draft
        expect(rest).to.deep.equal({ ...unchanged, amount: 2_400_000, term_months: 24 })
        expect(updated_at).to.match(ISO_MS)
        expect(Date.parse(updated_at)).to.be.at.least(Date.parse(before as string))

        const switched = await apps('PATCH', `/${draft.application_id}`, { product_id: EQUIPMENT, purpose: 'A new press' })
        expect(switched.status).to.equal(200)
        expect(switched.body).to.deep.include({
          product_id: EQUIPMENT,
          amount: 2_400_000,
          term_months: 24,
          purpose: 'A new press',
          interest_rate_bps: 899,
          origination_fee_bps: 100,
          status: 'DRAFT',
        })
        expect(await current(draft)).to.deep.equal(switched.body)

        const cleared = await apps('PATCH', `/${draft.application_id}`, { purpose: null })
        expect(cleared.status, 'null clears purpose (JSON Merge Patch)').to.equal(200)
        expect(cleared.body).to.deep.include({ product_id: EQUIPMENT, amount: 2_400_000, term_months: 24, purpose: null })
        expect(await current(draft)).to.deep.equal(cleared.body)
      })

      it('validates the patched terms against the (possibly new) product with 400 naming the field, and changes nothing', async () => {
        const draft = await createDraft()
        for (const [json, param] of [
          [{ amount: 100 }, 'amount'],
          [{ amount: 25_000_001 }, 'amount'],
          [{ term_months: 48 }, 'term_months'],
          [{ currency: 'CAD' }, 'currency'],
          [{ product_id: STARTER }, 'amount'],
          [{ product_id: EQUIPMENT, amount: 800_000 }, 'amount'],
          [{ product_id: randomUUID() }, 'product_id'],
          [{ product_id: 'nope' }, 'product_id'],
          [{ amount: '2000000' }, 'amount'],
          [{ amount: 2_000_000.01 }, 'amount'],
          [{ term_months: null, amout: 3 }, 'amout'],
          [{ party_id: borrower.partyId }, 'party_id'],
          [{ status: 'SUBMITTED' }, 'status'],
          [{ interest_rate_bps: 0 }, 'interest_rate_bps'],
          [{ purpose: '' }, 'purpose'],
          [{ amount: null }, 'amount'],
          [{ term_months: null, purpose: null }, 'term_months'],
        ] as const) {
          expectInvalid(await apps('PATCH', `/${draft.application_id}`, json), param, JSON.stringify(json))
        }
        const empty = await apps('PATCH', `/${draft.application_id}`, {})
        expect(empty.status).to.equal(400)
        expect(empty.body).to.deep.equal(EMPTY_PATCH)
        expect(await current(draft)).to.deep.equal(draft)
      })

      it('answers 400 for a malformed id and 404 for an unknown one', async () => {
        expectInvalid(await apps('PATCH', '/12345', { amount: 600_000 }), 'applicationId')
        const unknown = await apps('PATCH', `/${randomUUID()}`, { amount: 600_000 })
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
      })
    })

    describe('submitLoanApplication', () => {
      it('moves a draft to SUBMITTED (200) with submitted_at; no body and {} are both accepted', async () => {
        const draft = await createDraft()
        const reply = await apps('POST', `/${draft.application_id}/submit`)
        expect(reply.status, reply.text).to.equal(200)
        const { submitted_at, updated_at, ...rest } = reply.body
        const { submitted_at: _s, updated_at: _u, ...unchanged } = draft
        expect(rest).to.deep.equal({ ...unchanged, status: 'SUBMITTED' })
        expect(submitted_at).to.match(ISO_MS)
        expect(updated_at).to.equal(submitted_at)
        expect(await current(draft)).to.deep.equal(reply.body)

        const withEmptyObject = await apps('POST', `/${(await createDraft()).application_id}/submit`, {})
        expect(withEmptyObject.status).to.equal(200)
        expect(withEmptyObject.body.status).to.equal('SUBMITTED')
      })

      it('refuses a body with fields (400), and a second submit or an edit after submission (409 invalid_state), changing nothing', async () => {
        const draft = await createDraft()
        expectInvalid(await apps('POST', `/${draft.application_id}/submit`, { amount: 1 }), 'amount')
        expect(await current(draft)).to.deep.equal(draft)
        const done = (await apps('POST', `/${draft.application_id}/submit`, {})).body as Application
        expectInvalidState(await apps('POST', `/${draft.application_id}/submit`, {}), 'SUBMITTED', 'submit again')
        expectInvalidState(await apps('PATCH', `/${draft.application_id}`, { amount: 600_000 }), 'SUBMITTED', 'patch after submit')
        expect(await current(draft)).to.deep.equal(done)
      })

      it('re-validates the draft against the product as it is now: a draft that no longer fits is 400 and stays a draft', async () => {
        const product = await createProduct()
        const draft = await createDraft({ product_id: product.product_id, amount: 3_000_000, currency: 'USD', term_months: 12 })
        await patchProduct(product.product_id, { max_amount: 2_000_000 })
        expectInvalid(await apps('POST', `/${draft.application_id}/submit`, {}), 'amount', 'amount above the new maximum')
        await patchProduct(product.product_id, { max_amount: 5_000_000, min_term_months: 18 })
        expectInvalid(await apps('POST', `/${draft.application_id}/submit`, {}), 'term_months', 'term below the new minimum')
        await patchProduct(product.product_id, { min_term_months: 3, active: false })
        expectInvalid(await apps('POST', `/${draft.application_id}/submit`, {}), 'product_id', 'deactivated product')
        expect(await current(draft)).to.deep.equal(draft)
        await patchProduct(product.product_id, { active: true })
        const reply = await apps('POST', `/${draft.application_id}/submit`, {})
        expect(reply.status).to.equal(200)
        expect(reply.body.status).to.equal('SUBMITTED')
      })

      it('answers 400 for a malformed id and 404 for an unknown one', async () => {
        expectInvalid(await apps('POST', '/xyz/submit', {}), 'applicationId')
        const unknown = await apps('POST', `/${randomUUID()}/submit`, {})
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
      })
    })

    describe('withdrawLoanApplication', () => {
      it('withdraws a draft (200, WITHDRAWN), which is final', async () => {
        const draft = await createDraft()
        const reply = await apps('POST', `/${draft.application_id}/withdraw`)
        expect(reply.status, reply.text).to.equal(200)
        const { updated_at, ...rest } = reply.body
        const { updated_at: _u, ...unchanged } = draft
        expect(rest).to.deep.equal({ ...unchanged, status: 'WITHDRAWN' })
        expect(updated_at).to.match(ISO_MS)
        expectInvalidState(await apps('POST', `/${draft.application_id}/withdraw`, {}), 'WITHDRAWN', 'withdraw again')
        expectInvalidState(await apps('POST', `/${draft.application_id}/submit`, {}), 'WITHDRAWN', 'submit after withdraw')
        expectInvalidState(await apps('PATCH', `/${draft.application_id}`, { amount: 600_000 }), 'WITHDRAWN', 'patch after withdraw')
        expectInvalidState(await internal('POST', `/applications/${draft.application_id}/approve`, {}), 'WITHDRAWN', 'approve after withdraw')
        expectInvalidState(await internal('POST', `/applications/${draft.application_id}/decline`, { reason: 'x' }), 'WITHDRAWN', 'decline after withdraw')
        expect(await current(draft)).to.deep.equal(reply.body)
      })

      it('withdraws a submitted application (200), keeping submitted_at', async () => {
        const sub = await submitted()
        const reply = await apps('POST', `/${sub.application_id}/withdraw`, {})
        expect(reply.status).to.equal(200)
        const { updated_at: _a, ...rest } = reply.body
        const { updated_at: _b, ...unchanged } = sub
        expect(rest).to.deep.equal({ ...unchanged, status: 'WITHDRAWN' })
      })

      it('refuses to withdraw an approved or a declined application (409 invalid_state)', async () => {
        const approved = await submitted()
        expect((await internal('POST', `/applications/${approved.application_id}/approve`, {})).status).to.equal(200)
        const approvedNow = await current(approved)
        expectInvalidState(await apps('POST', `/${approved.application_id}/withdraw`, {}), 'APPROVED', 'withdraw after approval')
        expect(await current(approved)).to.deep.equal(approvedNow)

        const declined = await submitted()
        expect((await internal('POST', `/applications/${declined.application_id}/decline`, { reason: 'Thin file.' })).status).to.equal(200)
        expectInvalidState(await apps('POST', `/${declined.application_id}/withdraw`, {}), 'DECLINED', 'withdraw after decline')
      })

      it('refuses a body with fields (400), a malformed id (400) and an unknown one (404)', async () => {
        const draft = await createDraft()
        expectInvalid(await apps('POST', `/${draft.application_id}/withdraw`, { reason: 'changed my mind' }), 'reason')
        expect(await current(draft)).to.deep.equal(draft)
        expectInvalid(await apps('POST', '/1/withdraw', {}), 'applicationId')
        const unknown = await apps('POST', `/${randomUUID()}/withdraw`, {})
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
      })
    })

    describe('previewLoanApplicationSchedule', () => {
      it('answers the whole schedule for a start date (200): level payments, month ends clamped, parts summing to the amount', async () => {
        const draft = await createDraft()
        const reply = await apps('GET', `/${draft.application_id}/schedule-preview?start_date=2026-01-31`)
        expect(reply.status, reply.text).to.equal(200)
        // 1,200,000 at 11.99% over 12 months: interest = balance × 1199 ÷ 120000, half up; payment 106613.
        const rows = [
          ['2026-02-28', 94_623, 11_990, 1_105_377],
          ['2026-03-31', 95_568, 11_045, 1_009_809],
          ['2026-04-30', 96_523, 10_090, 913_286],
          ['2026-05-31', 97_488, 9_125, 815_798],
          ['2026-06-30', 98_462, 8_151, 717_336],
          ['2026-07-31', 99_446, 7_167, 617_890],
          ['2026-08-31', 100_439, 6_174, 517_451],
          ['2026-09-30', 101_443, 5_170, 416_008],
          ['2026-10-31', 102_456, 4_157, 313_552],
          ['2026-11-30', 103_480, 3_133, 210_072],
          ['2026-12-31', 104_514, 2_099, 105_558],
          ['2027-01-31', 105_558, 1_055, 0],
        ] as const
        expect(reply.body).to.deep.equal({
          livemode: true,
          application_id: draft.application_id,
          currency: 'USD',
          principal: 1_200_000,
          interest_rate_bps: 1199,
          term_months: 12,
          start_date: '2026-01-31',
          payment_amount: 106_613,
          total_interest: 79_356,
          total_of_payments: 1_279_356,
          origination_fee: 24_000,
          disbursed_amount: 1_176_000,
          disclosure: { amount_financed: 1_176_000, finance_charge: 103_356, total_of_payments: 1_279_356, annual_percentage_rate: '15.845' },
          installments: rows.map(([due_date, principal, interest, balance_after], i) => ({
            number: i + 1,
            due_date,
            payment: principal + interest,
            principal,
            interest,
            balance_after,
          })),
        })
      })

      it('answers an interest-free schedule whose last installment takes the remainder, and rounds the fee half up', async () => {
        const draft = await createDraft({ product_id: STARTER, amount: 100_150, currency: 'USD', term_months: 3 })
        const reply = await apps('GET', `/${draft.application_id}/schedule-preview?start_date=2028-11-30`)
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({
          livemode: true,
          application_id: draft.application_id,
          currency: 'USD',
          principal: 100_150,
          interest_rate_bps: 0,
          term_months: 3,
          start_date: '2028-11-30',
          payment_amount: 33_383,
          total_interest: 0,
          total_of_payments: 100_150,
          // 100,150 × 300 ÷ 10,000 = 3,004.5 → 3,005
          origination_fee: 3_005,
          disbursed_amount: 97_145,
          // The fee is the whole finance charge; Appendix J (three whole monthly unit periods) gives
          // 18.4658…%, computed independently by bisection over exact fractions.
          disclosure: { amount_financed: 97_145, finance_charge: 3_005, total_of_payments: 100_150, annual_percentage_rate: '18.466' },
          installments: [
            { number: 1, due_date: '2028-12-30', payment: 33_383, principal: 33_383, interest: 0, balance_after: 66_767 },
            { number: 2, due_date: '2029-01-30', payment: 33_383, principal: 33_383, interest: 0, balance_after: 33_384 },
            { number: 3, due_date: '2029-02-28', payment: 33_384, principal: 33_384, interest: 0, balance_after: 0 },
          ],
        })
      })

      it('keeps the principal parts summing exactly to the amount for awkward amounts and terms', async () => {
        for (const [amount, term_months] of [
          [1, 1],
          [17, 5],
          [999_999, 7],
          [25_000_001, 36],
          [99_999_999, 240],
        ] as const) {
          // A product of exactly that amount and term (a product must amortize at every amount and term it allows).
          const product = await createProduct({ min_amount: amount, max_amount: amount, min_term_months: term_months, max_term_months: term_months, interest_rate_bps: 2999, origination_fee_bps: 333 })
          const draft = await createDraft({ product_id: product.product_id, amount, currency: 'USD', term_months })
          const reply = await apps('GET', `/${draft.application_id}/schedule-preview?start_date=2026-08-31`)
          expect(reply.status).to.equal(200)
          const installments = reply.body.installments as { number: number; payment: number; principal: number; interest: number; balance_after: number }[]
          const label = `${amount} over ${term_months}`
          expect(installments, label).to.have.length(term_months)
          expect(installments.reduce((s, i) => s + i.principal, 0), label).to.equal(amount)
          expect(installments.reduce((s, i) => s + i.interest, 0), label).to.equal(reply.body.total_interest)
          expect(reply.body.total_of_payments, label).to.equal(amount + reply.body.total_interest)
          expect(installments.reduce((s, i) => s + i.payment, 0), label).to.equal(reply.body.total_of_payments)
          expect(installments[installments.length - 1]!.balance_after, label).to.equal(0)
          let balance = amount
          for (const i of installments) {
            expect(i.payment, `${label} #${i.number}`).to.equal(i.principal + i.interest)
            expect(i.principal, `${label} #${i.number}`).to.be.at.least(0)
            balance -= i.principal
            expect(i.balance_after, `${label} #${i.number}`).to.equal(balance)
          }
          expect(reply.body.origination_fee, label).to.equal(feeOf(amount, 333))
          expect(reply.body.disbursed_amount, label).to.equal(amount - feeOf(amount, 333))
        }
      })

      it('defaults start_date to today (UTC), in any status', async () => {
        const sub = await submitted()
        const before = utcToday()
        const reply = await apps('GET', `/${sub.application_id}/schedule-preview`)
        const after = utcToday()
        expect(reply.status).to.equal(200)
        expect(reply.body.start_date).to.be.oneOf([before, after])
        const explicit = await apps('GET', `/${sub.application_id}/schedule-preview?start_date=${reply.body.start_date}`)
        expect(explicit.body).to.deep.equal(reply.body)
        const withdrawn = await apps('POST', `/${sub.application_id}/withdraw`, {})
        expect(withdrawn.status).to.equal(200)
        expect((await apps('GET', `/${sub.application_id}/schedule-preview?start_date=2026-03-01`)).status).to.equal(200)
      })

      it('refuses a bad start_date or an unknown query parameter (400), a malformed id (400) and an unknown one (404)', async () => {
        const draft = await createDraft()
        for (const [query, param] of [
          ['start_date=2026-02-30', 'start_date'],
          ['start_date=2026-13-01', 'start_date'],
          ['start_date=2026-1-5', 'start_date'],
          ['start_date=tomorrow', 'start_date'],
          ['start_date=2026-01-15T00:00:00Z', 'start_date'],
          ['start=2026-01-15', 'start'],
          ['limit=1', 'limit'],
        ] as const) {
          expectInvalid(await apps('GET', `/${draft.application_id}/schedule-preview?${query}`), param, query)
        }
        expectInvalid(await apps('GET', '/abc/schedule-preview'), 'applicationId')
        const unknown = await apps('GET', `/${randomUUID()}/schedule-preview`)
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
      })
    })

    describe('listPartyApplications', () => {
      let lister: Borrower
      let draft: Application
      let sub: Application
      let withdrawn: Application
      const list = (query = '', k?: MintedKey): Promise<Reply> =>
        call(k ?? lister.key, 'GET', `/public/parties/${lister.partyId}/applications${query}`)

      before(async () => {
        lister = await onboardBorrower(server, receiver)
        const d = await createDraft(DRAFT_INPUT, lister.key)
        const s = await submitted({ ...DRAFT_INPUT, amount: 700_000 }, lister.key)
        const w = await createDraft({ ...DRAFT_INPUT, amount: 800_000 }, lister.key)
        expect((await apps('POST', `/${w.application_id}/withdraw`, {}, lister.key)).status).to.equal(200)
        draft = await current(d, lister.key)
        sub = await current(s, lister.key)
        withdrawn = await current(w, lister.key)
      })

      it("lists the party's applications oldest first (200), and only its own", async () => {
        const reply = await list()
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: [draft, sub, withdrawn], next_cursor: null })
      })

      it('filters by ?status=', async () => {
        expect((await list('?status=SUBMITTED')).body).to.deep.equal({ data: [sub], next_cursor: null })
        expect((await list('?status=DRAFT')).body).to.deep.equal({ data: [draft], next_cursor: null })
        expect((await list('?status=WITHDRAWN')).body).to.deep.equal({ data: [withdrawn], next_cursor: null })
        expect((await list('?status=APPROVED')).body).to.deep.equal({ data: [], next_cursor: null })
      })

      it('pages with limit=1 and the cursor', async () => {
        const first = await list('?limit=1')
        expect(first.status).to.equal(200)
        expect(first.body.data).to.deep.equal([draft])
        expect(first.body.next_cursor).to.be.a('string')
        const second = await list(`?limit=1&cursor=${first.body.next_cursor}`)
        expect(second.body.data).to.deep.equal([sub])
        expect(second.body.next_cursor).to.be.a('string')
        const third = await list(`?limit=1&cursor=${second.body.next_cursor}`)
        expect(third.body).to.deep.equal({ data: [withdrawn], next_cursor: null })
        const two = await list('?limit=2')
        expect(two.body.data).to.deep.equal([draft, sub])
        expect((await list(`?limit=2&cursor=${two.body.next_cursor}`)).body).to.deep.equal({ data: [withdrawn], next_cursor: null })
      })

      it('refuses bad list parameters with 400 naming them', async () => {
        for (const [query, param] of [
          ['?status=draft', 'status'],
          ['?status=PENDING', 'status'],
          ['?limit=0', 'limit'],
          ['?limit=101', 'limit'],
          ['?limit=abc', 'limit'],
          ['?cursor=not%20a%20cursor', 'cursor'],
          ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
          ['?product_id=5b0c1d2e-0001-4a00-8000-000000000001', 'product_id'],
        ] as const) {
          expectInvalid(await list(query), param, query)
        }
      })

      it("answers 403 party_mismatch to another party's key", async () => {
        const reply = await list('', borrower.key)
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal(PARTY_MISMATCH)
      })
    })

    describe('approveLoanApplication', () => {
      it('approves a submitted application (200 {application, loan}) and books the loan at the application’s terms', async () => {
        const sub = await submitted()
        const reply = await internal('POST', `/applications/${sub.application_id}/approve`, { decided_by: 'ops@lendgate' })
        expect(reply.status, reply.text).to.equal(200)
        expect(Object.keys(reply.body).sort()).to.deep.equal(['application', 'loan'])
        const { application, loan } = reply.body

        const { decision, loan_id, updated_at, ...rest } = application
        const { decision: _d, loan_id: _l, updated_at: _u, ...unchanged } = sub
        expect(rest).to.deep.equal({ ...unchanged, status: 'APPROVED' })
        expect(decision).to.deep.equal({ decision: 'APPROVED', reason: null, decided_by: 'ops@lendgate', decided_at: decision.decided_at })
        expect(decision.decided_at).to.match(ISO_MS)
        expect(updated_at).to.equal(decision.decided_at)
        expect(loan_id).to.equal(loan.loan_id)

        const { loan_id: loanId, start_date, first_due_date, maturity_date, payment_amount, created_at, ...loanRest } = loan
        expect(loanRest).to.deep.equal({
          livemode: true,
          party_id: borrower.partyId,
          application_id: sub.application_id,
          product_id: WORKING_CAPITAL,
          status: 'ACTIVE',
          currency: 'USD',
          principal: 1_200_000,
          interest_rate_bps: 1199,
          term_months: 12,
          origination_fee: 24_000,
          disbursed_amount: 1_176_000,
          // The product's servicing rules, frozen on the loan at booking.
          time_zone: 'UTC',
          day_count: 'THIRTY_360',
          prepayment: 'REDUCE_TERM',
          late_fee_flat: 0,
          late_fee_bps: 0,
          late_fee_grace_days: 0,
          returned_payment_fee: 0,
          days_past_due: 0,
          delinquency_bucket: 'CURRENT',
          charged_off_on: null,
          // Regulation Z: twelve payments of 106,613 against 1,176,000 received (see the preview above).
          disclosure: { amount_financed: 1_176_000, finance_charge: 103_356, total_of_payments: 1_279_356, annual_percentage_rate: '15.845' },
        })
        expect(loanId).to.match(UUID)
        expect(start_date).to.equal(decision.decided_at.slice(0, 10))
        expect(start_date).to.match(DATE)
        expect(created_at).to.match(ISO_MS)

        // The preview for the approval date is the loan's schedule.
        const preview = await apps('GET', `/${sub.application_id}/schedule-preview?start_date=${start_date}`)
        expect(preview.status).to.equal(200)
        const installments = preview.body.installments as { due_date: string }[]
        expect({ payment_amount, first_due_date, maturity_date }).to.deep.equal({
          payment_amount: preview.body.payment_amount,
          first_due_date: installments[0]!.due_date,
          maturity_date: installments[installments.length - 1]!.due_date,
        })
        expect(preview.body).to.deep.include({
          principal: loan.principal,
          interest_rate_bps: loan.interest_rate_bps,
          term_months: loan.term_months,
          origination_fee: loan.origination_fee,
          disbursed_amount: loan.disbursed_amount,
          start_date,
        })

        expect(await current(sub)).to.deep.equal(application)
        expect((await call(borrower.key, 'GET', `/public/parties/${borrower.partyId}/applications?status=APPROVED&limit=100`)).body.data).to.deep.include(application)
      })

      it("writes with the loan its schedule, the ledger's opening entries and the first balance snapshot", async () => {
        const sub = await submitted()
        const approved = await internal('POST', `/applications/${sub.application_id}/approve`, {})
        expect(approved.status).to.equal(200)
        const loan = approved.body.loan
        const base = `/public/parties/${borrower.partyId}/loans/${loan.loan_id as string}`
        const preview = (await apps('GET', `/${sub.application_id}/schedule-preview?start_date=${loan.start_date as string}`)).body

        const got = await call(borrower.key, 'GET', base)
        expect(got.status, got.text).to.equal(200)
        expect(got.body).to.deep.include(loan)

        const schedule = await call(borrower.key, 'GET', `${base}/schedule?limit=100`)
        expect(schedule.status, schedule.text).to.equal(200)
        expect(
          schedule.body.data.map((i: Record<string, unknown>) => [i['installment_number'], i['due_date'], i['principal_due'], i['interest_due'], i['fees_due']]),
        ).to.deep.equal(preview.installments.map((i: Record<string, unknown>) => [i['number'], i['due_date'], i['principal'], i['interest'], 0]))

        const ledger = await call(borrower.key, 'GET', `${base}/transactions`)
        expect(ledger.status, ledger.text).to.equal(200)
        expect(
          ledger.body.data.map((t: Record<string, unknown>) => ({ type: t['type'], effective_date: t['effective_date'], amount: t['amount'], principal: t['principal'], interest: t['interest'], fees: t['fees'] })),
        ).to.deep.equal([
          { type: 'DISBURSEMENT', effective_date: loan.start_date, amount: 1_200_000, principal: 1_200_000, interest: 0, fees: 0 },
          { type: 'ORIGINATION_FEE', effective_date: loan.start_date, amount: 24_000, principal: 0, interest: 0, fees: 24_000 },
          { type: 'FEE_WITHHELD', effective_date: loan.start_date, amount: 24_000, principal: 0, interest: 0, fees: -24_000 },
        ])

        const balance = await call(borrower.key, 'GET', `${base}/balances/latest`)
        expect(balance.status, balance.text).to.equal(200)
        expect(balance.body).to.deep.include({
          loan_id: loan.loan_id,
          as_of: loan.start_date,
          principal_outstanding: 1_200_000,
          interest_outstanding: 0,
          fees_outstanding: 0,
          payoff_amount: 1_200_000,
          past_due_amount: 0,
          next_due_date: loan.first_due_date,
          next_due_amount: preview.installments[0].payment,
        })
      })

      it('books one loan when two approvals race: the loser answers 409', async () => {
        const sub = await submitted()
        const replies = await Promise.all([1, 2, 3].map(() => internal('POST', `/applications/${sub.application_id}/approve`, {})))
        const winners = replies.filter((r) => r.status === 200)
        expect(winners, replies.map((r) => r.text).join('\n')).to.have.length(1)
        for (const loser of replies.filter((r) => r.status !== 200)) {
          expect(loser.status, loser.text).to.equal(409)
          expect(loser.body.error).to.be.oneOf(['conflict', 'invalid_state'])
        }
        const loans = await call(borrower.key, 'GET', `/public/parties/${borrower.partyId}/loans?limit=100`)
        expect(loans.status, loans.text).to.equal(200)
        expect(loans.body.data.filter((l: { application_id: string }) => l.application_id === sub.application_id)).to.have.length(1)
        expect((await current(sub)).loan_id).to.equal(winners[0]!.body.loan.loan_id)
      })

      it('books the origination fee rounded half up, disbursing principal − fee; decided_by defaults to internal', async () => {
        const sub = await submitted({ product_id: STARTER, amount: 100_150, currency: 'USD', term_months: 3 })
        const reply = await internal('POST', `/applications/${sub.application_id}/approve`)
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body.application.decision.decided_by).to.equal('internal')
        // 100,150 × 300 ÷ 10,000 = 3,004.5 → 3,005
        expect(reply.body.loan).to.deep.include({ principal: 100_150, interest_rate_bps: 0, term_months: 3, payment_amount: 33_383, origination_fee: 3_005, disbursed_amount: 97_145 })

        const down = await submitted({ product_id: STARTER, amount: 100_149, currency: 'USD', term_months: 3 })
        const rounded = await internal('POST', `/applications/${down.application_id}/approve`, {})
        // 100,149 × 300 ÷ 10,000 = 3,004.47 → 3,004
        expect(rounded.body.loan).to.deep.include({ origination_fee: 3_004, disbursed_amount: 97_145 })
      })

      it('approves only from SUBMITTED: twice, from DRAFT, after decline are 409 invalid_state, changing nothing', async () => {
        const sub = await submitted()
        expect((await internal('POST', `/applications/${sub.application_id}/approve`, {})).status).to.equal(200)
        const approved = await current(sub)
        expectInvalidState(await internal('POST', `/applications/${sub.application_id}/approve`, {}), 'APPROVED', 'approve twice')
        expectInvalidState(await internal('POST', `/applications/${sub.application_id}/decline`, { reason: 'late' }), 'APPROVED', 'decline after approval')
        expectInvalidState(await apps('PATCH', `/${sub.application_id}`, { amount: 600_000 }), 'APPROVED', 'patch after approval')
        expectInvalidState(await apps('POST', `/${sub.application_id}/submit`, {}), 'APPROVED', 'submit after approval')
        expect(await current(sub)).to.deep.equal(approved)

        const draft = await createDraft()
        expectInvalidState(await internal('POST', `/applications/${draft.application_id}/approve`, {}), 'DRAFT', 'approve a draft')
        expect(await current(draft)).to.deep.equal(draft)
      })

      it('answers 404 for an unknown application, 400 for a malformed id or an unknown field', async () => {
        const unknown = await internal('POST', `/applications/${randomUUID()}/approve`, {})
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
        expectInvalid(await internal('POST', '/applications/nope/approve', {}), 'applicationId')
        const sub = await submitted()
        expectInvalid(await internal('POST', `/applications/${sub.application_id}/approve`, { approved_by: 'x' }), 'approved_by')
        expectInvalid(await internal('POST', `/applications/${sub.application_id}/approve`, { decided_by: '' }), 'decided_by')
        expect(await current(sub)).to.deep.equal(sub)
      })
    })

    describe('declineLoanApplication', () => {
      it('declines a submitted application with a reason (200, DECLINED), which is final', async () => {
        const sub = await submitted()
        const reason = 'Cash flow does not cover the payments.'
        const reply = await internal('POST', `/applications/${sub.application_id}/decline`, { reason, decided_by: 'credit@lendgate' })
        expect(reply.status, reply.text).to.equal(200)
        const { decision, updated_at, ...rest } = reply.body
        const { decision: _d, updated_at: _u, ...unchanged } = sub
        expect(rest).to.deep.equal({ ...unchanged, status: 'DECLINED', loan_id: null })
        expect(decision).to.deep.equal({ decision: 'DECLINED', reason, decided_by: 'credit@lendgate', decided_at: decision.decided_at })
        expect(decision.decided_at).to.match(ISO_MS)
        expect(await current(sub)).to.deep.equal(reply.body)

        expectInvalidState(await internal('POST', `/applications/${sub.application_id}/decline`, { reason }), 'DECLINED', 'decline twice')
        expectInvalidState(await internal('POST', `/applications/${sub.application_id}/approve`, {}), 'DECLINED', 'approve after decline')
        expect(await current(sub)).to.deep.equal(reply.body)
      })

      it('defaults decided_by to internal', async () => {
        const sub = await submitted()
        const reply = await internal('POST', `/applications/${sub.application_id}/decline`, { reason: 'No.' })
        expect(reply.status).to.equal(200)
        expect(reply.body.decision).to.deep.include({ decision: 'DECLINED', reason: 'No.', decided_by: 'internal' })
      })

      it('needs a reason (400), declines only from SUBMITTED (409), and answers 404 for an unknown application', async () => {
        const sub = await submitted()
        expectInvalid(await internal('POST', `/applications/${sub.application_id}/decline`, {}), 'reason', 'no reason')
        expectInvalid(await internal('POST', `/applications/${sub.application_id}/decline`, { reason: '' }), 'reason', 'empty reason')
        expectInvalid(await internal('POST', `/applications/${sub.application_id}/decline`, { reason: 'x', note: 'y' }), 'note')
        expect(await current(sub)).to.deep.equal(sub)
        const draft = await createDraft()
        expectInvalidState(await internal('POST', `/applications/${draft.application_id}/decline`, { reason: 'Too early.' }), 'DRAFT', 'decline a draft')
        const unknown = await internal('POST', `/applications/${randomUUID()}/decline`, { reason: 'x' })
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_APPLICATION)
        expectInvalid(await internal('POST', '/applications/0/decline', { reason: 'x' }), 'applicationId')
      })
    })

    describe('pricing', () => {
      it('re-prices a draft from the product on each edit and at submission', async () => {
        const product = await createProduct({ interest_rate_bps: 1000, origination_fee_bps: 100 })
        const draft = await createDraft({ product_id: product.product_id, amount: 1_000_000, currency: 'USD', term_months: 12 })
        expect(draft).to.deep.include({ interest_rate_bps: 1000, origination_fee_bps: 100 })
        await patchProduct(product.product_id, { interest_rate_bps: 1100, origination_fee_bps: 150 })
        expect(await current(draft)).to.deep.include({ interest_rate_bps: 1000, origination_fee_bps: 100 })
        const edited = await apps('PATCH', `/${draft.application_id}`, { purpose: 'Payroll' })
        expect(edited.body).to.deep.include({ interest_rate_bps: 1100, origination_fee_bps: 150 })
        await patchProduct(product.product_id, { interest_rate_bps: 1200, origination_fee_bps: 175 })
        const sub = await apps('POST', `/${draft.application_id}/submit`, {})
        expect(sub.body).to.deep.include({ status: 'SUBMITTED', interest_rate_bps: 1200, origination_fee_bps: 175 })
      })

      it('freezes pricing at submission: the loan uses the submitted rate and fee whatever the product says at approval', async () => {
        const product = await createProduct({ interest_rate_bps: 1500, origination_fee_bps: 250 })
        const sub = await submitted({ product_id: product.product_id, amount: 1_000_002, currency: 'USD', term_months: 6 })
        expect(sub).to.deep.include({ interest_rate_bps: 1500, origination_fee_bps: 250 })
        const previewBefore = await apps('GET', `/${sub.application_id}/schedule-preview?start_date=2026-06-15`)
        await patchProduct(product.product_id, { interest_rate_bps: 2500, origination_fee_bps: 500, max_amount: 1_000_000, active: false })
        expect(await current(sub)).to.deep.equal(sub)
        expect((await apps('GET', `/${sub.application_id}/schedule-preview?start_date=2026-06-15`)).body).to.deep.equal(previewBefore.body)

        const reply = await internal('POST', `/applications/${sub.application_id}/approve`, {})
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body.application).to.deep.include({ status: 'APPROVED', interest_rate_bps: 1500, origination_fee_bps: 250 })
        // 1,000,002 × 250 ÷ 10,000 = 25,000.05 → 25,000
        expect(reply.body.loan).to.deep.include({ principal: 1_000_002, interest_rate_bps: 1500, origination_fee: 25_000, disbursed_amount: 975_002 })
        const preview = await apps('GET', `/${sub.application_id}/schedule-preview?start_date=${reply.body.loan.start_date}`)
        expect(preview.body.payment_amount).to.equal(reply.body.loan.payment_amount)
        expect(preview.body.interest_rate_bps).to.equal(1500)
      })
    })

    describe('listLoanApplicationsForReview', () => {
      it("lists every party's applications oldest first (200), filtered by ?status=", async () => {
        const mine = await submitted()
        const theirs = await submitted(DRAFT_INPUT, other.key)
        const draft = await createDraft()
        const queue = await reviewList('&status=SUBMITTED')
        expect(queue).to.deep.include(mine)
        expect(queue).to.deep.include(theirs)
        expect(queue.map((a) => a.application_id)).not.to.include(draft.application_id)
        expect(queue.every((a) => a['status'] === 'SUBMITTED')).to.equal(true)

        const all = await reviewList()
        expect(all).to.deep.include(draft)
        const positions = all.map((a) => `${a['created_at'] as string} ${a.application_id}`)
        expect(positions).to.deep.equal([...positions].sort())
      })

      it('pages with limit=1 and the cursor', async () => {
        await submitted()
        await submitted()
        const first = await internal('GET', '/applications?status=SUBMITTED&limit=1')
        expect(first.status).to.equal(200)
        expect(first.body.data).to.have.length(1)
        expect(first.body.next_cursor).to.be.a('string')
        const second = await internal('GET', `/applications?status=SUBMITTED&limit=1&cursor=${first.body.next_cursor}`)
        expect(second.status).to.equal(200)
        const all = await reviewList('&status=SUBMITTED')
        expect([...first.body.data, ...second.body.data]).to.deep.equal(all.slice(0, 2))
      })

      it('refuses bad list parameters with 400 naming them', async () => {
        for (const [query, param] of [
          ['?status=submitted', 'status'],
          ['?status=', 'status'],
          ['?limit=0', 'limit'],
          ['?limit=1000', 'limit'],
          ['?cursor=%3F%3F', 'cursor'],
          ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
          ['?party_id=x', 'party_id'],
        ] as const) {
          expectInvalid(await internal('GET', `/applications${query}`), param, query)
        }
      })
    })

    describe('internal authentication', () => {
      it('answers 401 invalid_internal_token to partner keys and to no credential on every decision route, changing nothing', async () => {
        const sub = await submitted()
        for (const headers of [bearer(borrower.key.api_key), { 'X-Api-Key': borrower.key.api_key }, {} as Record<string, string>]) {
          for (const [method, path, json] of [
            ['GET', '/internal/applications', undefined],
            ['POST', `/internal/applications/${sub.application_id}/approve`, {}],
            ['POST', `/internal/applications/${sub.application_id}/decline`, { reason: 'x' }],
          ] as const) {
            const reply = await request(server.url, path, { method, headers, ...(json === undefined ? {} : { json }) })
            expect(reply.status, `${method} ${path} ${JSON.stringify(headers)}`).to.equal(401)
            expect(reply.body).to.deep.equal(INTERNAL_REFUSAL)
          }
        }
        expect(await current(sub)).to.deep.equal(sub)
      })
    })
  })
}
