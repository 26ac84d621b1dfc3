import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const newSession = async (url: string, key: MintedKey): Promise<string> =>
  (await request(url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: { country_of_incorporation: 'US', locale: 'en-US' } }))
    .body.session_id

const register = (url: string, key: MintedKey, sessionId: string, json: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  request(url, `/public/onboarding-sessions/${sessionId}/webhook`, { method: 'PUT', headers: { ...bearer(key.api_key), ...headers }, json })

for (const database of testDatabases()) {
  describe(`PUT …/webhook on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    it('registers with a generated whsec_ secret shown once, then replaces the URL keeping created_at', async () => {
      const key = await mintKey(server.url)
      const id = await newSession(server.url, key)
      const first = await register(server.url, key, id, { webhook_url: 'https://93.184.216.34/hooks/lendgate' })
      expect(first.status).to.equal(200)
      const { webhook_secret, created_at, updated_at, ...rest } = first.body
      expect(rest).to.deep.equal({ session_id: id, webhook_url: 'https://93.184.216.34/hooks/lendgate', livemode: true })
      expect(webhook_secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/)
      expect(created_at).to.match(ISO_MS)
      expect(server.logs.raw()).not.to.contain(webhook_secret)

      const replaced = await register(server.url, key, id, { webhook_url: 'https://93.184.216.35/v2', webhook_secret: 'partner-chosen-secret-1234' })
      expect(replaced.status).to.equal(200)
      expect(replaced.body).to.deep.equal({ session_id: id, webhook_url: 'https://93.184.216.35/v2', created_at, updated_at: replaced.body.updated_at, livemode: true })
      expect(replaced.text).not.to.contain('partner-chosen-secret-1234')
    })

    it('refuses http, private targets and malformed secrets with 400 naming the field', async () => {
      const key = await mintKey(server.url)
      const id = await newSession(server.url, key)
      for (const [json, param] of [
        [{ webhook_url: 'http://93.184.216.34/h' }, 'webhook_url'],
        [{ webhook_url: 'https://127.0.0.1/h' }, 'webhook_url'],
        [{ webhook_url: 'https://[::ffff:127.0.0.1]/h' }, 'webhook_url'],
        [{ webhook_url: 'https://93.184.216.34/h', webhook_secret: 'short' }, 'webhook_secret'],
        [{ webhook_url: 'https://93.184.216.34/h', webhook_secret: 'whsec_not*base64' }, 'webhook_secret'],
        [{}, 'webhook_url'],
      ] as const) {
        const reply = await register(server.url, key, id, json)
        expect(reply.status, JSON.stringify(json)).to.equal(400)
        expect(reply.body.error).to.equal('invalid_request')
        expect(reply.body.param).to.equal(param)
      }
    })

    it("answers 404 for another client's session and 400 for a malformed id", async () => {
      const owner = await mintKey(server.url)
      const stranger = await mintKey(server.url)
      const id = await newSession(server.url, owner)
      expect((await register(server.url, stranger, id, { webhook_url: 'https://93.184.216.34/h' })).status).to.equal(404)
      expect((await register(server.url, owner, 'nope', { webhook_url: 'https://93.184.216.34/h' })).status).to.equal(400)
    })

    it('replays an idempotent registration without the generated secret', async () => {
      const key = await mintKey(server.url)
      const id = await newSession(server.url, key)
      const headers = { 'Idempotency-Key': `wh-${id}` }
      const first = await register(server.url, key, id, { webhook_url: 'https://93.184.216.34/h' }, headers)
      const replay = await register(server.url, key, id, { webhook_url: 'https://93.184.216.34/h' }, headers)
      const { webhook_secret: _secret, ...withoutSecret } = first.body
      expect(replay.status).to.equal(200)
      expect(replay.body).to.deep.equal(withoutSecret)
      expect(replay.headers.get('idempotent-replayed')).to.equal('true')
    })
  })
}

describe('PUT …/webhook with host names (in-memory server with its own resolver)', () => {
  let server: TestServer
  before(async () => {
    server = await startInMemoryServer()
  })
  after(async () => server.stop())

  it('accepts a host resolving only to public addresses and refuses one resolving to loopback or private', async () => {
    const key = await mintKey(server.url)
    const id = await newSession(server.url, key)
    expect((await register(server.url, key, id, { webhook_url: 'https://hooks.partner.example/lendgate' })).status).to.equal(200)
    for (const host of ['sneaky.partner.example', 'mapped.partner.example', 'internal.partner.example', 'unknown.partner.example']) {
      const reply = await register(server.url, key, id, { webhook_url: `https://${host}/lendgate` })
      expect(reply.status, host).to.equal(400)
      expect(reply.body.param).to.equal('webhook_url')
    }
  })

  it('answers 500 server_misconfigured without a sealing key', async () => {
    const bare = await startInMemoryServer(() => ({ webhookSecrets: undefined }))
    try {
      const key = await mintKey(bare.url)
      const id = await newSession(bare.url, key)
      const reply = await register(bare.url, key, id, { webhook_url: 'https://hooks.partner.example/h' })
      expect(reply.status).to.equal(500)
      expect(reply.body).to.deep.equal({
        error: 'server_misconfigured',
        detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it).",
      })
    } finally {
      await bare.stop()
    }
  })
})
