import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { base62, crc32 } from './support/independent-checksum.js'
import { bearer, listingOf, type MintedKey, mintKey, type Reply, request } from './support/client.js'
import { MINT_SECRET, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const LIVE_KEY = /^lgk_live_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/
const KEYS = '/public/partner/api-keys'
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

const MINTED_FIELDS = ['api_key', 'api_key_id', 'key_prefix', 'party_id', 'client_id', 'client_name', 'environment', 'livemode', 'scopes', 'status', 'created_at']

const invalidMintKeyBody = { error: 'invalid_mint_key', detail: 'X-Partner-Mint-Key is missing or wrong.' }
const invalidApiKeyBody = { error: 'invalid_api_key', detail: 'The API key is not valid: it is malformed, unknown or revoked.' }
const notJsonBody = { error: 'invalid_request', detail: 'The request body is not valid JSON (an object or array is expected).' }

const mint = (url: string, json: unknown, headers: Record<string, string> = { 'X-Partner-Mint-Key': MINT_SECRET }): Promise<Reply> =>
  request(url, KEYS, { method: 'POST', headers, json })

const list = (url: string, key: string, query = ''): Promise<Reply> => request(url, `${KEYS}${query}`, { headers: bearer(key) })

const revoke = (url: string, key: string, apiKeyId: string): Promise<Reply> =>
  request(url, `${KEYS}/${apiKeyId}`, { method: 'DELETE', headers: bearer(key) })


/** The documented list order: `(created_at, id)` ascending, i.e. creation order. */
const inListOrder = (keys: readonly MintedKey[]): MintedKey[] =>
  [...keys].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.api_key_id.localeCompare(b.api_key_id))



for (const database of testDatabases()) {
  describe(`Key management on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    describe('POST /public/partner/api-keys', () => {
      it('answers 201 with exactly the pinned fields and a live key in the pinned format', async () => {
        const partyId = randomUUID()
        const reply = await mint(server.url, { party_id: partyId, client_name: 'acme-backend' })
        expect(reply.status).to.equal(201)
        expect(reply.headers.get('content-type')).to.match(/^application\/json/)
        expect(Object.keys(reply.body)).to.have.members(MINTED_FIELDS)
        const { api_key, api_key_id, key_prefix, client_id, created_at, ...rest } = reply.body
        expect(rest).to.deep.equal({
          party_id: partyId,
          client_name: 'acme-backend',
          environment: 'live',
          livemode: true,
          scopes: ['partner:api', 'keys:manage'],
          status: 'active',
        })
        expect(api_key).to.match(LIVE_KEY)
        expect(key_prefix).to.match(/^lgk_live_[0-9A-Za-z]{16}$/)
        expect(api_key.startsWith(`${key_prefix}_`)).to.equal(true)
        expect(api_key_id).to.match(UUID)
        expect(client_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
      })

      it('ends the key with the pinned CRC32 checksum of everything before it', async () => {
        const key = await mintKey(server.url)
        const body = key.api_key.slice(0, -6)
        expect(key.api_key.slice(-6)).to.equal(base62(crc32(new TextEncoder().encode(body)), 6))
      })

      it('applies the defaults: environment live, scopes partner:api and keys:manage, client name default', async () => {
        const partyId = randomUUID()
        const reply = await mint(server.url, { party_id: partyId })
        expect(reply.status).to.equal(201)
        const { api_key, api_key_id, key_prefix, client_id, created_at, ...rest } = reply.body
        expect(rest).to.deep.equal({
          party_id: partyId,
          client_name: 'default',
          environment: 'live',
          livemode: true,
          scopes: ['partner:api', 'keys:manage'],
          status: 'active',
        })
        expect(api_key).to.match(LIVE_KEY)
      })

      it('mints an lgk_test_ key for environment test', async () => {
        const reply = await mint(server.url, { party_id: randomUUID(), environment: 'test' })
        expect(reply.status).to.equal(201)
        expect(reply.body.environment).to.equal('test')
        expect(reply.body.livemode).to.equal(false)
        expect(reply.body.api_key).to.match(/^lgk_test_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/)
        expect(reply.body.key_prefix).to.match(/^lgk_test_[0-9A-Za-z]{16}$/)
      })

      it('stores the scopes it is given', async () => {
        const reply = await mint(server.url, { party_id: randomUUID(), scopes: ['partner:api'] })
        expect(reply.status).to.equal(201)
        expect(reply.body.scopes).to.deep.equal(['partner:api'])
      })

      it('adds a new key to the same API client for the same party and client name (rotation)', async () => {
        const partyId = randomUUID()
        const first = await mintKey(server.url, { party_id: partyId, client_name: 'rotating' })
        const second = await mintKey(server.url, { party_id: partyId, client_name: 'rotating' })
        expect(second.client_id).to.equal(first.client_id)
        expect(second.api_key_id).not.to.equal(first.api_key_id)
        expect(second.api_key).not.to.equal(first.api_key)
        expect(second.key_prefix).not.to.equal(first.key_prefix)
      })

      it('creates a different API client for a different client name of the same party', async () => {
        const partyId = randomUUID()
        const first = await mintKey(server.url, { party_id: partyId, client_name: 'backend' })
        const other = await mintKey(server.url, { party_id: partyId, client_name: 'batch-jobs' })
        expect(other.client_id).not.to.equal(first.client_id)
        expect(other.party_id).to.equal(partyId)
      })

      it('answers 401 invalid_mint_key when the mint key is missing', async () => {
        const reply = await mint(server.url, { party_id: randomUUID() }, {})
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(invalidMintKeyBody)
      })

      it('answers 401 invalid_mint_key when the mint key is wrong', async () => {
        for (const wrong of ['wrong', `${MINT_SECRET}x`, MINT_SECRET.slice(0, -1), MINT_SECRET.toUpperCase()]) {
          const reply = await mint(server.url, { party_id: randomUUID() }, { 'X-Partner-Mint-Key': wrong })
          expect(reply.status, wrong).to.equal(401)
          expect(reply.body).to.deep.equal(invalidMintKeyBody)
        }
      })

      it('does not accept a partner key in place of the mint key', async () => {
        const key = await mintKey(server.url)
        const reply = await mint(server.url, { party_id: randomUUID() }, bearer(key.api_key))
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(invalidMintKeyBody)
      })

      it('answers 400 invalid_request naming the scope for an unknown scope', async () => {
        const reply = await mint(server.url, { party_id: randomUUID(), scopes: ['partner:api', 'loans:write'] })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({
          error: 'invalid_request',
          detail: 'scopes.1 is not a known scope (known: partner:api, keys:manage, *, or <namespace>:*)',
          param: 'scopes.1',
        })
      })

      it('answers 400 invalid_request naming party_id when it is missing or not a UUID', async () => {
        const missing = await mint(server.url, { client_name: 'x' })
        expect(missing.status).to.equal(400)
        expect(missing.body).to.deep.equal({ error: 'invalid_request', detail: 'party_id is required', param: 'party_id' })
        const malformed = await mint(server.url, { party_id: 'not-a-uuid' })
        expect(malformed.status).to.equal(400)
        expect(malformed.body).to.deep.equal({ error: 'invalid_request', detail: 'party_id must be a UUID', param: 'party_id' })
      })

      it('answers 400 invalid_request naming an unknown field', async () => {
        const reply = await mint(server.url, { party_id: randomUUID(), clientName: 'typo' })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'clientName is not a known field', param: 'clientName' })
      })

      it('answers 400 invalid_request naming environment for an unknown environment', async () => {
        const reply = await mint(server.url, { party_id: randomUUID(), environment: 'prod' })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'environment must be one of: live, test', param: 'environment' })
      })

      it('answers 400 invalid_request for a body that is not JSON by content type', async () => {
        const reply = await request(server.url, KEYS, {
          method: 'POST',
          headers: { 'X-Partner-Mint-Key': MINT_SECRET, 'Content-Type': 'text/plain' },
          rawBody: JSON.stringify({ party_id: randomUUID() }),
        })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'Content-Type must be application/json.' })
      })

      it('answers 400 invalid_request for malformed JSON', async () => {
        const reply = await request(server.url, KEYS, {
          method: 'POST',
          headers: { 'X-Partner-Mint-Key': MINT_SECRET, 'Content-Type': 'application/json' },
          rawBody: '{"party_id":',
        })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal(notJsonBody)
      })
    })

    describe('POST /public/partner/api-keys on a server without a mint secret', () => {
      let misconfigured: TestServer
      before(async () => {
        misconfigured = await startTestServer(database, { partnerMintSecret: undefined })
      })
      after(async () => misconfigured.stop())

      it('answers 500 server_misconfigured naming the missing setting', async () => {
        const reply = await mint(misconfigured.url, { party_id: randomUUID() })
        expect(reply.status).to.equal(500)
        expect(reply.body).to.deep.equal({
          error: 'server_misconfigured',
          detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it).",
        })
      })
    })

    describe('GET /public/partner/api-keys', () => {
      it("answers 200 with exactly the listing fields of the caller's client's keys and never the secret", async () => {
        const partyId = randomUUID()
        const first = await mintKey(server.url, { party_id: partyId, client_name: 'lister' })
        const second = await mintKey(server.url, { party_id: partyId, client_name: 'lister', scopes: ['partner:api'] })
        const inTest = await mintKey(server.url, { party_id: partyId, client_name: 'lister', environment: 'test' })
        const reply = await list(server.url, first.api_key)
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: inListOrder([first, second]).map(listingOf), next_cursor: null })
        // The client's test key lists its test keys only, and a live key lists none of them (decision 128).
        expect((await list(server.url, inTest.api_key)).body).to.deep.equal({ data: [listingOf(inTest)], next_cursor: null })
        for (const record of reply.body.data) {
          expect(Object.keys(record)).to.have.members(['api_key_id', 'key_prefix', 'status', 'created_at', 'revoked_at', 'last_used_at', 'scopes', 'environment', 'livemode'])
        }
        expect(reply.text).not.to.contain(first.api_key)
        expect(reply.text).not.to.contain(second.api_key)
        expect(reply.text).not.to.contain(first.api_key.slice(first.key_prefix.length + 1))
      })

      it("lists only the caller's client's keys, not another client's of the same party nor another party's", async () => {
        const partyId = randomUUID()
        const mine = await mintKey(server.url, { party_id: partyId, client_name: 'mine' })
        const sameParty = await mintKey(server.url, { party_id: partyId, client_name: 'theirs' })
        const otherParty = await mintKey(server.url, { client_name: 'mine' })
        const reply = await list(server.url, mine.api_key)
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: [listingOf(mine)], next_cursor: null })
        expect(reply.text).not.to.contain(sameParty.api_key_id)
        expect(reply.text).not.to.contain(otherParty.api_key_id)
      })

      it('walks every key page by page with ?limit=1 following next_cursor, in creation order', async () => {
        const partyId = randomUUID()
        const keys: MintedKey[] = []
        for (let i = 0; i < 4; i += 1) keys.push(await mintKey(server.url, { party_id: partyId, client_name: 'pager' }))
        for (let i = 1; i < keys.length; i += 1) expect(keys[i]!.created_at >= keys[i - 1]!.created_at).to.equal(true)
        const expected = inListOrder(keys)
        const seen: unknown[] = []
        let cursor: string | null = null
        let pages = 0
        do {
          const query: string = `?limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
          const page = await list(server.url, keys[0]!.api_key, query)
          expect(page.status, query).to.equal(200)
          expect(page.body.data).to.have.length(1)
          const isLast: boolean = pages === keys.length - 1
          if (isLast) expect(page.body.next_cursor).to.equal(null)
          else expect(page.body.next_cursor).to.be.a('string').and.match(/^[A-Za-z0-9_-]+$/)
          seen.push(page.body.data[0])
          cursor = page.body.next_cursor
          pages += 1
        } while (cursor !== null && pages <= keys.length)
        expect(pages).to.equal(keys.length)
        expect(seen).to.deep.equal(expected.map(listingOf))
      })

      it('answers 400 invalid_request naming limit for ?limit=0 and ?limit=101', async () => {
        const key = await mintKey(server.url)
        for (const limit of ['0', '101', 'ten', '-1']) {
          const reply = await list(server.url, key.api_key, `?limit=${limit}`)
          expect(reply.status, limit).to.equal(400)
          expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'limit must be an integer from 1 to 100', param: 'limit' })
        }
      })

      it('accepts the limit bounds 1 and 100', async () => {
        const key = await mintKey(server.url)
        for (const limit of ['1', '100']) {
          const reply = await list(server.url, key.api_key, `?limit=${limit}`)
          expect(reply.status, limit).to.equal(200)
          expect(reply.body).to.deep.equal({ data: [listingOf(key)], next_cursor: null })
        }
      })

      it('answers 400 invalid_request naming cursor for a cursor it did not issue', async () => {
        const key = await mintKey(server.url)
        for (const cursor of ['junk', 'bm9wZQ', '%25%25%25', 'W10']) {
          const reply = await list(server.url, key.api_key, `?cursor=${cursor}`)
          expect(reply.status, cursor).to.equal(400)
          expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'cursor is not a cursor returned by this list', param: 'cursor' })
        }
      })

      it('answers 403 insufficient_scope naming keys:manage for a key without it', async () => {
        const key = await mintKey(server.url, { scopes: ['partner:api'] })
        const reply = await list(server.url, key.api_key)
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal({ error: 'insufficient_scope', detail: 'This API key lacks the scope keys:manage.', scope: 'keys:manage' })
      })

      it('lets keys with the wildcard scopes * and keys:* list', async () => {
        for (const scopes of [['*'], ['keys:*']]) {
          const key = await mintKey(server.url, { scopes })
          const reply = await list(server.url, key.api_key)
          expect(reply.status, scopes[0]).to.equal(200)
          expect(reply.body).to.deep.equal({ data: [listingOf(key)], next_cursor: null })
        }
      })

      it('lets a partner:* key create sessions but not list keys', async () => {
        const key = await mintKey(server.url, { scopes: ['partner:*'] })
        const created = await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: SESSION_INPUT })
        expect(created.status).to.equal(201)
        const reply = await list(server.url, key.api_key)
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal({ error: 'insufficient_scope', detail: 'This API key lacks the scope keys:manage.', scope: 'keys:manage' })
      })

      it('answers 401 missing_api_key without a key', async () => {
        const reply = await request(server.url, KEYS)
        expect(reply.status).to.equal(401)
        expect(reply.body.error).to.equal('missing_api_key')
      })
    })

    describe('DELETE /public/partner/api-keys/{apiKeyId}', () => {
      it("answers 200 with the key's listing record, status revoked and revoked_at set", async () => {
        const partyId = randomUUID()
        const manager = await mintKey(server.url, { party_id: partyId, client_name: 'revoker' })
        const target = await mintKey(server.url, { party_id: partyId, client_name: 'revoker' })
        const reply = await revoke(server.url, manager.api_key, target.api_key_id)
        expect(reply.status).to.equal(200)
        const { revoked_at, ...rest } = reply.body
        const { revoked_at: _none, ...expected } = listingOf(target)
        expect(rest).to.deep.equal({ ...expected, status: 'revoked' })
        expect(revoked_at).to.match(ISO_MS)
        expect(Date.parse(revoked_at)).to.be.at.least(Date.parse(target.created_at))
        expect(reply.text).not.to.contain(target.api_key)
        const listed = await list(server.url, manager.api_key)
        expect(listed.body.data.find((k: { api_key_id: string }) => k.api_key_id === target.api_key_id)).to.deep.equal(reply.body)
      })

      it('answers 200 with the same record when the key is revoked twice', async () => {
        const partyId = randomUUID()
        const manager = await mintKey(server.url, { party_id: partyId, client_name: 'twice' })
        const target = await mintKey(server.url, { party_id: partyId, client_name: 'twice' })
        const first = await revoke(server.url, manager.api_key, target.api_key_id)
        const again = await revoke(server.url, manager.api_key, target.api_key_id)
        expect(first.status).to.equal(200)
        expect(again.status).to.equal(200)
        expect(again.body).to.deep.equal(first.body)
      })

      it("answers 404 not_found for another client's key and leaves that key working", async () => {
        const partyId = randomUUID()
        const owner = await mintKey(server.url, { party_id: partyId, client_name: 'owner' })
        const sameParty = await mintKey(server.url, { party_id: partyId, client_name: 'stranger' })
        const otherParty = await mintKey(server.url)
        for (const stranger of [sameParty, otherParty]) {
          const reply = await revoke(server.url, stranger.api_key, owner.api_key_id)
          expect(reply.status).to.equal(404)
          expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No such api key.' })
        }
        const listed = await list(server.url, owner.api_key)
        expect(listed.status).to.equal(200)
        expect(listed.body.data[0].status).to.equal('active')
      })

      it('answers 404 not_found for an unknown key id', async () => {
        const key = await mintKey(server.url)
        const reply = await revoke(server.url, key.api_key, randomUUID())
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No such api key.' })
      })

      it('answers 400 invalid_request naming apiKeyId for a malformed id', async () => {
        const key = await mintKey(server.url)
        const reply = await revoke(server.url, key.api_key, 'not-a-uuid')
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'apiKeyId must be a UUID', param: 'apiKeyId' })
      })

      it('refuses the revoked key on the very next request with 401 invalid_api_key and WWW-Authenticate', async () => {
        const key = await mintKey(server.url)
        expect((await revoke(server.url, key.api_key, key.api_key_id)).status).to.equal(200)
        const reply = await list(server.url, key.api_key)
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(invalidApiKeyBody)
        expect(reply.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"')
      })

      it('rotates: a new key of the same client keeps working after the old one is revoked', async () => {
        const partyId = randomUUID()
        const old = await mintKey(server.url, { party_id: partyId, client_name: 'rotation' })
        const fresh = await mintKey(server.url, { party_id: partyId, client_name: 'rotation' })
        expect((await revoke(server.url, fresh.api_key, old.api_key_id)).status).to.equal(200)
        expect((await list(server.url, old.api_key)).status).to.equal(401)
        const listed = await list(server.url, fresh.api_key)
        expect(listed.status).to.equal(200)
        expect(listed.body.data.map((k: { api_key_id: string; status: string }) => [k.api_key_id, k.status])).to.deep.equal(
          inListOrder([old, fresh]).map((k) => [k.api_key_id, k === old ? 'revoked' : 'active']),
        )
      })

      it('answers 403 insufficient_scope for a key without keys:manage', async () => {
        const key = await mintKey(server.url, { scopes: ['partner:api'] })
        const reply = await revoke(server.url, key.api_key, key.api_key_id)
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal({ error: 'insufficient_scope', detail: 'This API key lacks the scope keys:manage.', scope: 'keys:manage' })
      })
    })

    describe('last_used_at', () => {
      let flushing: TestServer
      before(async () => {
        flushing = await startTestServer(database, { keyUsageFlushMs: 100 })
      })
      after(async () => flushing.stop())

      it('becomes a timestamp shortly after the key is used', async () => {
        const key = await mintKey(flushing.url)
        const usedFrom = Date.now()
        expect((await list(flushing.url, key.api_key)).status).to.equal(200)
        await new Promise((resolve) => setTimeout(resolve, 300))
        const reply = await list(flushing.url, key.api_key)
        expect(reply.status).to.equal(200)
        const lastUsedAt = reply.body.data[0].last_used_at
        expect(lastUsedAt).to.be.a('string').and.match(ISO_MS)
        expect(Date.parse(lastUsedAt)).to.be.at.least(Date.parse(key.created_at))
        expect(Date.parse(lastUsedAt)).to.be.at.least(usedFrom - 5)
        expect(Date.parse(lastUsedAt)).to.be.at.most(Date.now())
      })
    })
  })
}
