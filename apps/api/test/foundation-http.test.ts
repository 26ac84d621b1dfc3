import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { testDatabases } from '@lendgate/adapters/testing'
import { storeUnavailable } from '@lendgate/core'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { allRoutes } from '../src/app.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { sendRaw } from './support/fuzz-arbitraries.js'
import { INTERNAL_TOKEN, MINT_SECRET, startInMemoryServer, startTestServer, testConfig, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

const createSession = (url: string, headers: Record<string, string>, json: unknown = SESSION_INPUT): Promise<Reply> =>
  request(url, '/public/onboarding-sessions', { method: 'POST', headers, json })

const mint = (url: string, json: unknown, headers: Record<string, string> = { 'X-Partner-Mint-Key': MINT_SECRET }): Promise<Reply> =>
  request(url, '/public/partner/api-keys', { method: 'POST', headers, json })

const invalidApiKeyBody = { error: 'invalid_api_key', detail: 'The API key is not valid: it is malformed, unknown or revoked.' }
const missingApiKeyBody = {
  error: 'missing_api_key',
  detail: 'Send your API key as "Authorization: Bearer <key>" or in the X-Api-Key header.',
}
const partyMismatchBody = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }

for (const database of testDatabases()) {
  describe(`HTTP foundation on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    describe('POST /public/partner/api-keys', () => {
      it('answers 201 with the pinned fields and a key in the pinned format', async () => {
        const partyId = randomUUID()
        const reply = await mint(server.url, { party_id: partyId, client_name: 'acme-backend' })
        expect(reply.status).to.equal(201)
        const { api_key, api_key_id, key_prefix, client_id, created_at, ...rest } = reply.body
        expect(rest).to.deep.equal({
          livemode: true,
          party_id: partyId,
          client_name: 'acme-backend',
          environment: 'live',
          scopes: ['partner:api', 'keys:manage'],
          status: 'active',
        })
        expect(api_key).to.match(/^lgk_live_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$/)
        expect(api_key.startsWith(`${key_prefix}_`)).to.equal(true)
        expect(key_prefix).to.match(/^lgk_live_[0-9A-Za-z]{16}$/)
        expect(api_key_id).to.match(UUID)
        expect(client_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
      })

      it('mints test keys, custom scopes and adds keys to the same client for the same party and name', async () => {
        const partyId = randomUUID()
        const first = await mintKey(server.url, { party_id: partyId, client_name: 'rotating' })
        const second = await mintKey(server.url, { party_id: partyId, client_name: 'rotating', environment: 'test', scopes: ['partner:*'] })
        const other = await mintKey(server.url, { party_id: partyId, client_name: 'another' })
        expect(second.client_id).to.equal(first.client_id)
        expect(other.client_id).not.to.equal(first.client_id)
        expect(second.api_key.startsWith('lgk_test_')).to.equal(true)
        expect(second.scopes).to.deep.equal(['partner:*'])
      })

      it('answers 401 invalid_mint_key for a missing or wrong mint key', async () => {
        for (const headers of [{}, { 'X-Partner-Mint-Key': 'wrong' }, { 'X-Partner-Mint-Key': `${MINT_SECRET}x` }] as Record<string, string>[]) {
          const reply = await mint(server.url, { party_id: randomUUID() }, headers)
          expect(reply.status).to.equal(401)
          expect(reply.body).to.deep.equal({ error: 'invalid_mint_key', detail: 'X-Partner-Mint-Key is missing or wrong.' })
        }
      })

      it('answers 400 invalid_request naming the field for invalid input', async () => {
        const cases: [unknown, string, string][] = [
          [{}, 'party_id is required', 'party_id'],
          [{ party_id: 'nope' }, 'party_id must be a UUID', 'party_id'],
          [{ party_id: randomUUID(), scopes: ['loans:write'] }, 'scopes.0 is not a known scope (known: partner:api, keys:manage, *, or <namespace>:*)', 'scopes.0'],
          [{ party_id: randomUUID(), scopes: [] }, 'scopes must have between 1 and 20 items', 'scopes'],
          [{ party_id: randomUUID(), environment: 'prod' }, 'environment must be one of: live, test', 'environment'],
          [{ party_id: randomUUID(), clientName: 'x' }, 'clientName is not a known field', 'clientName'],
        ]
        for (const [json, detail, param] of cases) {
          const reply = await mint(server.url, json)
          expect(reply.status, JSON.stringify(json)).to.equal(400)
          expect(reply.body).to.deep.equal({ error: 'invalid_request', detail, param })
        }
      })
    })

    describe('authentication', () => {
      it('accepts the key as a Bearer token (any case of the scheme) and in X-Api-Key', async () => {
        const key = await mintKey(server.url)
        for (const headers of [bearer(key.api_key), { Authorization: `bearer ${key.api_key}` }, { 'X-Api-Key': key.api_key }]) {
          expect((await createSession(server.url, headers)).status).to.equal(201)
        }
      })

      it('answers 401 missing_api_key with WWW-Authenticate when no key is sent', async () => {
        const reply = await createSession(server.url, {})
        expect(reply.status).to.equal(401)
        expect(reply.headers.get('www-authenticate')).to.equal('Bearer')
        expect(reply.body).to.deep.equal(missingApiKeyBody)
      })

      it('ignores a Bearer value without the key prefix, and then uses X-Api-Key', async () => {
        const key = await mintKey(server.url)
        expect((await createSession(server.url, { Authorization: 'Bearer some-session-jwt' })).body).to.deep.equal(missingApiKeyBody)
        const reply = await createSession(server.url, { Authorization: 'Bearer some-session-jwt', 'X-Api-Key': key.api_key })
        expect(reply.status).to.equal(201)
      })

      it('answers 401 invalid_api_key for malformed, tampered, unknown and revoked keys', async () => {
        const key = await mintKey(server.url)
        const last = key.api_key.slice(-1)
        const tampered = key.api_key.slice(0, -1) + (last === 'a' ? 'b' : 'a')
        const [env, , id] = key.key_prefix.split('_')
        const unknown = (await mintKey(server.url)).api_key.replace(/_[0-9A-Za-z]{16}_/, `_${id === 'AAAAAAAAAAAAAAAA' ? 'B' : 'A'}${'A'.repeat(15)}_`)
        for (const presented of ['lgk_garbage', tampered, unknown, `lgk_${env}_${id}_${'x'.repeat(38)}`]) {
          const reply = await createSession(server.url, bearer(presented))
          expect(reply.status, presented).to.equal(401)
          expect(reply.body).to.deep.equal(invalidApiKeyBody)
          expect(reply.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"')
        }
      })

      it('refuses a revoked key on the very next request', async () => {
        const key = await mintKey(server.url)
        const revoked = await request(server.url, `/public/partner/api-keys/${key.api_key_id}`, { method: 'DELETE', headers: bearer(key.api_key) })
        expect(revoked.status).to.equal(200)
        const reply = await createSession(server.url, bearer(key.api_key))
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(invalidApiKeyBody)
      })

      it('honours wildcard scopes and refuses a missing scope with 403 insufficient_scope', async () => {
        const all = await mintKey(server.url, { scopes: ['*'] })
        const keysOnly = await mintKey(server.url, { scopes: ['keys:*'] })
        const partnerOnly = await mintKey(server.url, { scopes: ['partner:*'] })
        expect((await request(server.url, '/public/partner/api-keys', { headers: bearer(all.api_key) })).status).to.equal(200)
        expect((await createSession(server.url, bearer(all.api_key))).status).to.equal(201)
        expect((await request(server.url, '/public/partner/api-keys', { headers: bearer(keysOnly.api_key) })).status).to.equal(200)
        expect((await createSession(server.url, bearer(partnerOnly.api_key))).status).to.equal(201)
        const list = await request(server.url, '/public/partner/api-keys', { headers: bearer(partnerOnly.api_key) })
        expect(list.status).to.equal(403)
        expect(list.body).to.deep.equal({ error: 'insufficient_scope', detail: 'This API key lacks the scope keys:manage.', scope: 'keys:manage' })
        const create = await createSession(server.url, bearer(keysOnly.api_key))
        expect(create.status).to.equal(403)
        expect(create.body).to.deep.equal({ error: 'insufficient_scope', detail: 'This API key lacks the scope partner:api.', scope: 'partner:api' })
      })

      it("answers 403 party_mismatch for another party's path before checking scopes, whether or not the id is a UUID", async () => {
        const key = await mintKey(server.url)
        const narrow = await mintKey(server.url, { scopes: ['keys:manage'] })
        for (const [k, path] of [
          [key, `/public/parties/${randomUUID()}/loans`],
          [key, '/public/parties/not-a-uuid'],
          [narrow, `/public/parties/${randomUUID()}/addresses`],
        ] as const) {
          const reply = await request(server.url, path, { headers: bearer(k.api_key) })
          expect(reply.status, path).to.equal(403)
          expect(reply.body).to.deep.equal(partyMismatchBody)
        }
        const own = await request(server.url, `/public/parties/${key.party_id.toUpperCase()}/loans`, { headers: bearer(key.api_key) })
        expect(own.status).to.equal(200)
        expect(own.body).to.deep.equal({ data: [], next_cursor: null })
      })

      it('lets /health and /health/ready through without a key', async () => {
        expect((await request(server.url, '/health')).body).to.deep.equal({ status: 'ok' })
        const ready = await request(server.url, '/health/ready')
        expect(ready.status).to.equal(200)
        expect(ready.body).to.deep.equal({ status: 'ready', database: 'up' })
      })

      it('accepts only the internal token on /internal, never a partner key', async () => {
        const key = await mintKey(server.url)
        const path = `/internal/applications/${randomUUID()}/approve`
        for (const headers of [bearer(key.api_key), { 'X-Api-Key': key.api_key }, {}]) {
          const reply = await request(server.url, path, { method: 'POST', headers })
          expect(reply.status).to.equal(401)
          expect(reply.body.error).to.equal('invalid_internal_token')
        }
        const ok = await request(server.url, path, { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
        expect(ok.status).to.equal(404)
        expect(ok.body).to.deep.equal({ error: 'not_found', detail: 'No such loan application.' })
      })
    })

    describe('onboarding sessions', () => {
      it('creates a session (201) and reads it back (200) through /public/v1 too', async () => {
        const key = await mintKey(server.url)
        const created = await request(server.url, '/public/v1/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: SESSION_INPUT })
        expect(created.status).to.equal(201)
        const { session_id, created_at, updated_at, ...rest } = created.body
        expect(rest).to.deep.equal({ ...SESSION_INPUT, status: 'IN_PROGRESS', current_step: 'PHONE_VERIFICATION', livemode: true })
        expect(session_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
        expect(updated_at).to.equal(created_at)
        for (const path of [`/public/onboarding-sessions/${session_id}`, `/public/v1/onboarding-sessions/${session_id}`]) {
          const read = await request(server.url, path, { headers: bearer(key.api_key) })
          expect(read.status).to.equal(200)
          expect(read.body).to.deep.equal(created.body)
        }
      })

      it("answers 404 for another client's session and an unknown one, 400 for a malformed id", async () => {
        const owner = await mintKey(server.url)
        const stranger = await mintKey(server.url)
        const created = await createSession(server.url, bearer(owner.api_key))
        for (const id of [created.body.session_id, randomUUID()]) {
          const reply = await request(server.url, `/public/onboarding-sessions/${id}`, { headers: bearer(stranger.api_key) })
          expect(reply.status).to.equal(404)
          expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No such onboarding session.' })
        }
        const malformed = await request(server.url, '/public/onboarding-sessions/123', { headers: bearer(owner.api_key) })
        expect(malformed.status).to.equal(400)
        expect(malformed.body).to.deep.equal({ error: 'invalid_request', detail: 'sessionId must be a UUID', param: 'sessionId' })
      })

      it('answers 400 for invalid or malformed bodies and 413 for a body over 1 MiB', async () => {
        const key = await mintKey(server.url)
        const headers = bearer(key.api_key)
        const { country_of_incorporation: _c, ...noCountry } = SESSION_INPUT
        const { locale: _l, ...noLocale } = SESSION_INPUT
        const cases: [RequestInit & { json?: unknown; rawBody?: string; headers?: Record<string, string> }, Record<string, unknown>][] = [
          [{ json: noCountry }, { error: 'invalid_request', detail: 'country_of_incorporation is required', param: 'country_of_incorporation' }],
          [{ json: noLocale }, { error: 'invalid_request', detail: 'locale is required', param: 'locale' }],
          [{ json: { ...SESSION_INPUT, country_of_incorporation: 'us' } }, { error: 'invalid_request', detail: 'country_of_incorporation must be an ISO 3166-1 alpha-2 country code in upper case, such as US', param: 'country_of_incorporation' }],
          [{ json: { ...SESSION_INPUT, locale: 'en_US' } }, { error: 'invalid_request', detail: 'locale must be a language-region tag such as en-US', param: 'locale' }],
          [{ json: { ...SESSION_INPUT, type: 'individual' } }, { error: 'invalid_request', detail: 'type must be one of: business', param: 'type' }],
          [{ json: [SESSION_INPUT] }, { error: 'invalid_request', detail: 'The request body must be a JSON object' }],
          [{ rawBody: '{"country_of_incorporation":', headers: { 'Content-Type': 'application/json' } }, { error: 'invalid_request', detail: 'The request body is not valid JSON (an object or array is expected).' }],
          [{ rawBody: '"text"', headers: { 'Content-Type': 'application/json' } }, { error: 'invalid_request', detail: 'The request body is not valid JSON (an object or array is expected).' }],
          [{ rawBody: 'country=US', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }, { error: 'invalid_request', detail: 'Content-Type must be application/json.' }],
          [{ rawBody: '{"__proto__":{"admin":true},"country_of_incorporation":"US","locale":"en-US"}', headers: { 'Content-Type': 'application/json' } }, { error: 'invalid_request', detail: 'The request body is not valid JSON (an object or array is expected).' }],
        ]
        for (const [options, body] of cases) {
          const reply = await request(server.url, '/public/onboarding-sessions', {
            method: 'POST',
            headers: { ...headers, ...(options.headers ?? {}) },
            ...(options.json === undefined ? {} : { json: options.json }),
            ...(options.rawBody === undefined ? {} : { rawBody: options.rawBody }),
          })
          expect(reply.status, JSON.stringify(options)).to.equal(400)
          expect(reply.body).to.deep.equal(body)
        }
        for (const encoding of ['gzip', 'deflate', 'br']) {
          const corrupt = await request(server.url, '/public/onboarding-sessions', {
            method: 'POST',
            headers: { ...headers, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
            rawBody: '{a:1}',
          })
          expect(corrupt.status, encoding).to.equal(400)
          expect(corrupt.body, encoding).to.deep.equal({
            error: 'invalid_request',
            detail: 'The request body could not be decompressed (Content-Encoding does not match the body).',
          })
        }
        const noBody = await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers })
        expect(noBody.status).to.equal(400)
        expect(noBody.body).to.deep.equal({ error: 'invalid_request', detail: 'A JSON body is required (Content-Type: application/json).' })
        const huge = await createSession(server.url, headers, { ...SESSION_INPUT, padding: 'x'.repeat(1_100_000) })
        expect(huge.status).to.equal(413)
        expect(huge.body).to.deep.equal({ error: 'payload_too_large', detail: 'The request body exceeds 1048576 bytes.' })
      })
    })

    describe('GET and DELETE /public/partner/api-keys', () => {
      it("lists only the caller's client's keys, masked, page by page in creation order", async () => {
        const partyId = randomUUID()
        const keys = []
        for (let i = 0; i < 3; i += 1) keys.push(await mintKey(server.url, { party_id: partyId, client_name: 'lister' }))
        await mintKey(server.url, { party_id: partyId, client_name: 'someone-else' })
        const seen: string[] = []
        let cursor: string | null = null
        do {
          const path: string = `/public/partner/api-keys?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`
          const page = await request(server.url, path, { headers: bearer(keys[0]!.api_key) })
          expect(page.status).to.equal(200)
          expect(page.body.data).to.have.length(1)
          for (const k of keys) expect(page.text).not.to.contain(k.api_key)
          seen.push(page.body.data[0].api_key_id)
          cursor = page.body.next_cursor
        } while (cursor !== null)
        expect(seen).to.deep.equal(keys.map((k) => k.api_key_id))
        const all = await request(server.url, '/public/partner/api-keys', { headers: bearer(keys[0]!.api_key) })
        expect(all.body.next_cursor).to.equal(null)
        expect(all.body.data[0]).to.deep.equal({
          livemode: true,
          api_key_id: keys[0]!.api_key_id,
          key_prefix: keys[0]!.key_prefix,
          status: 'active',
          environment: 'live',
          scopes: ['partner:api', 'keys:manage'],
          created_at: keys[0]!.created_at,
          revoked_at: null,
          last_used_at: null,
        })
      })

      it('answers 400 for a bad limit, cursor or unknown query parameter', async () => {
        const key = await mintKey(server.url)
        const forged = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'not-a-uuid'])).toString('base64url')
        for (const [query, param] of [[`cursor=${forged}`, 'cursor'], ['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=ten', 'limit'], ['cursor=%%%', 'cursor'], ['cursor=bm9wZQ', 'cursor'], ['sort=desc', 'sort']]) {
          const reply = await request(server.url, `/public/partner/api-keys?${query}`, { headers: bearer(key.api_key) })
          expect(reply.status, query).to.equal(400)
          expect(reply.body.error).to.equal('invalid_request')
          expect(reply.body.param).to.equal(param)
        }
      })

      it("revokes a key (twice is fine), and another client's key is 404", async () => {
        const partyId = randomUUID()
        const a = await mintKey(server.url, { party_id: partyId, client_name: 'revoker' })
        const b = await mintKey(server.url, { party_id: partyId, client_name: 'revoker' })
        const stranger = await mintKey(server.url)
        const first = await request(server.url, `/public/partner/api-keys/${b.api_key_id}`, { method: 'DELETE', headers: bearer(a.api_key) })
        expect(first.status).to.equal(200)
        expect(first.body.status).to.equal('revoked')
        expect(first.body.revoked_at).to.match(ISO_MS)
        const again = await request(server.url, `/public/partner/api-keys/${b.api_key_id}`, { method: 'DELETE', headers: bearer(a.api_key) })
        expect(again.status).to.equal(200)
        expect(again.body).to.deep.equal(first.body)
        const foreign = await request(server.url, `/public/partner/api-keys/${a.api_key_id}`, { method: 'DELETE', headers: bearer(stranger.api_key) })
        expect(foreign.status).to.equal(404)
        expect(foreign.body).to.deep.equal({ error: 'not_found', detail: 'No such api key.' })
        expect((await createSession(server.url, bearer(a.api_key))).status).to.equal(201)
      })
    })

    describe('routing and cross-cutting behaviour', () => {
      it('reads a body the route does not take before answering, so the whole answer arrives', async () => {
        // Answering and closing while the client still sends makes its TCP stack reset the
        // connection and drop the answer: found by the fuzzing suite with a 195 KB GET body.
        // An authenticated partner's is read up to the body limit; anyone else's up to 64 KiB.
        const key = await mintKey(server.url)
        const cases = [
          { path: '/public/partner/api-keys', credentials: [['Authorization', `Bearer ${key.api_key}`]] as [string, string][], sizes: [400_000, 900_000, 50_000] },
          { path: '/public/openapi.json', credentials: [] as [string, string][], sizes: [60_000, 10_000] },
        ]
        for (const { path, credentials, sizes } of cases) {
          for (const [contentType, size] of [['', sizes[0]!], ['text/plain', sizes[1]!], ['application/octet-stream', sizes[2] ?? sizes[1]!]] as const) {
            const headers: [string, string][] = [...credentials, ...(contentType === '' ? [] : [['Content-Type', contentType] as [string, string]])]
            for (const chunked of [false, true]) {
              const reply = await sendRaw(server.url, { method: 'GET', path, headers, body: Buffer.alloc(size, 'x'), chunked })
              expect(reply.status, `${path} ${contentType} ${size} chunked=${chunked}`).to.equal(200)
              expect(reply.text.length, `${path} ${contentType} ${size} chunked=${chunked}`).to.be.greaterThan(0)
              JSON.parse(reply.text)
            }
          }
        }
        const tooLarge = await sendRaw(server.url, { method: 'GET', path: '/public/openapi.json', headers: [['Content-Type', 'text/plain']], body: Buffer.alloc(1_100_000, 'x') })
        expect(tooLarge.status).to.equal(413)
      })

      it('closes the connection after answering a keyless request whose unread body passes 64 KiB', async () => {
        const { hostname, port } = new URL(server.url)
        const closed = await new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => {
            socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: ${500_000}\r\n\r\n`)
            socket.write(Buffer.alloc(100_000, 'x'))
          })
          let text = ''
          socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
          socket.on('close', () => resolve(text))
          socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(text) : reject(error)))
        })
        expect(closed).to.match(/^HTTP\/1\.1 200 /)
        expect(closed).to.match(/\r\nConnection: close\r\n/i)
      })

      it('answers every placeholder operation with 501 and its operationId, and 401 without a key', async () => {
        const implemented = new Set(Object.keys(allRoutes(server.deps, testConfig())))
        const key = await mintKey(server.url)
        for (const op of OPERATIONS.filter((o) => !implemented.has(o.operationId) && o.auth === 'partner')) {
          const path = op.path.replace(':partyId', key.party_id).replace(/:[A-Za-z]+/g, () => randomUUID())
          const json = op.method === 'GET' || op.method === 'DELETE' ? undefined : {}
          const reply = await request(server.url, path, { method: op.method, headers: bearer(key.api_key), ...(json === undefined ? {} : { json }) })
          expect(reply.status, op.operationId).to.equal(501)
          expect(reply.body).to.deep.equal({ error: 'not_implemented', operation_id: op.operationId })
          expect((await request(server.url, path, { method: op.method })).status, op.operationId).to.equal(401)
        }
      })

      it('answers 404 for an unknown route and 405 with Allow for a known path', async () => {
        const unknown = await request(server.url, '/public/nothing-here')
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal({ error: 'not_found', detail: 'No route for GET /public/nothing-here.' })
        const wrong = await request(server.url, '/health', { method: 'DELETE' })
        expect(wrong.status).to.equal(405)
        expect(wrong.headers.get('allow')).to.equal('HEAD, GET, OPTIONS')
        expect(wrong.body.error).to.equal('method_not_allowed')
      })

      it('sets X-Request-Id on every response, keeping a sane incoming one', async () => {
        expect((await request(server.url, '/health')).headers.get('x-request-id')).to.match(UUID)
        expect((await request(server.url, '/health', { headers: { 'X-Request-Id': 'req-abc.123' } })).headers.get('x-request-id')).to.equal('req-abc.123')
        for (const insane of ['x'.repeat(200), 'has spaces in it']) {
          expect((await request(server.url, '/health', { headers: { 'X-Request-Id': insane } })).headers.get('x-request-id')).to.match(UUID)
        }
      })

      it('types every JSON answer application/json; charset=utf-8: results, problems, replays and 204s without a type', async () => {
        const JSON_TYPE = 'application/json; charset=utf-8'
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': `idem-${randomUUID()}` }
        const created = await createSession(server.url, headers)
        const replayed = await createSession(server.url, headers)
        const read = await request(server.url, `/public/onboarding-sessions/${created.body.session_id}`, { headers: bearer(key.api_key) })
        const refused = await request(server.url, `/public/onboarding-sessions/${created.body.session_id}`, { headers: bearer(`${key.api_key}x`) })
        const missing = await request(server.url, '/public/no-such-route')
        const invalid = await createSession(server.url, bearer(key.api_key), { ...SESSION_INPUT, locale: 42 })
        expect([created, replayed, read, refused, missing, invalid].map((r) => [r.status, r.headers.get('content-type')])).to.deep.equal([
          [201, JSON_TYPE],
          [201, JSON_TYPE],
          [200, JSON_TYPE],
          [401, JSON_TYPE],
          [404, JSON_TYPE],
          [400, JSON_TYPE],
        ])
        const options = await request(server.url, '/public/onboarding-sessions', { method: 'OPTIONS' })
        expect(options.status).to.equal(204)
        expect(options.headers.get('content-type')).to.equal(null)
      })

      it('replays an idempotent create and refuses the key for a different request', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': `idem-${randomUUID()}` }
        const first = await createSession(server.url, headers)
        const replay = await createSession(server.url, headers)
        expect(first.status).to.equal(201)
        expect(replay.status).to.equal(201)
        expect(replay.body).to.deep.equal(first.body)
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        expect(first.headers.get('idempotent-replayed')).to.equal(null)
        const different = await createSession(server.url, headers, { ...SESSION_INPUT, locale: 'en-GB' })
        expect(different.status).to.equal(422)
        expect(different.body.error).to.equal('idempotency_key_reused')
        const otherClient = await mintKey(server.url)
        const independent = await createSession(server.url, { ...headers, ...bearer(otherClient.api_key) })
        expect(independent.status).to.equal(201)
        expect(independent.body.session_id).not.to.equal(first.body.session_id)
        const tooLong = await createSession(server.url, { ...bearer(key.api_key), 'Idempotency-Key': 'k'.repeat(256) })
        expect(tooLong.status).to.equal(400)
        expect(tooLong.body.param).to.equal('Idempotency-Key')
      })

      it('replays a 4xx answer too, so the key cannot later be used for a different request', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': `bad-${randomUUID()}` }
        const { locale: _omit, ...noLocale } = SESSION_INPUT
        const first = await createSession(server.url, headers, noLocale)
        expect(first.status).to.equal(400)
        const replay = await createSession(server.url, headers, noLocale)
        expect(replay.status).to.equal(400)
        expect(replay.body).to.deep.equal(first.body)
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        const different = await createSession(server.url, headers)
        expect(different.status).to.equal(422)
        expect(different.body.error).to.equal('idempotency_key_reused')
      })

      it('creates one session for concurrent duplicates of one Idempotency-Key', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': `race-${randomUUID()}` }
        const replies = await Promise.all(Array.from({ length: 10 }, () => createSession(server.url, headers)))
        for (const r of replies) expect([201, 409]).to.include(r.status)
        const ids = new Set(replies.filter((r) => r.status === 201).map((r) => r.body.session_id))
        expect(ids.size).to.equal(1)
        for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error).to.equal('idempotency_key_in_use')
      })

      it('replays a mint without the secret key and mints only one key', async () => {
        const partyId = randomUUID()
        const headers = { 'X-Partner-Mint-Key': MINT_SECRET, 'Idempotency-Key': `mint-${randomUUID()}` }
        const first = await mint(server.url, { party_id: partyId, client_name: 'idem' }, headers)
        const replay = await mint(server.url, { party_id: partyId, client_name: 'idem' }, headers)
        expect(replay.status).to.equal(201)
        const { api_key, ...withoutSecret } = first.body
        expect(replay.body).to.deep.equal(withoutSecret)
        const list = await request(server.url, '/public/partner/api-keys', { headers: bearer(api_key) })
        expect(list.body.data.map((k: { api_key_id: string }) => k.api_key_id)).to.deep.equal([first.body.api_key_id])
      })

      it('writes one access log line per request with its request id, and never a secret', async () => {
        const key = await mintKey(server.url)
        const reply = await createSession(server.url, bearer(key.api_key))
        const requestId = reply.headers.get('x-request-id')
        const lines = server.logs.lines().filter((l) => l['msg'] === 'request' && l['request_id'] === requestId)
        expect(lines).to.have.length(1)
        expect(lines[0]).to.include({ method: 'POST', path: '/public/onboarding-sessions', status: 201, operation_id: 'createOnboardingSession' })
        expect(lines[0]!['duration_ms']).to.be.a('number')
        const raw = server.logs.raw()
        for (const secret of [key.api_key, MINT_SECRET, INTERNAL_TOKEN]) expect(raw).not.to.contain(secret)
      })
    })
  })
}

describe('HTTP behaviour that needs a failing or configured dependency', () => {
  it('answers 500 store_unavailable without leaking the cause, logs the cause, and does not keep the idempotency key', async () => {
    const server = await startInMemoryServer((base) => ({
      sessions: { ...base.sessions, insert: () => TE.left(storeUnavailable(new Error('boom: insert into onboarding_sessions'))) },
    }))
    try {
      const key = await mintKey(server.url)
      const headers = { ...bearer(key.api_key), 'Idempotency-Key': 'retry-me' }
      const reply = await createSession(server.url, headers)
      expect(reply.status).to.equal(500)
      expect(reply.body).to.deep.equal({
        error: 'store_unavailable',
        detail: 'The data store is unavailable. Retry later; with an Idempotency-Key a retry is safe.',
      })
      expect(reply.text).not.to.contain('boom')
      expect(server.logs.raw()).to.contain('boom: insert into onboarding_sessions')
      const retry = await createSession(server.url, headers)
      expect(retry.status).to.equal(500)
      expect(retry.headers.get('idempotent-replayed')).to.equal(null)
    } finally {
      await server.stop()
    }
  })

  it('answers 503 not_ready when the database is unreachable', async () => {
    const server = await startInMemoryServer((base) => ({ health: { ...base.health, storeReachable: async () => false } }))
    try {
      const reply = await request(server.url, '/health/ready')
      expect(reply.status).to.equal(503)
      expect(reply.body).to.deep.equal({ error: 'not_ready', detail: 'The database is unreachable.' })
    } finally {
      await server.stop()
    }
  })

  it('answers 500 server_misconfigured when the mint secret or internal token is not configured', async () => {
    const server = await startInMemoryServer(() => ({}), { partnerMintSecret: undefined, internalApiToken: undefined })
    try {
      const minted = await mint(server.url, { party_id: randomUUID() })
      expect(minted.status).to.equal(500)
      expect(minted.body).to.deep.equal({ error: 'server_misconfigured', detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it)." })
      const internal = await request(server.url, `/internal/applications/${randomUUID()}/approve`, { method: 'POST', headers: bearer('whatever') })
      expect(internal.status).to.equal(500)
      expect(internal.body.error).to.equal('server_misconfigured')
    } finally {
      await server.stop()
    }
  })

  it('forces the placeholder for operations named in PLACEHOLDER_OPERATIONS', async () => {
    const server = await startInMemoryServer(() => ({}), { placeholderOperations: new Set(['createOnboardingSession']) })
    try {
      const key = await mintKey(server.url)
      const reply = await createSession(server.url, bearer(key.api_key))
      expect(reply.status).to.equal(501)
      expect(reply.body).to.deep.equal({ error: 'not_implemented', operation_id: 'createOnboardingSession' })
    } finally {
      await server.stop()
    }
  })

  it('records last_used_at in batches', async () => {
    const server = await startInMemoryServer(() => ({}), { keyUsageFlushMs: 100 })
    try {
      const key = await mintKey(server.url)
      await createSession(server.url, bearer(key.api_key))
      await server.deps.usage.flush()
      const listed = await request(server.url, '/public/partner/api-keys', { headers: bearer(key.api_key) })
      expect(listed.body.data[0].last_used_at).to.match(ISO_MS)
    } finally {
      await server.stop()
    }
  })

  describe('CORS', () => {
    let server: TestServer
    before(async () => {
      server = await startInMemoryServer(() => ({}), { corsOrigins: ['https://app.example.com'] })
    })
    after(async () => server.stop())
    const preflight = (origin: string, headers = 'authorization,content-type,idempotency-key') =>
      request(server.url, '/public/onboarding-sessions', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': headers },
      })

    it('answers a preflight from an allowed origin without a key', async () => {
      const reply = await preflight('https://app.example.com')
      expect(reply.status).to.equal(204)
      expect(reply.headers.get('access-control-allow-origin')).to.equal('https://app.example.com')
      expect(reply.headers.get('access-control-allow-headers')).to.contain('Authorization')
      expect(reply.headers.get('access-control-allow-headers')).not.to.contain('X-Partner-Mint-Key')
    })

    it('gives a disallowed origin no CORS headers', async () => {
      const reply = await preflight('https://evil.example')
      expect(reply.headers.get('access-control-allow-origin')).to.equal(null)
    })

    it('marks actual responses for the allowed origin and exposes the request id', async () => {
      const reply = await request(server.url, '/health', { headers: { Origin: 'https://app.example.com' } })
      expect(reply.headers.get('access-control-allow-origin')).to.equal('https://app.example.com')
      expect(reply.headers.get('access-control-expose-headers')).to.contain('X-Request-Id')
    })
  })
})
