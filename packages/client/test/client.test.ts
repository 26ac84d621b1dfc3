import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'chai'
import { Webhook } from 'standardwebhooks'
import { mintKey } from '../../../apps/api/test/support/client.js'
import { MINT_SECRET, startInMemoryServer, type TestServer } from '../../../apps/api/test/support/test-server.js'
import { createLendgateClient, LendgateError, paginate, unwrap, verifyWebhook, type ErrorCode, type WebhookEvent } from '../src/index.js'

/** A local server answering each request with `answer(n)` (n from 1), recording what it was sent. */
type Recorded = { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders; readonly body: string; readonly at: number }
const startStub = async (answer: (n: number, req: Recorded) => { status: number; headers?: Record<string, string>; body?: unknown }): Promise<{ url: string; seen: Recorded[]; close: () => Promise<void> }> => {
  const seen: Recorded[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() }
      seen.push(recorded)
      const reply = answer(seen.length, recorded)
      res.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers })
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

const SESSION = { session_id: randomUUID(), status: 'in_progress' }

describe('@lendgate/client against the API', function () {
  this.timeout(30_000)
  let server: TestServer

  before(async () => {
    server = await startInMemoryServer()
  })
  after(async () => {
    await server.stop()
  })

  it('makes typed calls under <base URL>/public/v1 with the API key as a bearer token', async () => {
    const key = await mintKey(server.url, { environment: 'test' })
    const lendgate = createLendgateClient({ baseUrl: `${server.url}/public/v1`, apiKey: key.api_key! })
    const session = unwrap(await lendgate.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } }))
    expect(session.session_id).to.be.a('string')
    expect(session.livemode).to.equal(false)
    const again = unwrap(await lendgate.GET('/onboarding-sessions/{sessionId}', { params: { path: { sessionId: session.session_id } } }))
    expect(again.session_id).to.equal(session.session_id)
  })

  it('mints a key through the client, the mint secret as a per-call header', async () => {
    const lendgate = createLendgateClient({ baseUrl: `${server.url}/public/v1/` })
    const minted = unwrap(
      await lendgate.POST('/partner/api-keys', { headers: { 'X-Partner-Mint-Key': MINT_SECRET }, body: { party_id: randomUUID(), client_name: 'client-test', environment: 'test' } }),
    )
    expect(minted.key_prefix).to.match(/^lgk_test_/)
  })

  it('sends an Idempotency-Key with a POST, and the same one again when it retries a 503 after Retry-After', async () => {
    const stub = await startStub((n) => (n === 1 ? { status: 503, headers: { 'Retry-After': '1' }, body: { error: 'not_ready', detail: 'starting' } } : { status: 201, body: SESSION }))
    try {
      const lendgate = createLendgateClient({ baseUrl: `${stub.url}/public/v1`, apiKey: 'lgk_test_x' })
      const started = Date.now()
      const session = unwrap(await lendgate.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } }))
      expect(session.session_id).to.equal(SESSION.session_id)
      expect(stub.seen.map((r) => `${r.method} ${r.url}`)).to.deep.equal(['POST /public/v1/onboarding-sessions', 'POST /public/v1/onboarding-sessions'])
      const [first, second] = stub.seen
      const key = first!.headers['idempotency-key']
      expect(key).to.match(/^[0-9a-f-]{36}$/)
      expect(second!.headers['idempotency-key'], 'the retry carries the same key').to.equal(key)
      expect(second!.body, 'the retry carries the same body').to.equal(first!.body)
      expect(first!.headers['authorization']).to.equal('Bearer lgk_test_x')
      expect(second!.at - first!.at, 'waited Retry-After: 1').to.be.at.least(950)
      expect(Date.now() - started).to.be.below(5_000)
    } finally {
      await stub.close()
    }
  })

  it('keeps an Idempotency-Key the caller gave, and gives each call its own', async () => {
    const stub = await startStub(() => ({ status: 201, body: SESSION }))
    try {
      const lendgate = createLendgateClient({ baseUrl: `${stub.url}/public/v1` })
      await lendgate.POST('/onboarding-sessions', { headers: { 'Idempotency-Key': 'mine-1' }, body: { country_of_incorporation: 'US', locale: 'en-US' } })
      await lendgate.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } })
      await lendgate.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } })
      const keys = stub.seen.map((r) => r.headers['idempotency-key'])
      expect(keys[0]).to.equal('mine-1')
      expect(keys[1]).to.not.equal(keys[2])
      expect(stub.seen[0]!.headers['authorization'], 'no key, no Authorization').to.equal(undefined)
    } finally {
      await stub.close()
    }
  })

  it('waits Retry-After after a 429 and gives up after the attempts configured, answering the last 429', async () => {
    const stub = await startStub(() => ({ status: 429, headers: { 'Retry-After': '1', 'X-Request-Id': 'req_429' }, body: { error: 'rate_limited', detail: 'slow down' } }))
    try {
      const lendgate = createLendgateClient({ baseUrl: `${stub.url}/public/v1`, retry: { attempts: 2 } })
      const result = await lendgate.GET('/webhook-endpoints')
      expect(result.response.status).to.equal(429)
      expect(stub.seen).to.have.length(2)
      expect(stub.seen[1]!.at - stub.seen[0]!.at, 'waited Retry-After: 1').to.be.at.least(950)
      const error = (() => {
        try {
          unwrap(result)
        } catch (e) {
          return e
        }
      })()
      expect(error).to.be.instanceOf(LendgateError)
      expect((error as LendgateError).code).to.equal('rate_limited')
      expect((error as LendgateError).requestId).to.equal('req_429')
    } finally {
      await stub.close()
    }
  })

  it('retries with the default of 3 attempts in all, and not at all with retry: false', async () => {
    const stub = await startStub(() => ({ status: 503, headers: { 'Retry-After': '0' }, body: { error: 'not_ready', detail: 'starting' } }))
    try {
      await createLendgateClient({ baseUrl: stub.url }).GET('/webhook-endpoints')
      expect(stub.seen).to.have.length(3)
      await createLendgateClient({ baseUrl: stub.url, retry: false }).GET('/webhook-endpoints')
      expect(stub.seen).to.have.length(4)
    } finally {
      await stub.close()
    }
  })

  it('retries a POST after a network error with the same Idempotency-Key', async () => {
    const keys: (string | null)[] = []
    let calls = 0
    const flaky = async (request: Request): Promise<Response> => {
      calls += 1
      keys.push(request.headers.get('Idempotency-Key'))
      if (calls === 1) throw new TypeError('fetch failed')
      return Response.json(SESSION, { status: 201 })
    }
    const lendgate = createLendgateClient({ baseUrl: 'http://127.0.0.1:9/public/v1', fetch: flaky, retry: { baseDelayMs: 10 } })
    unwrap(await lendgate.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } }))
    expect(calls).to.equal(2)
    expect(keys[0]).to.be.a('string')
    expect(keys[1]).to.equal(keys[0])
  })

  it('surfaces a network failure as the fetch error once the attempts are spent', async () => {
    const lendgate = createLendgateClient({ baseUrl: 'http://127.0.0.1:9/public/v1', fetch: async () => Promise.reject(new TypeError('fetch failed')), retry: { baseDelayMs: 1 } })
    let thrown: unknown
    try {
      await lendgate.GET('/webhook-endpoints')
    } catch (e) {
      thrown = e
    }
    expect(thrown).to.be.instanceOf(TypeError)
  })

  it('walks every page of a list, keeping limit, with typed items', async () => {
    const key = await mintKey(server.url, { environment: 'test' })
    const lendgate = createLendgateClient({ baseUrl: `${server.url}/public/v1`, apiKey: key.api_key! })
    const created: string[] = []
    for (let i = 0; i < 5; i += 1) {
      const endpoint = unwrap(await lendgate.POST('/webhook-endpoints', { body: { url: `https://hooks.partner.example/lendgate/${i}`, enabled_events: ['loan.booked'] } }))
      created.push(endpoint.webhook_endpoint_id)
    }
    const pages: string[] = []
    const spy = createLendgateClient({
      baseUrl: `${server.url}/public/v1`,
      apiKey: key.api_key!,
      fetch: (request) => {
        pages.push(new URL(request.url).search)
        return fetch(request)
      },
    })
    const seen: string[] = []
    for await (const endpoint of paginate(spy, '/webhook-endpoints', { params: { query: { limit: 2 } } })) seen.push(endpoint.webhook_endpoint_id)
    expect(seen).to.have.members(created)
    expect(seen).to.have.length(5)
    expect(pages).to.have.length(3)
    expect(pages[0]).to.equal('?limit=2')
    for (const page of pages.slice(1)) expect(page).to.match(/^\?limit=2&cursor=/)
  })

  it("turns an error answer into a LendgateError with the server's code and request id", async () => {
    const key = await mintKey(server.url, { environment: 'test' })
    const lendgate = createLendgateClient({ baseUrl: `${server.url}/public/v1`, apiKey: key.api_key! })
    const result = await lendgate.GET('/webhook-endpoints/{endpointId}', { params: { path: { endpointId: randomUUID() } } })
    let thrown: unknown
    try {
      unwrap(result)
    } catch (e) {
      thrown = e
    }
    expect(thrown).to.be.instanceOf(LendgateError)
    const error = thrown as LendgateError
    const expected: ErrorCode = 'not_found'
    expect(error.status).to.equal(404)
    expect(error.code).to.equal(expected)
    expect(error.detail).to.be.a('string')
    expect(error.requestId).to.be.a('string').and.equal(result.response.headers.get('X-Request-Id'))
    expect(error.body).to.deep.include({ error: 'not_found' })
    expect(error.message).to.contain('not_found')

    const keyless = createLendgateClient({ baseUrl: `${server.url}/public/v1` })
    let missing: unknown
    try {
      unwrap(await keyless.GET('/webhook-endpoints'))
    } catch (e) {
      missing = e
    }
    expect((missing as LendgateError).code).to.equal('missing_api_key')
  })
})

describe('@lendgate/client verifyWebhook', function () {
  const event = { id: 'evt_1', type: 'loan.booked', livemode: false, timestamp: new Date().toISOString(), occurred_at: new Date().toISOString(), data: { loan_id: randomUUID() } }
  const body = JSON.stringify(event)
  const whsec = `whsec_${randomBytes(32).toString('base64')}`
  const plain = `plain-secret-${randomBytes(8).toString('hex')}-é`
  const delivery = (signer: Webhook, payload = body, at = new Date()): Record<string, string> => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign('evt_1', at, payload),
  })

  it('accepts a delivery signed with a whsec_ secret (base64 after the prefix), typed by the document', () => {
    const verified: WebhookEvent = verifyWebhook(whsec, body, delivery(new Webhook(whsec)))
    expect(verified).to.deep.equal(event)
    if (verified.type === 'loan.booked') expect(verified.data.loan_id).to.equal(event.data.loan_id)
  })

  it("accepts a delivery signed with any other secret as its UTF-8 bytes, and node's req.headers or a Headers", () => {
    const signer = new Webhook(new TextEncoder().encode(plain), { format: 'raw' })
    expect(verifyWebhook(plain, Buffer.from(body), delivery(signer))).to.deep.equal(event)
    expect(verifyWebhook(plain, body, new Headers(delivery(signer)))).to.deep.equal(event)
    expect(() => verifyWebhook(plain, body, delivery(new Webhook(Buffer.from(plain, 'latin1'), { format: 'raw' })))).to.throw()
  })

  it('accepts either of two signatures during a secret rotation', () => {
    const old = `whsec_${randomBytes(32).toString('base64')}`
    const signed = delivery(new Webhook(whsec))
    const both = { ...signed, 'webhook-signature': `${signed['webhook-signature']} ${delivery(new Webhook(old))['webhook-signature']}` }
    expect(verifyWebhook(whsec, body, both)).to.deep.equal(event)
    expect(verifyWebhook(old, body, both)).to.deep.equal(event)
    expect(verifyWebhook([randomBytes(4).toString('hex'), old], body, both)).to.deep.equal(event)
  })

  it('refuses a tampered body, a wrong secret, a missing header and a stale timestamp', () => {
    const signed = delivery(new Webhook(whsec))
    expect(() => verifyWebhook(whsec, body.replace('evt_1', 'evt_2'), signed)).to.throw()
    expect(() => verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, body, signed)).to.throw()
    expect(() => verifyWebhook(whsec, body, { ...signed, 'webhook-signature': undefined })).to.throw()
    expect(() => verifyWebhook(whsec, body, delivery(new Webhook(whsec), body, new Date(Date.now() - 10 * 60_000)))).to.throw(/too old/)
  })
})
