import { TEST_VERIFICATION_CODE } from '@lendgate/core'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { Webhook } from 'standardwebhooks'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, testConfig, type TestServer } from './support/test-server.js'

/** The partner's webhook endpoint: records deliveries, answers 200. */
const startHookReceiver = async (status = 204) => {
  const received: { headers: IncomingHttpHeaders; body: string }[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      res.statusCode = status
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/lendgate`, received, close: () => new Promise<void>((r) => server.close(() => r())) }
}

const waitFor = async <A>(probe: () => A | undefined, ms = 10_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const found = probe()
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Manual retries allowed per event per window on this suite's server. */
const MANUAL_RETRIES = 3

for (const database of testDatabases()) {
  describe(`party.ready end to end on ${database.name}`, function () {
    this.timeout(30_000)
    let server: TestServer
    let codes: Awaited<ReturnType<typeof startCodeReceiver>>
    let hooks: Awaited<ReturnType<typeof startHookReceiver>>
    let key: MintedKey
    const partner = (method: string, path: string, json?: unknown): Promise<Reply> =>
      request(server.url, `/public/onboarding-sessions${path}`, { method, headers: bearer(key.api_key), ...(json === undefined ? {} : { json }) })
    // A test-world session's code is always 000000 (decision 130), and nothing is delivered.
    const lastCode = (): string => (key.environment === 'test' ? TEST_VERIFICATION_CODE : (codes.received[codes.received.length - 1]!['code'] as string))

    const submittedSession = async (): Promise<string> => {
      const id = (await partner('POST', '', { country_of_incorporation: 'US', locale: 'en-US' })).body.session_id as string
      await partner('POST', `/${id}/contact/phone`, { phone: '+14155550123' })
      await partner('POST', `/${id}/contact/phone/verify`, { code: lastCode() })
      await partner('POST', `/${id}/contact/email`, { email: 'jane@acme.example' })
      await partner('POST', `/${id}/contact/email/verify`, { code: lastCode() })
      await partner('PUT', `/${id}/applicant-profile`, { legal_name: 'Acme Widgets LLC' })
      await partner('POST', `/${id}/addresses`, { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' })
      expect((await partner('POST', `/${id}/submit`, {})).status).to.equal(201)
      return id
    }
    /** Polls the delivery log until the session's first event satisfies `done`. */
    const waitForLog = async (id: string, done: (d: { status: string }) => boolean) => {
      const until = Date.now() + 10_000
      for (;;) {
        const log = await partner('GET', `/${id}/webhook/deliveries`)
        expect(log.status).to.equal(200)
        const first = log.body.data[0]
        if (first !== undefined && done(first)) return first
        if (Date.now() > until) throw new Error(`delivery log never matched: ${log.text}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    const approve = (id: string) => request(server.url, `/internal/onboarding-sessions/${id}/approve`, { method: 'POST', headers: bearer(INTERNAL_TOKEN) })

    before(async () => {
      codes = await startCodeReceiver()
      hooks = await startHookReceiver()
      server = await startTestServer(database, {
        verificationDeliveryUrl: codes.url,
        runJobs: true,
        webhookAllowHttp: true,
        webhookAllowPrivateNetworks: true,
        rateLimits: { ...testConfig().rateLimits, webhookRetries: MANUAL_RETRIES },
      })
    })
    after(async () => {
      await server.stop()
      await codes.close()
      await hooks.close()
    })
    beforeEach(async () => {
      key = await mintKey(server.url)
    })

    it('delivers a signed party.ready whose data is the getPartyBySessionId body, the event as the event list shows it', async () => {
      const id = await submittedSession()
      const registered = await partner('PUT', `/${id}/webhook`, { webhook_url: hooks.url })
      expect(registered.status).to.equal(200)
      const secret = registered.body.webhook_secret as string
      expect((await approve(id)).status).to.equal(200)
      const party = (await partner('GET', `/${id}/party`)).body
      const delivery = await waitFor(() => hooks.received.find((r) => r.body.includes(party.party_id)))
      const event = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as { id: string; type: string; livemode: boolean; data: unknown; timestamp: string }
      expect([event.type, event.livemode]).to.deep.equal(['party.ready', true])
      expect(event.data).to.deep.equal(party)
      expect(delivery.headers['webhook-id']).to.match(/^evt_[0-9a-f]{32}$/)
      expect(event.id).to.equal(delivery.headers['webhook-id'])
      // The same event, byte for byte, is in the partner's event list.
      const listed = (await request(server.url, '/public/events?type=party.ready&limit=100', { headers: bearer(key.api_key) })).body.data as { id: string }[]
      expect(listed.find((e) => e.id === event.id)).to.deep.equal(JSON.parse(delivery.body))
    })

    it('delivers the test world\'s party.ready too, saying livemode false, from its own outbox (decision 128)', async () => {
      key = await mintKey(server.url, { environment: 'test' })
      const id = await submittedSession()
      const registered = await partner('PUT', `/${id}/webhook`, { webhook_url: hooks.url })
      expect(registered.status).to.equal(200)
      const approved = await request(server.url, `/public/test-helpers/onboarding-sessions/${id}/approve`, { method: 'POST', headers: bearer(key.api_key), json: {} })
      expect(approved.status, approved.text).to.equal(200)
      const party = (await partner('GET', `/${id}/party`)).body
      const delivery = await waitFor(() => hooks.received.find((r) => r.body.includes(party.party_id)))
      const event = new Webhook(registered.body.webhook_secret as string).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string; livemode: boolean }
      expect([event.type, event.livemode]).to.deep.equal(['party.ready', false])
      expect((await waitForLog(id, (d) => d.status === 'delivered')).status).to.equal('delivered')
    })

    it(`limits manual retries to ${MANUAL_RETRIES} per event per window: past it 429 webhook_retry, other events unaffected (issue 35)`, async () => {
      const id = await submittedSession()
      const gone = await startHookReceiver(410)
      try {
        await partner('PUT', `/${id}/webhook`, { webhook_url: gone.url })
        await approve(id)
        const log = await waitForLog(id, (d) => d.status === 'failed')
        const retry = () => partner('POST', `/${id}/webhook/deliveries/${log.event_id}/retry`, {})
        for (let n = 1; n <= MANUAL_RETRIES; n++) expect((await retry()).status, `retry ${n}`).to.be.oneOf([200, 409])
        const refused = await retry()
        expect(refused.status).to.equal(429)
        expect(refused.body).to.include({ error: 'rate_limited', policy: 'webhook_retry' })
        expect(refused.headers.get('retry-after')).to.match(/^\d+$/)
        // Another event id is another bucket: this one is simply unknown.
        expect((await partner('POST', `/${id}/webhook/deliveries/evt_${'1'.repeat(32)}/retry`, {})).status).to.equal(404)
      } finally {
        await gone.close()
      }
    })

    it('lists every attempt in the delivery log, and retries a failed event on request', async () => {
      const id = await submittedSession()
      const gone = await startHookReceiver(410)
      try {
        await partner('PUT', `/${id}/webhook`, { webhook_url: gone.url })
        await approve(id)
        await waitFor(() => (gone.received.length > 0 ? true : undefined))
        const log = await waitForLog(id, (d) => d.status === 'failed')
        expect(log.attempt_log.map((a: { status_code: number }) => a.status_code)).to.deep.equal([410])
        expect(log.next_attempt_at).to.equal(null)
        expect(log.event_id).to.match(/^evt_[0-9a-f]{32}$/)

        await partner('PUT', `/${id}/webhook`, { webhook_url: hooks.url })
        const withBody = await partner('POST', `/${id}/webhook/deliveries/${log.event_id}/retry`, { now: true })
        expect(withBody.status, 'the retry takes no body but {}').to.equal(400)
        expect(withBody.body).to.deep.equal({ error: 'invalid_request', detail: 'now is not a known field', param: 'now' })
        expect((await waitForLog(id, (d) => d.status === 'failed')).attempt_log).to.have.length(1)
        const retried = await partner('POST', `/${id}/webhook/deliveries/${log.event_id}/retry`)
        expect(retried.status).to.equal(200)
        expect(retried.body).to.deep.include({ event_id: log.event_id, status: 'pending' })
        const delivered = await waitForLog(id, (d) => d.status === 'delivered')
        expect(delivered.attempt_log.map((a: { status_code: number }) => a.status_code)).to.deep.equal([410, 204])
        const again = await partner('POST', `/${id}/webhook/deliveries/${log.event_id}/retry`, {})
        expect(again.status).to.equal(409)
        expect((await partner('POST', `/${id}/webhook/deliveries/evt_${'0'.repeat(32)}/retry`, {})).status).to.equal(404)
        expect((await partner('POST', `/${id}/webhook/deliveries/nope/retry`, {})).status).to.equal(400)
      } finally {
        await gone.close()
      }
    })

    it('delivers the event when the webhook is registered after approval', async () => {
      const id = await submittedSession()
      expect((await approve(id)).status).to.equal(200)
      const party = (await partner('GET', `/${id}/party`)).body
      await new Promise((r) => setTimeout(r, 300))
      expect(hooks.received.some((r) => r.body.includes(party.party_id))).to.equal(false)
      const secret = 'a-partner-chosen-plain-secret'
      await partner('PUT', `/${id}/webhook`, { webhook_url: hooks.url, webhook_secret: secret })
      const delivery = await waitFor(() => hooks.received.find((r) => r.body.includes(party.party_id)))
      const event = new Webhook(new TextEncoder().encode(secret), { format: 'raw' }).verify(delivery.body, delivery.headers as Record<string, string>)
      expect(event).to.deep.include({ type: 'party.ready' })
    })
  })
}
