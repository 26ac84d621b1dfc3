import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { storeUnavailable } from '@lendgate/core'
import type { inMemoryOnboardingSessionRepository } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { MINT_SECRET, startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

const SESSIONS = '/public/onboarding-sessions'
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

type InMemorySessions = ReturnType<typeof inMemoryOnboardingSessionRepository>

const reusedBody = { error: 'idempotency_key_reused', detail: 'This Idempotency-Key was used for a different request (method, path or body).' }
const inUseBody = { error: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still being processed; retry shortly.' }

const idempotencyKey = (): string => `idem-${randomUUID()}`

const createSession = (url: string, headers: Record<string, string>, json: unknown = SESSION_INPUT, path = SESSIONS): Promise<Reply> =>
  request(url, path, { method: 'POST', headers, json })

const mint = (url: string, headers: Record<string, string>, json: unknown): Promise<Reply> =>
  request(url, '/public/partner/api-keys', { method: 'POST', headers: { 'X-Partner-Mint-Key': MINT_SECRET, ...headers }, json })

const expectReplayOf = (replay: Reply, first: Reply): void => {
  expect(replay.status).to.equal(first.status)
  expect(replay.body).to.deep.equal(first.body)
  expect(replay.headers.get('idempotent-replayed')).to.equal('true')
}

/** Ten identical requests at once: one creates, the rest replay it or are told it is in use. */
const expectOneCreatedAmongConcurrent = (replies: readonly Reply[]): string => {
  const fresh = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null)
  expect(fresh, 'responses that created a session').to.have.length(1)
  const created = fresh[0]!
  for (const reply of replies) {
    if (reply === created) continue
    if (reply.status === 201) {
      expect(reply.headers.get('idempotent-replayed')).to.equal('true')
      expect(reply.body).to.deep.equal(created.body)
    } else {
      expect(reply.status).to.equal(409)
      expect(reply.body).to.deep.equal(inUseBody)
      expect(reply.headers.get('retry-after')).to.equal('1')
    }
  }
  const ids = new Set(replies.filter((r) => r.status === 201).map((r) => r.body.session_id))
  expect(ids.size).to.equal(1)
  return created.body.session_id
}

for (const database of testDatabases()) {
  describe(`Idempotency on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    describe('POST /public/onboarding-sessions with Idempotency-Key', () => {
      it('replays the first response for the same key and body, with Idempotent-Replayed: true', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
        const first = await createSession(server.url, headers)
        expect(first.status).to.equal(201)
        expect(first.headers.get('idempotent-replayed')).to.equal(null)
        const replay = await createSession(server.url, headers)
        expectReplayOf(replay, first)
        const again = await createSession(server.url, headers)
        expectReplayOf(again, first)
      })

      it('creates only one session: the replayed id is the stored session', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
        const first = await createSession(server.url, headers)
        const replay = await createSession(server.url, headers)
        expect(replay.body.session_id).to.equal(first.body.session_id)
        for (const id of [first.body.session_id, replay.body.session_id]) {
          const read = await request(server.url, `${SESSIONS}/${id}`, { headers: bearer(key.api_key) })
          expect(read.status).to.equal(200)
          expect(read.body).to.deep.equal(first.body)
        }
      })

      it('treats the /public/v1 spelling of the path as the same request', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
        const first = await createSession(server.url, headers)
        const replay = await createSession(server.url, headers, SESSION_INPUT, '/public/v1/onboarding-sessions')
        expectReplayOf(replay, first)
      })

      it('answers 422 idempotency_key_reused for the same key with a different body', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
        const first = await createSession(server.url, headers)
        expect(first.status).to.equal(201)
        const different = await createSession(server.url, headers, { ...SESSION_INPUT, locale: 'en-GB' })
        expect(different.status).to.equal(422)
        expect(different.body).to.deep.equal(reusedBody)
        expect(different.headers.get('idempotent-replayed')).to.equal(null)
      })

      it('answers 422 idempotency_key_reused for the same key and body on a different path', async () => {
        // createOnboardingSession is the only partner POST with a real handler today, so the other
        // path is the same route spelled with a trailing slash: the router accepts it, but it is
        // not the path the key was first used with.
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
        const first = await createSession(server.url, headers)
        expect(first.status).to.equal(201)
        const elsewhere = await createSession(server.url, headers, SESSION_INPUT, `${SESSIONS}/`)
        expect(elsewhere.status).to.equal(422)
        expect(elsewhere.body).to.deep.equal(reusedBody)
      })

      it('keeps the keys of different API clients independent', async () => {
        const partyId = randomUUID()
        const mine = await mintKey(server.url, { party_id: partyId, client_name: 'one' })
        const theirs = await mintKey(server.url, { party_id: partyId, client_name: 'two' })
        const shared = idempotencyKey()
        const first = await createSession(server.url, { ...bearer(mine.api_key), 'Idempotency-Key': shared })
        const other = await createSession(server.url, { ...bearer(theirs.api_key), 'Idempotency-Key': shared })
        expect(first.status).to.equal(201)
        expect(other.status).to.equal(201)
        expect(other.headers.get('idempotent-replayed')).to.equal(null)
        expect(other.body.session_id).not.to.equal(first.body.session_id)
        const otherRead = await request(server.url, `${SESSIONS}/${other.body.session_id}`, { headers: bearer(theirs.api_key) })
        expect(otherRead.body).to.deep.equal(other.body)
        expectReplayOf(await createSession(server.url, { ...bearer(mine.api_key), 'Idempotency-Key': shared }), first)
      })

      it('shares the key space among the keys of one API client', async () => {
        const partyId = randomUUID()
        const first = await mintKey(server.url, { party_id: partyId, client_name: 'shared' })
        const second = await mintKey(server.url, { party_id: partyId, client_name: 'shared' })
        const shared = idempotencyKey()
        const created = await createSession(server.url, { ...bearer(first.api_key), 'Idempotency-Key': shared })
        expectReplayOf(await createSession(server.url, { ...bearer(second.api_key), 'Idempotency-Key': shared }), created)
      })

      it('answers 400 invalid_request naming Idempotency-Key for a key longer than 255 characters', async () => {
        const key = await mintKey(server.url)
        const reply = await createSession(server.url, { ...bearer(key.api_key), 'Idempotency-Key': 'k'.repeat(256) })
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal({
          error: 'invalid_request',
          detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
          param: 'Idempotency-Key',
        })
      })

      it('accepts a key of exactly 255 characters', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': randomUUID().replace(/-/g, '').padEnd(255, 'k') }
        const first = await createSession(server.url, headers)
        expect(first.status).to.equal(201)
        expectReplayOf(await createSession(server.url, headers), first)
      })

      it('creates exactly one session for 10 concurrent identical requests with one key', async () => {
        const key = await mintKey(server.url)
        const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
        const replies = await Promise.all(Array.from({ length: 10 }, () => createSession(server.url, headers)))
        const sessionId = expectOneCreatedAmongConcurrent(replies)
        const read = await request(server.url, `${SESSIONS}/${sessionId}`, { headers: bearer(key.api_key) })
        expect(read.status).to.equal(200)
      })
    })

    describe('POST /public/partner/api-keys with Idempotency-Key', () => {
      it('replays a mint with 201 and the same api_key_id but without the api_key, and mints only one key', async () => {
        const partyId = randomUUID()
        const headers = { 'Idempotency-Key': idempotencyKey() }
        const body = { party_id: partyId, client_name: 'idempotent-mint' }
        const first = await mint(server.url, headers, body)
        expect(first.status).to.equal(201)
        const replay = await mint(server.url, headers, body)
        expect(replay.status).to.equal(201)
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        const { api_key, ...withoutSecret } = first.body
        expect(replay.body).to.deep.equal(withoutSecret)
        expect(replay.body).not.to.have.property('api_key')
        expect(replay.text).not.to.contain(api_key)
        const listed = await request(server.url, '/public/partner/api-keys', { headers: bearer(api_key) })
        expect(listed.status).to.equal(200)
        expect(listed.body.data.map((k: { api_key_id: string }) => k.api_key_id)).to.deep.equal([first.body.api_key_id])
      })

      it('answers 422 idempotency_key_reused for the same key with a different mint request', async () => {
        const headers = { 'Idempotency-Key': idempotencyKey() }
        const first = await mint(server.url, headers, { party_id: randomUUID() })
        expect(first.status).to.equal(201)
        const different = await mint(server.url, headers, { party_id: randomUUID() })
        expect(different.status).to.equal(422)
        expect(different.body).to.deep.equal(reusedBody)
      })
    })
  })
}

describe('Idempotency over an in-memory store', () => {
  describe('POST /public/onboarding-sessions', () => {
    let server: TestServer
    before(async () => {
      server = await startInMemoryServer()
    })
    after(async () => server.stop())

    const sessionsOf = (clientId: string) => (server.deps.sessions as InMemorySessions).all().filter((s) => s.clientId === clientId)

    it('stores one session for a replayed request', async () => {
      const key = await mintKey(server.url)
      const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
      const first = await createSession(server.url, headers)
      expectReplayOf(await createSession(server.url, headers), first)
      expect(sessionsOf(key.client_id).map((s) => s.id)).to.deep.equal([first.body.session_id])
    })

    it('stores one session for 10 concurrent identical requests with one key', async () => {
      const key = await mintKey(server.url)
      const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
      const replies = await Promise.all(Array.from({ length: 10 }, () => createSession(server.url, headers)))
      const sessionId = expectOneCreatedAmongConcurrent(replies)
      expect(sessionsOf(key.client_id).map((s) => s.id)).to.deep.equal([sessionId])
    })
  })

  describe('POST /public/onboarding-sessions when the session store fails', () => {
    let server: TestServer
    let inserts = 0
    before(async () => {
      server = await startInMemoryServer((base) => ({
        sessions: {
          ...base.sessions,
          insert: () => {
            inserts += 1
            return TE.left(storeUnavailable(new Error('boom: insert into onboarding_sessions')))
          },
        },
      }))
    })
    after(async () => server.stop())

    it('does not keep a 5xx: a retry with the same key is processed again', async () => {
      const key = await mintKey(server.url)
      const headers = { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey() }
      const before = inserts
      const first = await createSession(server.url, headers)
      expect(first.status).to.equal(500)
      expect(first.body.error).to.equal('store_unavailable')
      const retry = await createSession(server.url, headers)
      expect(retry.status).to.equal(500)
      expect(retry.body).to.deep.equal(first.body)
      expect(retry.headers.get('idempotent-replayed')).to.equal(null)
      expect(inserts - before).to.equal(2)
    })
  })
})
