import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { BASE62, base62, crc32 } from './support/independent-checksum.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { bearer, listingOf, type MintedKey, mintKey, type Reply, request } from './support/client.js'
import { INTERNAL_TOKEN, startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

const missingApiKeyBody = {
  error: 'missing_api_key',
  detail: 'Send your API key as "Authorization: Bearer <key>" or in the X-Api-Key header.',
}
const invalidApiKeyBody = { error: 'invalid_api_key', detail: 'The API key is not valid: it is malformed, unknown or revoked.' }
const partyMismatchBody = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }
const invalidInternalTokenBody = {
  error: 'invalid_internal_token',
  detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
}

const createSession = (url: string, headers: Record<string, string>): Promise<Reply> =>
  request(url, '/public/onboarding-sessions', { method: 'POST', headers, json: SESSION_INPUT })

const listKeys = (url: string, headers: Record<string, string>): Promise<Reply> => request(url, '/public/partner/api-keys', { headers })



const randomBase62 = (length: number): string => Array.from({ length }, () => BASE62[Math.floor(Math.random() * 62)]).join('')

/** A key in the pinned format with a correct checksum (CONTRACT.md "Keys"), so only a lookup can refuse it. */
const wellFormedKey = (environment: string, idSegment: string): string => {
  const body = `lgk_${environment}_${idSegment}_${randomBase62(32)}`
  return body + base62(crc32(new TextEncoder().encode(body)), 6)
}

/** The key with its last character changed: the checksum no longer matches. */
const withWrongChecksum = (key: string): string => key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a')

const expectInvalidApiKey = (reply: Reply, label: string): void => {
  expect(reply.status, label).to.equal(401)
  expect(reply.body, label).to.deep.equal(invalidApiKeyBody)
  expect(reply.headers.get('www-authenticate'), label).to.equal('Bearer error="invalid_token"')
}

for (const database of testDatabases()) {
  describe(`Authentication on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    describe('partner API keys', () => {
      it('answers 401 missing_api_key with WWW-Authenticate: Bearer when no key is sent', async () => {
        for (const reply of [await listKeys(server.url, {}), await createSession(server.url, {})]) {
          expect(reply.status).to.equal(401)
          expect(reply.body).to.deep.equal(missingApiKeyBody)
          expect(reply.headers.get('www-authenticate')).to.equal('Bearer')
        }
      })

      it('accepts the key in Authorization: Bearer', async () => {
        const key = await mintKey(server.url)
        const reply = await listKeys(server.url, bearer(key.api_key))
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: [listingOf(key)], next_cursor: null })
      })

      it('accepts the key in X-Api-Key', async () => {
        const key = await mintKey(server.url)
        const reply = await listKeys(server.url, { 'X-Api-Key': key.api_key })
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: [listingOf(key)], next_cursor: null })
      })

      it('accepts the Bearer scheme in any letter case', async () => {
        const key = await mintKey(server.url)
        for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
          const reply = await listKeys(server.url, { Authorization: `${scheme} ${key.api_key}` })
          expect(reply.status, scheme).to.equal(200)
          expect(reply.body).to.deep.equal({ data: [listingOf(key)], next_cursor: null })
        }
      })

      it('ignores a Bearer value without the lgk_ prefix: alone it is 401 missing_api_key', async () => {
        const reply = await createSession(server.url, { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' })
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(missingApiKeyBody)
        expect(reply.headers.get('www-authenticate')).to.equal('Bearer')
      })

      it('ignores a Bearer value without the lgk_ prefix and authenticates with X-Api-Key beside it', async () => {
        const key = await mintKey(server.url)
        const reply = await createSession(server.url, { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig', 'X-Api-Key': key.api_key })
        expect(reply.status).to.equal(201)
        expect(reply.body.session_id).to.be.a('string')
      })

      it('answers 401 invalid_api_key for garbage', async () => {
        for (const garbage of ['lgk_garbage', 'lgk_live_tooShort_abc', `lgk_prod_${'A'.repeat(16)}_${'b'.repeat(38)}`]) {
          expectInvalidApiKey(await createSession(server.url, bearer(garbage)), garbage)
        }
        expectInvalidApiKey(await createSession(server.url, { 'X-Api-Key': 'not-a-key-at-all' }), 'X-Api-Key garbage')
      })

      it('answers 401 invalid_api_key for a real key with a wrong checksum (last character changed)', async () => {
        const key = await mintKey(server.url)
        expectInvalidApiKey(await createSession(server.url, bearer(withWrongChecksum(key.api_key))), 'Bearer')
        expectInvalidApiKey(await createSession(server.url, { 'X-Api-Key': withWrongChecksum(key.api_key) }), 'X-Api-Key')
      })

      it('answers 401 invalid_api_key for a well-formed key that was never issued', async () => {
        expectInvalidApiKey(await createSession(server.url, bearer(wellFormedKey('live', randomBase62(16)))), 'unknown id')
      })

      it('answers 401 invalid_api_key for a well-formed key with a real id segment but another secret', async () => {
        const key = await mintKey(server.url)
        const idSegment = key.key_prefix.split('_')[2]!
        expectInvalidApiKey(await createSession(server.url, bearer(wellFormedKey('live', idSegment))), 'forged secret')
      })

      it('answers 401 invalid_api_key for a revoked key', async () => {
        const key = await mintKey(server.url)
        const revoked = await request(server.url, `/public/partner/api-keys/${key.api_key_id}`, { method: 'DELETE', headers: bearer(key.api_key) })
        expect(revoked.status).to.equal(200)
        expectInvalidApiKey(await createSession(server.url, bearer(key.api_key)), 'Bearer')
        expectInvalidApiKey(await createSession(server.url, { 'X-Api-Key': key.api_key }), 'X-Api-Key')
      })

      it('does not accept the internal token as a partner key', async () => {
        const reply = await listKeys(server.url, bearer(INTERNAL_TOKEN))
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(missingApiKeyBody)
      })
    })

    describe('health probes', () => {
      it('answers GET /health with 200 {status: ok} without a key', async () => {
        const reply = await request(server.url, '/health')
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ status: 'ok' })
      })

      it('answers GET /health/ready with 200 {status: ready, database: up} without a key', async () => {
        const reply = await request(server.url, '/health/ready')
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ status: 'ready', database: 'up' })
      })
    })

    describe('party-scoped paths', () => {
      it("answers 403 party_mismatch for another party's path", async () => {
        const key = await mintKey(server.url)
        const reply = await request(server.url, `/public/parties/${randomUUID()}/loans`, { headers: bearer(key.api_key) })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal(partyMismatchBody)
      })

      it('answers 403 party_mismatch for a partyId that is not a UUID', async () => {
        const key = await mintKey(server.url)
        const reply = await request(server.url, '/public/parties/not-a-uuid', { headers: bearer(key.api_key) })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal(partyMismatchBody)
      })

      it("answers 403 party_mismatch for an existing other party's path", async () => {
        const key = await mintKey(server.url)
        const other = await mintKey(server.url)
        const reply = await request(server.url, `/public/parties/${other.party_id}/addresses`, { headers: bearer(key.api_key) })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal(partyMismatchBody)
      })

      it("answers 403 party_mismatch to a key without partner:api on another party's path (party before scope)", async () => {
        const narrow = await mintKey(server.url, { scopes: ['keys:manage'] })
        for (const path of [`/public/parties/${randomUUID()}/loans`, '/public/parties/not-a-uuid']) {
          const reply = await request(server.url, path, { headers: bearer(narrow.api_key) })
          expect(reply.status, path).to.equal(403)
          expect(reply.body).to.deep.equal(partyMismatchBody)
        }
      })

      it('answers 403 insufficient_scope to a key without partner:api on its own party path', async () => {
        const narrow = await mintKey(server.url, { scopes: ['keys:manage'] })
        const reply = await request(server.url, `/public/parties/${narrow.party_id}/loans`, { headers: bearer(narrow.api_key) })
        expect(reply.status).to.equal(403)
        expect(reply.body).to.deep.equal({ error: 'insufficient_scope', detail: 'This API key lacks the scope partner:api.', scope: 'partner:api' })
      })

      it('reaches the handler on its own party path', async () => {
        const key = await mintKey(server.url)
        const reply = await request(server.url, `/public/parties/${key.party_id}/loans`, { headers: bearer(key.api_key) })
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: [], next_cursor: null })
      })

      it('answers 401 missing_api_key on a party path without a key', async () => {
        const reply = await request(server.url, `/public/parties/${randomUUID()}/loans`)
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(missingApiKeyBody)
      })
    })

    describe('/internal routes', () => {
      // approveLoanApplication is still a placeholder, so a valid token reaches the 501.
      const approvePath = (): string => `/internal/applications/${randomUUID()}/approve`

      it('answers 401 invalid_internal_token to a partner key sent as Bearer', async () => {
        const key = await mintKey(server.url)
        const reply = await request(server.url, approvePath(), { method: 'POST', headers: bearer(key.api_key) })
        expect(reply.status).to.equal(401)
        expect(reply.body).to.deep.equal(invalidInternalTokenBody)
        expect(reply.headers.get('www-authenticate')).to.equal('Bearer')
      })

      it('answers 401 invalid_internal_token without a token and with a wrong one', async () => {
        for (const headers of [{}, bearer(`${INTERNAL_TOKEN}x`), { Authorization: INTERNAL_TOKEN }, { 'X-Api-Key': INTERNAL_TOKEN }]) {
          const reply = await request(server.url, approvePath(), { method: 'POST', headers })
          expect(reply.status, JSON.stringify(headers)).to.equal(401)
          expect(reply.body).to.deep.equal(invalidInternalTokenBody)
        }
      })

      it('reaches the handler with the internal token (an unknown application is 404)', async () => {
        const reply = await request(server.url, approvePath(), { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No such loan application.' })
      })

      it('never accepts a partner key on any internal route, whatever its scopes', async () => {
        const keys = [await mintKey(server.url), await mintKey(server.url, { scopes: ['*'] })]
        const internal = OPERATIONS.filter((op) => op.auth === 'internal')
        expect(internal.length).to.be.greaterThan(0)
        for (const op of internal) {
          const path = op.path.replace(/:[A-Za-z]+/g, () => randomUUID())
          for (const key of keys) {
            for (const headers of [bearer(key.api_key), { 'X-Api-Key': key.api_key }]) {
              const reply = await request(server.url, path, { method: op.method, headers, ...(op.method === 'GET' ? {} : { json: {} }) })
              expect(reply.status, op.operationId).to.equal(401)
              expect(reply.body).to.deep.equal(invalidInternalTokenBody)
            }
          }
          // The token gets past authentication: whatever the route answers, it is not a 401.
          const ok = await request(server.url, path, { method: op.method, headers: bearer(INTERNAL_TOKEN), ...(op.method === 'GET' ? {} : { json: {} }) })
          expect(ok.status, op.operationId).not.to.equal(401)
        }
      })
    })

    describe('/internal routes on a server without an internal token', () => {
      let misconfigured: TestServer
      before(async () => {
        misconfigured = await startTestServer(database, { internalApiToken: undefined })
      })
      after(async () => misconfigured.stop())

      it('answers 500 server_misconfigured naming the missing setting', async () => {
        for (const headers of [bearer(INTERNAL_TOKEN), {}]) {
          const reply = await request(misconfigured.url, `/internal/onboarding-sessions/${randomUUID()}/approve`, { method: 'POST', headers })
          expect(reply.status).to.equal(500)
          expect(reply.body).to.deep.equal({
            error: 'server_misconfigured',
            detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it).",
          })
        }
      })
    })
  })
}

describe('GET /health/ready when the database is unreachable', () => {
  let server: TestServer
  before(async () => {
    server = await startInMemoryServer((base) => ({ health: { ...base.health, storeReachable: async () => false } }))
  })
  after(async () => server.stop())

  it('answers 503 not_ready', async () => {
    const reply = await request(server.url, '/health/ready')
    expect(reply.status).to.equal(503)
    expect(reply.body).to.deep.equal({ error: 'not_ready', detail: 'The database is unreachable.' })
  })

  it('still answers GET /health with 200 {status: ok}', async () => {
    const reply = await request(server.url, '/health')
    expect(reply.status).to.equal(200)
    expect(reply.body).to.deep.equal({ status: 'ok' })
  })
})
