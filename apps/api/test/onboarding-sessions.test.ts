import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { storeUnavailable } from '@lendgate/core'
import type { inMemoryOnboardingSessionRepository } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SESSIONS = '/public/onboarding-sessions'
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

type InMemorySessions = ReturnType<typeof inMemoryOnboardingSessionRepository>

const notJsonBody = { error: 'invalid_request', detail: 'The request body is not valid JSON (an object or array is expected).' }
const notFoundBody = { error: 'not_found', detail: 'No such onboarding session.' }

const createSession = (url: string, headers: Record<string, string>, json: unknown = SESSION_INPUT): Promise<Reply> =>
  request(url, SESSIONS, { method: 'POST', headers, json })

const sendRaw = (url: string, headers: Record<string, string>, contentType: string, rawBody: string): Promise<Reply> =>
  request(url, SESSIONS, { method: 'POST', headers: { ...headers, 'Content-Type': contentType }, rawBody })

const without = (field: keyof typeof SESSION_INPUT): Record<string, string> => {
  const { [field]: _dropped, ...rest } = SESSION_INPUT
  return rest
}

/** A create request the service must refuse, and exactly how. */
type Refusal = {
  readonly when: string
  readonly send: (url: string, headers: Record<string, string>) => Promise<Reply>
  readonly status: number
  readonly body: Record<string, unknown>
}

const REFUSALS: readonly Refusal[] = [
  {
    when: 'country_of_incorporation is missing',
    send: (url, headers) => createSession(url, headers, without('country_of_incorporation')),
    status: 400,
    body: { error: 'invalid_request', detail: 'country_of_incorporation is required', param: 'country_of_incorporation' },
  },
  {
    when: 'locale is missing',
    send: (url, headers) => createSession(url, headers, without('locale')),
    status: 400,
    body: { error: 'invalid_request', detail: 'locale is required', param: 'locale' },
  },
  {
    when: 'country_of_incorporation is lower case',
    send: (url, headers) => createSession(url, headers, { ...SESSION_INPUT, country_of_incorporation: 'us' }),
    status: 400,
    body: {
      error: 'invalid_request',
      detail: 'country_of_incorporation must be an ISO 3166-1 alpha-2 country code in upper case, such as US',
      param: 'country_of_incorporation',
    },
  },
  {
    when: 'locale is not a language-region tag',
    send: (url, headers) => createSession(url, headers, { ...SESSION_INPUT, locale: 'english' }),
    status: 400,
    body: { error: 'invalid_request', detail: 'locale must be a language-region tag such as en-US', param: 'locale' },
  },
  {
    when: 'the body has an unknown field',
    send: (url, headers) => createSession(url, headers, { ...SESSION_INPUT, referrer: 'newsletter' }),
    status: 400,
    body: { error: 'invalid_request', detail: 'referrer is not a known field', param: 'referrer' },
  },
  {
    when: 'the body is an array',
    send: (url, headers) => createSession(url, headers, [SESSION_INPUT]),
    status: 400,
    body: { error: 'invalid_request', detail: 'The request body must be a JSON object' },
  },
  {
    when: 'the body is a JSON string',
    send: (url, headers) => sendRaw(url, headers, 'application/json', '"US en-US"'),
    status: 400,
    body: notJsonBody,
  },
  {
    when: 'the body is empty with a JSON content type',
    send: (url, headers) => sendRaw(url, headers, 'application/json', ''),
    status: 400,
    body: { error: 'invalid_request', detail: 'A JSON body is required (Content-Type: application/json).' },
  },
  {
    when: 'the content type is text/plain',
    send: (url, headers) => sendRaw(url, headers, 'text/plain', JSON.stringify(SESSION_INPUT)),
    status: 400,
    body: { error: 'invalid_request', detail: 'Content-Type must be application/json.' },
  },
  {
    when: 'the JSON is malformed',
    send: (url, headers) => sendRaw(url, headers, 'application/json', '{"a":'),
    status: 400,
    body: notJsonBody,
  },
  {
    when: 'the body has a __proto__ key',
    send: (url, headers) => sendRaw(url, headers, 'application/json', '{"__proto__":{"admin":true},"country_of_incorporation":"US","locale":"en-US"}'),
    status: 400,
    body: notJsonBody,
  },
  {
    when: 'a nested object has a __proto__ key',
    send: (url, headers) => sendRaw(url, headers, 'application/json', '{"country_of_incorporation":"US","locale":"en-US","type":{"__proto__":{"x":1}}}'),
    status: 400,
    body: notJsonBody,
  },
  {
    when: 'the body is over 1 MiB',
    send: (url, headers) => createSession(url, headers, { ...SESSION_INPUT, padding: 'x'.repeat(1_100_000) }),
    status: 413,
    body: { error: 'payload_too_large', detail: 'The request body exceeds 1048576 bytes.' },
  },
]

for (const database of testDatabases()) {
  describe(`Onboarding sessions on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    describe('POST /public/onboarding-sessions', () => {
      it('answers 201 with exactly the session fields, echoing the input', async () => {
        const key = await mintKey(server.url)
        const before = Date.now()
        const reply = await createSession(server.url, bearer(key.api_key))
        expect(reply.status).to.equal(201)
        expect(reply.headers.get('content-type')).to.match(/^application\/json/)
        const { session_id, created_at, updated_at, ...rest } = reply.body
        expect(rest).to.deep.equal({ ...SESSION_INPUT, status: 'IN_PROGRESS', current_step: 'PHONE_VERIFICATION', livemode: true })
        expect(session_id).to.match(UUID)
        expect(created_at).to.match(ISO_MS)
        expect(updated_at).to.equal(created_at)
        expect(Date.parse(created_at)).to.be.within(before - 1000, Date.now() + 1000)
      })

      it('echoes other valid values of the input', async () => {
        const key = await mintKey(server.url)
        const input = { type: 'business', country_of_incorporation: 'DE', entry_channel: 'partner_api', locale: 'de-DE' }
        const reply = await createSession(server.url, bearer(key.api_key), input)
        expect(reply.status).to.equal(201)
        const { session_id: _id, created_at: _c, updated_at: _u, ...rest } = reply.body
        expect(rest).to.deep.equal({ ...input, status: 'IN_PROGRESS', current_step: 'PHONE_VERIFICATION', livemode: true })
      })

      it('creates a new session for every request without an Idempotency-Key', async () => {
        const key = await mintKey(server.url)
        const first = await createSession(server.url, bearer(key.api_key))
        const second = await createSession(server.url, bearer(key.api_key))
        expect(first.status).to.equal(201)
        expect(second.status).to.equal(201)
        expect(second.body.session_id).not.to.equal(first.body.session_id)
      })

      for (const refusal of REFUSALS) {
        it(`answers ${refusal.status} ${refusal.body['error']} when ${refusal.when}, and creates no session`, async () => {
          const key = await mintKey(server.url)
          const reply = await refusal.send(server.url, bearer(key.api_key))
          expect(reply.status).to.equal(refusal.status)
          expect(reply.body).to.deep.equal(refusal.body)
          expect(reply.text).not.to.contain('session_id')
        })
      }
    })

    describe('GET /public/onboarding-sessions/{sessionId}', () => {
      let owner: MintedKey
      let created: Reply
      before(async () => {
        owner = await mintKey(server.url)
        created = await createSession(server.url, bearer(owner.api_key))
        expect(created.status).to.equal(201)
      })

      it('answers 200 with the session as it was created', async () => {
        const reply = await request(server.url, `${SESSIONS}/${created.body.session_id}`, { headers: bearer(owner.api_key) })
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal(created.body)
      })

      it('answers 200 to another key of the same API client', async () => {
        const rotated = await mintKey(server.url, { party_id: owner.party_id, client_name: owner.client_name })
        expect(rotated.client_id).to.equal(owner.client_id)
        const reply = await request(server.url, `${SESSIONS}/${created.body.session_id}`, { headers: bearer(rotated.api_key) })
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal(created.body)
      })

      it("answers 404 not_found for another party's client's session", async () => {
        const stranger = await mintKey(server.url)
        const reply = await request(server.url, `${SESSIONS}/${created.body.session_id}`, { headers: bearer(stranger.api_key) })
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal(notFoundBody)
      })

      it("answers 404 not_found for another API client's session of the same party", async () => {
        const sibling = await mintKey(server.url, { party_id: owner.party_id, client_name: `${owner.client_name}-other` })
        const reply = await request(server.url, `${SESSIONS}/${created.body.session_id}`, { headers: bearer(sibling.api_key) })
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal(notFoundBody)
      })

      it('answers 404 not_found for an unknown UUID', async () => {
        const reply = await request(server.url, `${SESSIONS}/${randomUUID()}`, { headers: bearer(owner.api_key) })
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal(notFoundBody)
      })

      it('answers 400 invalid_request naming sessionId for a malformed id', async () => {
        for (const id of ['123', 'not-a-uuid', `${randomUUID()}x`]) {
          const reply = await request(server.url, `${SESSIONS}/${id}`, { headers: bearer(owner.api_key) })
          expect(reply.status, id).to.equal(400)
          expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'sessionId must be a UUID', param: 'sessionId' })
        }
      })
    })
  })
}

describe('POST /public/onboarding-sessions refusals store nothing', () => {
  let server: TestServer
  before(async () => {
    server = await startInMemoryServer()
  })
  after(async () => server.stop())

  const sessionsOf = (clientId: string) => (server.deps.sessions as InMemorySessions).all().filter((s) => s.clientId === clientId)

  for (const refusal of REFUSALS) {
    it(`stores no session when ${refusal.when}`, async () => {
      const key = await mintKey(server.url)
      const reply = await refusal.send(server.url, bearer(key.api_key))
      expect(reply.status).to.equal(refusal.status)
      expect(reply.body).to.deep.equal(refusal.body)
      expect(sessionsOf(key.client_id)).to.deep.equal([])
    })
  }

  it('stores exactly the one session a valid request creates', async () => {
    const key = await mintKey(server.url)
    for (const refusal of REFUSALS) await refusal.send(server.url, bearer(key.api_key))
    const reply = await createSession(server.url, bearer(key.api_key))
    expect(reply.status).to.equal(201)
    expect(sessionsOf(key.client_id).map((s) => s.id)).to.deep.equal([reply.body.session_id])
  })
})

describe('POST /public/onboarding-sessions when the session store fails', () => {
  let server: TestServer
  before(async () => {
    server = await startInMemoryServer((base) => ({
      sessions: { ...base.sessions, insert: () => TE.left(storeUnavailable(new Error('boom: select * from secret_table'))) },
    }))
  })
  after(async () => server.stop())

  it('answers 500 store_unavailable without the cause, and logs the cause', async () => {
    const key = await mintKey(server.url)
    const reply = await createSession(server.url, bearer(key.api_key))
    expect(reply.status).to.equal(500)
    expect(reply.body).to.deep.equal({
      error: 'store_unavailable',
      detail: 'The data store is unavailable. Retry later; with an Idempotency-Key a retry is safe.',
    })
    expect(reply.text).not.to.contain('boom')
    expect(reply.text).not.to.contain('secret_table')
    expect(server.logs.raw()).to.contain('boom')
    const requestId = reply.headers.get('x-request-id')
    const errorLines = server.logs.lines().filter((l) => l['request_id'] === requestId && l['msg'] === 'store unavailable')
    expect(errorLines).to.have.length(1)
    expect(JSON.stringify(errorLines[0])).to.contain('boom: select * from secret_table')
  })
})
