import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { signedIn, type Signed } from './support/operators.js'
import { partnerCalls, startWebhookReceiver } from './support/partner-journey.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Operators' view of partners' webhook deliveries (docs/console.md "Webhook deliveries"): a
 * receiver that answers 503 until told otherwise, the failed delivery found in the queue with its
 * attempts, retried by an admin (and refused to a reviewer), delivered, and the retry audited.
 */

const TEST_WORLD = { 'Lendgate-Mode': 'test' }

type Delivery = Record<string, unknown> & { readonly status: string; readonly attempts: number }

/** Polls `probe` until it answers, for at most `ms`. */
const eventually = async <A>(what: string, probe: () => Promise<A | undefined>, ms = 20_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

for (const database of testDatabases()) {
  describe(`operators' webhook deliveries on ${database.name}`, function () {
    this.timeout(60_000)
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
    const { ok, withLoan } = partnerCalls(() => server.url)
    /** An internal read with the token, in the test world unless `headers` say otherwise. */
    const internal = (path: string, headers: Record<string, string> = TEST_WORLD): Promise<Reply> => request(server.url, path, { headers: { ...bearer(INTERNAL_TOKEN), ...headers } })
    const deliveriesOf = async (query: string): Promise<Delivery[]> => {
      const reply = await internal(`/internal/webhook-deliveries?${query}`)
      expect(reply.status, reply.text).to.equal(200)
      return reply.body.data as Delivery[]
    }
    const retry = (who: Signed, endpointId: string, eventId: string, json: unknown = {}) =>
      request(server.url, `/internal/webhook-endpoints/${endpointId}/deliveries/${eventId}/retry`, {
        method: 'POST',
        headers: { Cookie: who.cookie, 'X-CSRF-Token': who.csrf, ...TEST_WORLD },
        json,
      })

    before(async () => {
      receiver = await startWebhookReceiver()
      server = await startTestServer(database, { runJobs: true, webhookAllowHttp: true, webhookAllowPrivateNetworks: true, webhookRetrySchedule: [0, 1] })
    })
    after(async () => {
      await server?.stop()
      await receiver?.close()
    })

    it('lists a failed delivery with its attempts; an admin retries it, a reviewer may not; the retry is delivered and audited', async () => {
      receiver.answer(503)
      const partner = await mintKey(server.url, { environment: 'test' })
      const path = `/down-${randomUUID()}`
      const endpoint = await ok(partner, 'POST', '/public/webhook-endpoints', { url: `${receiver.base}${path}`, enabled_events: ['loan.booked'] }, 201)
      const endpointId = endpoint.webhook_endpoint_id as string
      await withLoan(partner)

      const failed = await eventually('the delivery to fail', async () => (await deliveriesOf(`endpoint_id=${endpointId}&status=failed`))[0])
      expect(failed).to.deep.include({ webhook_endpoint_id: endpointId, type: 'loan.booked', status: 'failed', attempts: 2, last_error: 'HTTP 503', url: `${receiver.base}${path}`, next_attempt_at: null })
      expect(failed).to.deep.include({ party_id: partner.party_id, api_client_id: partner.client_id })
      const eventId = failed.event_id as string
      expect((await deliveriesOf(`event_id=${eventId}`)).map((d) => d.webhook_endpoint_id)).to.include(endpointId)
      expect(await deliveriesOf(`endpoint_id=${endpointId}&status=delivered`)).to.deep.equal([])
      // The live world has no such delivery.
      expect((await internal(`/internal/webhook-endpoints/${endpointId}/deliveries/${eventId}`, {})).status).to.equal(404)

      const detail = await internal(`/internal/webhook-endpoints/${endpointId}/deliveries/${eventId}`)
      expect(detail.status, detail.text).to.equal(200)
      const attempts = detail.body.attempt_log as { attempt_number: number; status_code: number | null; url: string; duration_ms: number }[]
      expect(attempts.map((a) => [a.attempt_number, a.status_code, a.url])).to.deep.equal([
        [1, 503, `${receiver.base}${path}`],
        [2, 503, `${receiver.base}${path}`],
      ])

      const reviewer = await signedIn(server, 'reviewer')
      const refused = await retry(reviewer, endpointId, eventId)
      expect(refused.status, refused.text).to.equal(403)
      expect(refused.body).to.deep.include({ error: 'insufficient_role', role: 'reviewer', permission: 'operate_rails' })
      expect((await deliveriesOf(`endpoint_id=${endpointId}`))[0]?.status).to.equal('failed')

      receiver.answer(204)
      const admin = await signedIn(server, 'admin')
      const retried = await retry(admin, endpointId, eventId)
      expect(retried.status, retried.text).to.equal(200)
      expect(retried.body).to.deep.include({ webhook_endpoint_id: endpointId, event_id: eventId, status: 'pending', attempts: 2, livemode: false })
      const delivered = await eventually('the retry to be delivered', async () => (await deliveriesOf(`endpoint_id=${endpointId}&status=delivered`))[0])
      expect(delivered).to.deep.include({ attempts: 3, last_error: null })
      const after = await internal(`/internal/webhook-endpoints/${endpointId}/deliveries/${eventId}`)
      expect((after.body.attempt_log as { status_code: number }[]).map((a) => a.status_code)).to.deep.equal([503, 503, 204])
      expect(receiver.received.filter((r) => r.path === path).map((r) => r.headers['webhook-id'])).to.deep.equal([eventId, eventId, eventId])

      const audit = await internal(`/internal/audit-events?action=webhook_delivery.retried&subject_id=${endpointId}`)
      expect(audit.status, audit.text).to.equal(200)
      expect(audit.body.data).to.have.length(1)
      expect(audit.body.data[0]).to.deep.include({ action: 'webhook_delivery.retried', subject: { type: 'webhook_endpoint', id: endpointId }, actor: { type: 'operator', id: admin.operatorId } })
      expect(audit.body.data[0].details).to.deep.equal({ webhook_endpoint_id: endpointId, event_id: eventId, type: 'loan.booked', status_before: 'failed', attempts_before: 2 })
    })

    it('pages every delivery by cursor, and refuses bad filters, forged cursors and unknown deliveries with a 4xx', async () => {
      receiver.answer(204)
      const partner = await mintKey(server.url, { environment: 'test' })
      const endpoint = await ok(partner, 'POST', '/public/webhook-endpoints', { url: `${receiver.base}/all-${randomUUID()}`, enabled_events: ['*'] }, 201)
      const endpointId = endpoint.webhook_endpoint_id as string
      await withLoan(partner)
      const all = await eventually('several deliveries', async () => {
        const found = await deliveriesOf(`endpoint_id=${endpointId}&limit=100`)
        return found.length >= 2 ? found : undefined
      })
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const reply = await internal(`/internal/webhook-deliveries?endpoint_id=${endpointId}&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`)
        expect(reply.status, reply.text).to.equal(200)
        seen.push(...(reply.body.data as Delivery[]).map((d) => d.event_id as string))
        cursor = reply.body.next_cursor as string | null
      } while (cursor !== null && seen.length <= all.length)
      expect(seen).to.deep.equal(all.map((d) => d.event_id))

      for (const query of ['status=lost', 'endpoint_id=nope', 'event_id=evt_1', 'cursor=abc', 'limit=0', 'party=1']) {
        const reply = await internal(`/internal/webhook-deliveries?${query}`)
        expect(reply.status, `${query}: ${reply.text}`).to.equal(400)
        expect(reply.body.error).to.equal('invalid_request')
      }
      const first = all[0] as Delivery
      const unknownEvent = await internal(`/internal/webhook-endpoints/${endpointId}/deliveries/evt_${'0'.repeat(32)}`)
      expect(unknownEvent.status).to.equal(404)
      expect(unknownEvent.body.error).to.equal('not_found')
      const unknownEndpoint = await internal(`/internal/webhook-endpoints/${randomUUID()}/deliveries/${first.event_id as string}`)
      expect(unknownEndpoint.status).to.equal(404)

      const admin = await signedIn(server, 'admin')
      const withBody = await retry(admin, endpointId, first.event_id as string, { now: true })
      expect(withBody.status, withBody.text).to.equal(400)
      const missing = await retry(admin, randomUUID(), first.event_id as string)
      expect(missing.status).to.equal(404)
      const byToken = await request(server.url, `/internal/webhook-endpoints/${endpointId}/deliveries/${first.event_id as string}/retry`, { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), ...TEST_WORLD } })
      expect(byToken.status, byToken.text).to.equal(200)
      expect(byToken.body.status).to.equal('pending')
    })
  })
}
