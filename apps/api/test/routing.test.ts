import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { SECURITY_HEADERS } from '../src/http/request-lifecycle.js'
import { OPERATIONS, type Operation } from '../src/routes/operations.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startTestServer, type TestServer } from './support/test-server.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

const missingApiKeyBody = {
  error: 'missing_api_key',
  detail: 'Send your API key as "Authorization: Bearer <key>" or in the X-Api-Key header.',
}

const hasBody = (op: Operation): boolean => op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH'

/** The operation's path with the key's own party and fresh UUIDs for every other parameter. */
const concretePath = (op: Operation, partyId: string): string =>
  op.path.replace(':partyId', partyId).replace(/:[A-Za-z]+/g, () => randomUUID())

const callOperation = (url: string, op: Operation, partyId: string, headers: Record<string, string>): Promise<Reply> =>
  request(url, concretePath(op, partyId), { method: op.method, headers, ...(hasBody(op) ? { json: {} } : {}) })

const expectSecurityHeaders = (reply: Reply, label: string): void => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(reply.headers.get(name), `${label}: ${name}`).to.equal(value)
}

for (const database of testDatabases()) {
  describe(`Routing on ${database.name}`, () => {
    let server: TestServer
    let key: MintedKey
    before(async () => {
      server = await startTestServer(database)
      key = await mintKey(server.url)
    })
    after(async () => server.stop())

    describe('the /public/v1 prefix', () => {
      it('creates a session through POST /public/v1/onboarding-sessions like POST /public/onboarding-sessions', async () => {
        const versioned = await request(server.url, '/public/v1/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: SESSION_INPUT })
        const plain = await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: SESSION_INPUT })
        for (const reply of [versioned, plain]) {
          expect(reply.status).to.equal(201)
          const { session_id, created_at, updated_at, ...rest } = reply.body
          expect(rest).to.deep.equal({ ...SESSION_INPUT, status: 'IN_PROGRESS', current_step: 'PHONE_VERIFICATION', livemode: true })
          expect(session_id).to.match(UUID)
          expect(created_at).to.match(ISO_MS)
          expect(updated_at).to.equal(created_at)
        }
        expect(versioned.body.session_id).not.to.equal(plain.body.session_id)
      })

      it('reads the session back through GET /public/v1/onboarding-sessions/{id} and without the prefix', async () => {
        const created = await request(server.url, '/public/v1/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: SESSION_INPUT })
        expect(created.status).to.equal(201)
        for (const prefix of ['/public/v1', '/public']) {
          const read = await request(server.url, `${prefix}/onboarding-sessions/${created.body.session_id}`, { headers: bearer(key.api_key) })
          expect(read.status, prefix).to.equal(200)
          expect(read.body).to.deep.equal(created.body)
        }
      })

      it('applies the party check to a versioned party path', async () => {
        const reply = await request(server.url, `/public/v1/parties/${randomUUID()}/loans`, { headers: bearer(key.api_key) })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal({ error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' })
      })

      it('requires a key on versioned paths', async () => {
        const reply = await request(server.url, '/public/v1/partner/api-keys')
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(missingApiKeyBody)
      })
    })

    describe('unknown routes and methods', () => {
      it('answers 404 not_found for an unknown route', async () => {
        const reply = await request(server.url, '/public/nothing-here')
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No route for GET /public/nothing-here.' })
        expect(reply.headers.get('content-type')).to.match(/^application\/json/)
      })

      it('answers 404 not_found for an unknown route even with a valid key and a body', async () => {
        const reply = await request(server.url, '/public/widgets', { method: 'POST', headers: bearer(key.api_key), json: {} })
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No route for POST /public/widgets.' })
      })

      it('answers 405 method_not_allowed with an Allow header for a wrong method on a known path', async () => {
        const reply = await request(server.url, '/health', { method: 'DELETE' })
        expect(reply.status).to.equal(405)
        expect(reply.headers.get('allow')).to.equal('HEAD, GET, OPTIONS')
        expect(reply.body).to.deep.equal({ error: 'method_not_allowed', detail: 'Allowed methods: HEAD, GET, OPTIONS.' })
      })

      it('answers 405 with Allow for a wrong method on a partner path', async () => {
        const reply = await request(server.url, '/public/onboarding-sessions', { method: 'PATCH', headers: bearer(key.api_key), json: {} })
        expect(reply.status).to.equal(405)
        expect(reply.headers.get('allow')).to.equal('POST, OPTIONS')
        expect(reply.body).to.deep.equal({ error: 'method_not_allowed', detail: 'Allowed methods: POST, OPTIONS.' })
      })
    })

    describe('X-Request-Id', () => {
      it('generates a UUID when the request has none', async () => {
        const first = await request(server.url, '/health')
        const second = await request(server.url, '/health')
        expect(first.headers.get('x-request-id')).to.match(UUID)
        expect(second.headers.get('x-request-id')).to.match(UUID)
        expect(first.headers.get('x-request-id')).not.to.equal(second.headers.get('x-request-id'))
      })

      it('echoes a sane incoming value', async () => {
        const reply = await request(server.url, '/health', { headers: { 'X-Request-Id': 'abc-123' } })
        expect(reply.headers.get('x-request-id')).to.equal('abc-123')
      })

      it('echoes a sane incoming value on an error response too', async () => {
        const reply = await request(server.url, '/public/partner/api-keys', { headers: { 'X-Request-Id': 'abc-123' } })
        expect(reply.status).to.equal(401)
        expect(reply.headers.get('x-request-id')).to.equal('abc-123')
      })

      it('replaces a 300-character value with a generated UUID', async () => {
        const reply = await request(server.url, '/health', { headers: { 'X-Request-Id': 'a'.repeat(300) } })
        expect(reply.headers.get('x-request-id')).to.match(UUID)
      })

      it('replaces a value containing spaces with a generated UUID', async () => {
        const reply = await request(server.url, '/health', { headers: { 'X-Request-Id': 'has spaces in it' } })
        expect(reply.headers.get('x-request-id')).to.match(UUID)
      })
    })

    describe('security headers', () => {
      it('are present on a success', async () => {
        const reply = await request(server.url, '/health')
        expect(reply.status).to.equal(200)
        expectSecurityHeaders(reply, 'GET /health')
      })

      it('are present on error responses', async () => {
        const replies: [string, Reply][] = [
          ['401', await request(server.url, '/public/partner/api-keys')],
          ['404', await request(server.url, '/public/nothing-here')],
          ['405', await request(server.url, '/health', { method: 'DELETE' })],
          ['400', await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers: { ...bearer(key.api_key), 'Content-Type': 'application/json' }, rawBody: '{"a":' })],
          ['413', await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: { padding: 'x'.repeat(1_100_000) } })],
          ['403', await request(server.url, `/public/parties/${randomUUID()}`, { headers: bearer(key.api_key) })],
        ]
        for (const [status, reply] of replies) {
          expect(String(reply.status)).to.equal(status)
          expectSecurityHeaders(reply, status)
        }
      })
    })

    describe('PLACEHOLDER_OPERATIONS', () => {
      let forced: TestServer
      before(async () => {
        forced = await startTestServer(database, { placeholderOperations: new Set(['createOnboardingSession']) })
      })
      after(async () => forced.stop())

      it('makes a named operation answer 501 for a valid request', async () => {
        const own = await mintKey(forced.url)
        const reply = await request(forced.url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(own.api_key), json: SESSION_INPUT })
        expect(reply.status).to.equal(501)
        expect(reply.body).to.deep.equal({ error: 'not_implemented', operation_id: 'createOnboardingSession' })
      })

      it('still requires a key for the forced placeholder', async () => {
        const reply = await request(forced.url, '/public/onboarding-sessions', { method: 'POST', json: SESSION_INPUT })
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(missingApiKeyBody)
      })

      it('leaves the other operations real', async () => {
        const own = await mintKey(forced.url)
        const reply = await request(forced.url, '/public/partner/api-keys', { headers: bearer(own.api_key) })
        expect(reply.status).to.equal(200)
        expect(reply.body.data.map((k: { api_key_id: string }) => k.api_key_id)).to.deep.equal([own.api_key_id])
      })
    })

    describe('PLACEHOLDER_OPERATIONS naming every partner operation', () => {
      const partnerOperations = OPERATIONS.filter((op) => op.auth === 'partner')
      let forced: TestServer
      let own: MintedKey
      /** A key of the same party in the test world, for the test helpers (a live key is refused before the placeholder). */
      let ownInTest: MintedKey
      before(async () => {
        forced = await startTestServer(database, { placeholderOperations: new Set(partnerOperations.map((op) => op.operationId)) })
        own = await mintKey(forced.url)
        ownInTest = await mintKey(forced.url, { party_id: own.party_id, environment: 'test' })
      })
      after(async () => forced.stop())

      it('answers each of them with 501 and exactly its operation_id', async () => {
        expect(partnerOperations).to.have.length.above(40)
        for (const op of partnerOperations) {
          const reply = await callOperation(forced.url, op, own.party_id, bearer((op.testOnly === true ? ownInTest : own).api_key))
          expect(reply.status, `${op.method} ${op.path}`).to.equal(501)
          expect(reply.body, op.operationId).to.deep.equal({ error: 'not_implemented', operation_id: op.operationId })
        }
      })

      it('still answers each of them 401 missing_api_key without a key', async () => {
        for (const op of partnerOperations) {
          const reply = await callOperation(forced.url, op, own.party_id, {})
          expect(reply.status, `${op.method} ${op.path}`).to.equal(401)
          expect(reply.body, op.operationId).to.deep.equal(missingApiKeyBody)
        }
      })
    })
  })
}
