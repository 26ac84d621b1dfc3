import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import type { Caller } from '@lendgate/core'
import { expect } from 'chai'
import { livemodeOf, withLivemode } from '../src/http/livemode.js'
import { BORROWER_REGISTERED_ADDRESS } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey } from './support/client.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

const SESSIONS = '/public/onboarding-sessions'
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

describe('livemode', () => {
  const caller = (environment: Caller['environment']) => ({ caller: { environment } as Caller })

  it('is the world the request acts on, else the caller key’s environment, else live', () => {
    expect(livemodeOf({})).to.equal(true)
    expect(livemodeOf(caller('live'))).to.equal(true)
    expect(livemodeOf(caller('test'))).to.equal(false)
    expect(livemodeOf({ ...caller('live'), world: 'test' })).to.equal(false)
    expect(livemodeOf({ ...caller('test'), world: 'live' })).to.equal(true)
  })

  it('goes on the body, on each item of a list envelope, on each member of a pair, and nowhere on a worldless body', () => {
    expect(withLivemode('body', false, { id: 'a' })).to.deep.equal({ id: 'a', livemode: false })
    expect(withLivemode('body', true, { data: [{ id: 'a' }, { id: 'b' }], next_cursor: 'c' })).to.deep.equal({
      data: [
        { id: 'a', livemode: true },
        { id: 'b', livemode: true },
      ],
      next_cursor: 'c',
    })
    expect(withLivemode('members', false, { session: { id: 's' }, party: { id: 'p' } })).to.deep.equal({
      session: { id: 's', livemode: false },
      party: { id: 'p', livemode: false },
    })
    expect(withLivemode('none', true, { status: 'ok' })).to.deep.equal({ status: 'ok' })
  })

  it('leaves the livemode an object says of itself (an API key of the other world)', () => {
    expect(withLivemode('body', true, { data: [{ environment: 'test', livemode: false }], next_cursor: null })).to.deep.equal({
      data: [{ environment: 'test', livemode: false }],
      next_cursor: null,
    })
  })
})

for (const database of testDatabases()) {
  describe(`livemode in responses on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    for (const [environment, livemode] of [
      ['live', true],
      ['test', false],
    ] as const) {
      describe(`with a ${environment} key`, () => {
        let key: string
        before(async () => {
          key = (await mintKey(server.url, { environment })).api_key
        })

        it(`says livemode ${livemode} on a created object and on its idempotent replay`, async () => {
          const headers = { ...bearer(key), 'Idempotency-Key': `livemode-${randomUUID()}` }
          const created = await request(server.url, SESSIONS, { method: 'POST', headers, json: SESSION_INPUT })
          expect(created.status).to.equal(201)
          expect(created.body.livemode).to.equal(livemode)
          const replayed = await request(server.url, SESSIONS, { method: 'POST', headers, json: SESSION_INPUT })
          expect(replayed.headers.get('idempotent-replayed')).to.equal('true')
          expect(replayed.body).to.deep.equal(created.body)
        })

        it(`says livemode ${livemode} on a read object and on each item of a list`, async () => {
          const created = await request(server.url, SESSIONS, { method: 'POST', headers: bearer(key), json: SESSION_INPUT })
          const session = `${SESSIONS}/${created.body.session_id}`
          const read = await request(server.url, session, { headers: bearer(key) })
          expect(read.status).to.equal(200)
          expect(read.body.livemode).to.equal(livemode)
          const added = await request(server.url, `${session}/addresses`, { method: 'POST', headers: bearer(key), json: BORROWER_REGISTERED_ADDRESS })
          expect(added.status).to.equal(201)
          const listed = await request(server.url, `${session}/addresses`, { headers: bearer(key) })
          expect(listed.status).to.equal(200)
          expect(listed.body.data).to.have.length(1)
          expect(listed.body.data.map((item: { livemode: unknown }) => item.livemode)).to.deep.equal([livemode])
          expect(listed.body).to.have.all.keys('data', 'next_cursor')
        })

        it('says no livemode on an error body', async () => {
          const missing = await request(server.url, `${SESSIONS}/${randomUUID()}`, { headers: bearer(key) })
          expect(missing.status).to.equal(404)
          expect(missing.body).to.not.have.property('livemode')
          const invalid = await request(server.url, SESSIONS, { method: 'POST', headers: bearer(key), json: { ...SESSION_INPUT, type: 'nope' } })
          expect(invalid.status).to.equal(400)
          expect(invalid.body).to.not.have.property('livemode')
        })
      })
    }

    it('gives a minted and a listed key the livemode of its own environment', async () => {
      const partyId = randomUUID()
      const live = await mintKey(server.url, { party_id: partyId, client_name: 'both' })
      const test = await mintKey(server.url, { party_id: partyId, client_name: 'both', environment: 'test' })
      expect([live.livemode, test.livemode]).to.deep.equal([true, false])
      // Each key lists its own environment's keys (decision 128).
      const listedBy = async (key: MintedKey) =>
        (await request(server.url, '/public/partner/api-keys', { headers: bearer(key.api_key) })).body.data.map((k: { api_key_id: string; livemode: boolean }) => [k.api_key_id, k.livemode])
      expect(await listedBy(live)).to.deep.equal([[live.api_key_id, true]])
      expect(await listedBy(test)).to.deep.equal([[test.api_key_id, false]])
    })

    it('says livemode true on internal routes, which act on the live world', async () => {
      const reply = await request(server.url, '/internal/audit-events', { headers: bearer(INTERNAL_TOKEN) })
      expect(reply.status).to.equal(200)
      expect(reply.body.data).to.not.be.empty
      for (const item of reply.body.data) expect(item.livemode).to.equal(true)
    })

    it('says no livemode on the probes and the documents', async () => {
      for (const path of ['/health', '/public/openapi.json']) {
        const reply = await request(server.url, path)
        expect(reply.status, path).to.equal(200)
        expect(reply.body, path).to.not.have.property('livemode')
      }
    })
  })
}
