import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { BORROWER_EMAIL, BORROWER_PHONE, BORROWER_REGISTERED_ADDRESS, onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { expectInvalid } from './support/expectations.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const PARTY_MISMATCH = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }
const NO_SUCH_PARTY = { error: 'not_found', detail: 'No such party.' }
const NO_SUCH_ADDRESS = { error: 'not_found', detail: 'No such party address.' }

/** An address as the address routes answer it: a resource of its own, with `livemode`. */
const answered = (address: Record<string, unknown>): Record<string, unknown> => ({ ...address, livemode: true })
/** An address as the party carries it: within the party, without a `livemode` of its own. */
const nested = ({ livemode: _livemode, ...address }: Record<string, unknown>): Record<string, unknown> => address
const EMPTY_PATCH = { error: 'invalid_request', detail: 'Send at least one field to update.' }
const OPERATING = { type: 'operating', line1: '200 Factory Rd', line2: 'Unit 4', city: 'Peoria', region: 'IL', postal_code: '61602', country: 'US' }

for (const database of testDatabases()) {
  describe(`parties on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower

    const call = (k: MintedKey, method: string, path: string, json?: unknown): Promise<Reply> =>
      request(server.url, path, { method, headers: bearer(k.api_key), ...(json === undefined ? {} : { json }) })
    const party = (b: Borrower, method: string, path: string, json?: unknown): Promise<Reply> =>
      call(b.key, method, `/public/parties/${b.partyId}${path}`, json)

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      borrower = await onboardBorrower(server, receiver)
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    describe('getParty', () => {
      it("answers the key's party (200): the onboarded profile, contacts and the registered address, tax id masked", async () => {
        const reply = await party(borrower, 'GET', '')
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal(borrower.party)
        const { created_at, addresses, ...rest } = reply.body
        expect(rest).to.deep.equal({
          livemode: true,
          party_id: borrower.partyId,
          session_id: borrower.sessionId,
          type: 'business',
          legal_name: 'Acme Widgets LLC',
          trading_name: null,
          legal_form: 'llc',
          registration_number: 'IL-123456',
          incorporation_date: '2019-04-30',
          industry_code: '332510',
          website: 'https://acme.example',
          tax_id_masked: '******6789',
          country_of_incorporation: 'US',
          email: BORROWER_EMAIL,
          phone: BORROWER_PHONE,
        })
        expect(created_at).to.match(ISO_MS)
        expect(addresses).to.have.length(1)
        const { address_id, created_at: addressCreatedAt, updated_at, ...address } = addresses[0]
        expect(address).to.deep.equal({ ...BORROWER_REGISTERED_ADDRESS, line2: null })
        expect(address_id).to.match(UUID)
        expect(addressCreatedAt).to.match(ISO_MS)
        expect(updated_at).to.equal(addressCreatedAt)
        expect(reply.text).not.to.contain('12-3456789')
        expect(reply.text).not.to.contain('123456789')
      })

      it('serves the party to a key minted for it, whichever client holds it', async () => {
        const another = await mintKey(server.url, { party_id: borrower.partyId, client_name: 'second client' })
        const reply = await call(another, 'GET', `/public/parties/${borrower.partyId}`)
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal(borrower.party)
      })

      it('is the same body as getPartyBySessionId and the approval answered, with every session address copied', async () => {
        // Six addresses: copied at approval they share created_at, so their order is by id, which a
        // random id order matches the session's order once in 720 runs.
        const mailing = { type: 'mailing', line1: 'PO Box 9', city: 'Springfield', postal_code: '62705', country: 'US' }
        const boxes = [1, 2, 3, 4].map((n) => ({ ...mailing, line1: `PO Box ${n}` }))
        const several = await onboardBorrower(server, receiver, { extraAddresses: [OPERATING, ...boxes] })
        const reply = await party(several, 'GET', '')
        expect(reply.status).to.equal(200)
        const bySession = await call(several.partnerKey, 'GET', `/public/onboarding-sessions/${several.sessionId}/party`)
        expect(bySession.status).to.equal(200)
        expect(reply.body).to.deep.equal(bySession.body)
        const withoutIds = reply.body.addresses.map(({ address_id: _i, created_at: _c, updated_at: _u, ...rest }: Record<string, unknown>) => rest)
        expect(withoutIds).to.have.deep.members([
          { ...BORROWER_REGISTERED_ADDRESS, line2: null },
          OPERATING,
          ...boxes.map((box) => ({ ...box, line2: null, region: null })),
        ])
        // Oldest first, ties by id; the list pages through every address exactly once, in the same order.
        const positions = reply.body.addresses.map((a: { created_at: string; address_id: string }) => `${a.created_at} ${a.address_id}`)
        expect(positions).to.deep.equal([...positions].sort())
        const paged: unknown[] = []
        let cursor: string | null = null
        do {
          const page: Reply = await party(several, 'GET', `/addresses?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`)
          expect(page.status).to.equal(200)
          paged.push(...page.body.data)
          cursor = page.body.next_cursor
        } while (cursor !== null)
        expect(paged).to.deep.equal(reply.body.addresses.map(answered))
        // The party is one body (docs/applications.md "Parties"): the approval answers it too.
        expect(several.party.addresses.map((a) => a['address_id'])).to.deep.equal(reply.body.addresses.map((a: { address_id: string }) => a.address_id))
        expect(several.party).to.deep.equal(reply.body)
      })

      it("answers 404 'No such party.' to a key whose party is not an onboarded borrower", async () => {
        const partner = borrower.partnerKey
        const reply = await call(partner, 'GET', `/public/parties/${partner.party_id}`)
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal(NO_SUCH_PARTY)
        const stranger = await mintKey(server.url)
        expect((await call(stranger, 'GET', `/public/parties/${stranger.party_id}`)).body).to.deep.equal(NO_SUCH_PARTY)
      })
    })

    describe('another party in the path', () => {
      it('answers 403 party_mismatch on every party route, before anything is looked up', async () => {
        const stranger = await mintKey(server.url)
        const addressId = borrower.party.addresses[0]!['address_id'] as string
        for (const [method, path, json] of [
          ['GET', '', undefined],
          ['GET', '/addresses', undefined],
          ['POST', '/addresses', OPERATING],
          ['PATCH', `/addresses/${addressId}`, { city: 'Chicago' }],
          ['GET', '/applications', undefined],
          ['GET', '/available-loan-products', undefined],
        ] as const) {
          const reply = await call(stranger, method, `/public/parties/${borrower.partyId}${path}`, json)
          expect(reply.status, `${method} ${path}`).to.equal(403)
          expect(reply.body, `${method} ${path}`).to.deep.equal(PARTY_MISMATCH)
        }
        // The borrower's own key on another (unknown, or malformed) party id.
        for (const other of [randomUUID(), 'not-a-uuid']) {
          const direct = await call(borrower.key, 'GET', `/public/parties/${other}`)
          expect(direct.status, other).to.equal(403)
          expect(direct.body, other).to.deep.equal(PARTY_MISMATCH)
        }
        // Nothing was written.
        expect((await party(borrower, 'GET', '/addresses')).body.data).to.have.length(1)
      })
    })

    describe('party addresses', () => {
      let owner: Borrower
      let registered: Record<string, unknown>

      before(async () => {
        owner = await onboardBorrower(server, receiver)
        registered = answered(owner.party.addresses[0]!)
      })

      it('lists the addresses copied at approval (200), oldest first', async () => {
        const reply = await party(owner, 'GET', '/addresses')
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: [registered], next_cursor: null })
      })

      it('creates an address (201), lists it after the registered one, pages with limit=1, and shows it on the party', async () => {
        const created = await party(owner, 'POST', '/addresses', OPERATING)
        expect(created.status).to.equal(201)
        const { address_id, created_at, updated_at, ...rest } = created.body
        expect(rest).to.deep.equal({ ...OPERATING, livemode: true })
        expect(address_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
        expect(updated_at).to.equal(created_at)

        expect((await party(owner, 'GET', '/addresses')).body).to.deep.equal({ data: [registered, created.body], next_cursor: null })
        const first = await party(owner, 'GET', '/addresses?limit=1')
        expect(first.status).to.equal(200)
        expect(first.body.data).to.deep.equal([registered])
        expect(first.body.next_cursor).to.be.a('string')
        const second = await party(owner, 'GET', `/addresses?limit=1&cursor=${first.body.next_cursor}`)
        expect(second.status).to.equal(200)
        expect(second.body).to.deep.equal({ data: [created.body], next_cursor: null })

        const got = await party(owner, 'GET', '')
        expect(got.body.addresses).to.deep.equal([registered, created.body].map(nested))
      })

      it('updates an address partially (200), keeping the other fields and created_at', async () => {
        const created = await party(owner, 'POST', '/addresses', { ...OPERATING, type: 'mailing', line1: 'PO Box 9' })
        expect(created.status).to.equal(201)
        const id = created.body.address_id as string
        const patched = await party(owner, 'PATCH', `/addresses/${id}`, { city: 'Chicago', postal_code: '60601' })
        expect(patched.status).to.equal(200)
        const { updated_at, ...rest } = patched.body
        const { updated_at: before, ...unchanged } = created.body
        expect(rest).to.deep.equal({ ...unchanged, city: 'Chicago', postal_code: '60601' })
        expect(updated_at).to.match(ISO_MS)
        expect(Date.parse(updated_at)).to.be.at.least(Date.parse(before))
        const listed = await party(owner, 'GET', '/addresses')
        expect(listed.body.data.find((a: { address_id: string }) => a.address_id === id)).to.deep.equal(patched.body)
      })

      it('clears line2 and region with null (JSON Merge Patch), keeping the rest', async () => {
        const created = await party(owner, 'POST', '/addresses', { ...OPERATING, type: 'mailing', line1: 'PO Box 10' })
        const id = created.body.address_id as string
        const cleared = await party(owner, 'PATCH', `/addresses/${id}`, { line2: null, region: null })
        expect(cleared.status).to.equal(200)
        const { updated_at: _after, ...rest } = cleared.body
        const { updated_at: _before, ...unchanged } = created.body
        expect(rest).to.deep.equal({ ...unchanged, line2: null, region: null })
        const listed = await party(owner, 'GET', '/addresses?limit=100')
        expect(listed.body.data.find((a: { address_id: string }) => a.address_id === id)).to.deep.equal(cleared.body)
      })

      it('updates the registered address itself (200)', async () => {
        const id = registered['address_id'] as string
        const patched = await party(owner, 'PATCH', `/addresses/${id}`, { type: 'registered', line1: '2 Main St' })
        expect(patched.status).to.equal(200)
        const { updated_at, ...rest } = patched.body
        const { updated_at: _before, ...unchanged } = registered
        expect(rest).to.deep.equal({ ...unchanged, line1: '2 Main St' })
        registered = patched.body
        expect((await party(owner, 'GET', '')).body.addresses[0]).to.deep.equal(nested(patched.body))
      })

      it('keeps one registered address per party: a second (POST or PATCH) is 400 naming type', async () => {
        const second = await party(owner, 'POST', '/addresses', BORROWER_REGISTERED_ADDRESS)
        expect(second.status).to.equal(400)
        expect(second.body).to.deep.equal({
          error: 'invalid_request',
          detail: 'The party already has a registered address; update that one instead.',
          param: 'type',
        })
        const operating = (await party(owner, 'GET', '/addresses')).body.data.find((a: { type: string }) => a.type === 'operating')
        const promote = await party(owner, 'PATCH', `/addresses/${operating.address_id}`, { type: 'registered' })
        expect(promote.status).to.equal(400)
        expect(promote.body).to.deep.equal(second.body)
        const listed = (await party(owner, 'GET', '/addresses')).body.data
        expect(listed.filter((a: { type: string }) => a.type === 'registered')).to.deep.equal([registered])
        expect(listed.find((a: { address_id: string }) => a.address_id === operating.address_id)).to.deep.equal(operating)
      })

      it('refuses invalid addresses and unknown fields with 400 naming the field', async () => {
        const countBefore = (await party(owner, 'GET', '/addresses')).body.data.length
        for (const [json, param] of [
          [{ ...OPERATING, country: 'USA' }, 'country'],
          [{ ...OPERATING, country: 'XX' }, 'country'],
          [{ ...OPERATING, type: 'home' }, 'type'],
          [{ ...OPERATING, line1: '' }, 'line1'],
          [{ ...OPERATING, city: 42 }, 'city'],
          [{ type: 'mailing', city: 'Peoria', postal_code: '61602', country: 'US' }, 'line1'],
          [{ ...OPERATING, postcode: '61602' }, 'postcode'],
        ] as const) {
          expectInvalid(await party(owner, 'POST', '/addresses', json), param, JSON.stringify(json))
        }
        expect((await party(owner, 'GET', '/addresses')).body.data).to.have.length(countBefore)

        const id = registered['address_id'] as string
        expectInvalid(await party(owner, 'PATCH', `/addresses/${id}`, { zip: '1' }), 'zip')
        expectInvalid(await party(owner, 'PATCH', `/addresses/${id}`, { country: 'usa' }), 'country')
        expectInvalid(await party(owner, 'PATCH', `/addresses/${id}`, { city: null, line2: null }), 'city')
        const empty = await party(owner, 'PATCH', `/addresses/${id}`, {})
        expect(empty.status).to.equal(400)
        expect(empty.body).to.deep.equal(EMPTY_PATCH)
        expect((await party(owner, 'GET', '')).body.addresses[0]).to.deep.equal(nested(registered))
      })

      it('answers 400 for a malformed address id and 404 for an unknown address or one of another party', async () => {
        expectInvalid(await party(owner, 'PATCH', '/addresses/123', { city: 'X' }), 'addressId')
        const unknown = await party(owner, 'PATCH', `/addresses/${randomUUID()}`, { city: 'X' })
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_ADDRESS)
        const theirs = borrower.party.addresses[0]!['address_id'] as string
        const foreign = await party(owner, 'PATCH', `/addresses/${theirs}`, { city: 'X' })
        expect(foreign.status).to.equal(404)
        expect(foreign.body).to.deep.equal(NO_SUCH_ADDRESS)
        expect((await party(borrower, 'GET', '/addresses')).body.data).to.deep.equal(borrower.party.addresses.map(answered))
      })

      it('refuses bad list parameters with 400 naming them', async () => {
        for (const [query, param] of [
          ['limit=0', 'limit'],
          ['limit=101', 'limit'],
          ['limit=abc', 'limit'],
          ['limit=1.5', 'limit'],
          ['cursor=%21%21', 'cursor'],
          ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
          ['type=registered', 'type'],
        ] as const) {
          expectInvalid(await party(owner, 'GET', `/addresses?${query}`), param, query)
        }
      })

      it("answers 404 'No such party.' on the address routes to a key whose party is not a borrower", async () => {
        const partner = owner.partnerKey
        const base = `/public/parties/${partner.party_id}/addresses`
        for (const [method, path, json] of [
          ['GET', base, undefined],
          ['POST', base, OPERATING],
          ['PATCH', `${base}/${registered['address_id'] as string}`, { city: 'X' }],
        ] as const) {
          const reply = await call(partner, method, path, json)
          expect(reply.status, `${method} ${path}`).to.equal(404)
          expect(reply.body, `${method} ${path}`).to.deep.equal(NO_SUCH_PARTY)
        }
      })

      it('holds at most 20 addresses', async () => {
        const count = (await party(owner, 'GET', '/addresses?limit=100')).body.data.length as number
        for (let i = count; i < 20; i += 1) {
          expect((await party(owner, 'POST', '/addresses', { ...OPERATING, type: 'mailing', line1: `PO Box ${i}` })).status).to.equal(201)
        }
        const full = await party(owner, 'POST', '/addresses', { ...OPERATING, type: 'mailing' })
        expect(full.status).to.equal(400)
        expect(full.body.error).to.equal('invalid_request')
        expect(full.body.detail).to.be.a('string')
        expect((await party(owner, 'GET', '/addresses?limit=100')).body.data).to.have.length(20)
      })
    })
  })
}
