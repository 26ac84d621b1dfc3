import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { Webhook } from 'standardwebhooks'
import { mintKey, type MintedKey } from './support/client.js'
import { partnerCalls, startWebhookReceiver, waitFor, type Received } from './support/partner-journey.js'
import { startTestServer, testConfig, type TestServer } from './support/test-server.js'

/**
 * Partner-level webhook endpoints (docs/events.md "Webhook endpoints") as a partner meets them:
 * a real receiver, signatures checked with the `standardwebhooks` package as published, a type
 * filter, secret rotation with its grace period, a disabled endpoint's events recovered, a resend.
 */

const W = '/public/webhook-endpoints'
/** Resends and recoveries allowed per event or endpoint per window on this suite's server. */
const MANUAL_RETRIES = 3

type Event = { readonly id: string; readonly type: string; readonly sequence?: number; readonly data: Record<string, unknown> }

/** The deliveries to `path`, each verified with `secret` (throws if one does not verify). */
const verified = (received: readonly Received[], path: string, secret: string): Event[] =>
  received
    .filter((r) => r.path === path)
    .map(
      (r) =>
        new Webhook(secret).verify(r.body, {
          'webhook-id': String(r.headers['webhook-id']),
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        }) as Event,
    )

const verifies = (r: Received, secret: string): boolean => {
  try {
    verified([r], r.path, secret)
    return true
  } catch {
    return false
  }
}

for (const database of testDatabases()) {
  describe(`webhook endpoints on ${database.name}`, function () {
    this.timeout(60_000)
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
    const { call, ok, withLoan } = partnerCalls(() => server.url)
    /** An endpoint of `partner` at `path` on the receiver. */
    const endpoint = (partner: MintedKey, path: string, enabled_events: readonly string[]) =>
      ok(partner, 'POST', W, { url: `${receiver.base}${path}`, enabled_events, description: 'our backend' }, 201)
    const at = (path: string) => receiver.received.filter((r) => r.path === path)

    before(async () => {
      receiver = await startWebhookReceiver()
      server = await startTestServer(database, {
        runJobs: true,
        webhookAllowHttp: true,
        webhookAllowPrivateNetworks: true,
        webhookRetrySchedule: [0, 1, 1],
        rateLimits: { ...testConfig().rateLimits, webhookRetries: MANUAL_RETRIES },
      })
    })
    after(async () => {
      await server?.stop()
      await receiver?.close()
    })

    it('delivers the types an endpoint enables, each once, signed, the body as the event list shows it', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const created = await endpoint(partner, '/filtered', ['loan.booked', 'payment.succeeded', 'loan.paid_off'])
      expect(created).to.deep.include({ url: `${receiver.base}/filtered`, enabled_events: ['loan.booked', 'payment.succeeded', 'loan.paid_off'], status: 'enabled', description: 'our backend', previous_secret_expires_at: null, livemode: false })
      expect(created.secret).to.match(/^whsec_/)
      const everything = await endpoint(partner, '/everything', ['*'])
      const loan = await withLoan(partner)
      await loan.pay(100_000)
      await loan.payOff()

      const filtered = await waitFor('four deliveries', () => (at('/filtered').length >= 4 ? verified(receiver.received, '/filtered', created.secret as string) : undefined))
      // Deliveries may arrive in any order (they are sent in parallel, and retried): a loan's sequence orders them.
      const inOrder = [...filtered].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0))
      expect(inOrder.map((e) => e.type)).to.deep.equal(['loan.booked', 'payment.succeeded', 'payment.succeeded', 'loan.paid_off'])
      expect(inOrder.map((e) => e.sequence)).to.deep.equal([1, 2, 3, 4])
      const all = await waitFor('seven deliveries', () => (at('/everything').length >= 7 ? verified(receiver.received, '/everything', everything.secret as string) : undefined))
      expect(all.map((e) => e.type)).to.have.members(['party.ready', 'application.submitted', 'application.decided', 'loan.booked', 'payment.succeeded', 'payment.succeeded', 'loan.paid_off'])
      expect(new Set(all.map((e) => e.id)).size).to.equal(7)
      // The body is the listed event, byte for byte; webhook-id is its id.
      const listed = (await ok(partner, 'GET', '/public/events?limit=100', undefined, 200)).data as Record<string, unknown>[]
      for (const r of at('/everything')) {
        const match = listed.find((e) => e['id'] === r.headers['webhook-id'])
        expect(match, `listed ${String(r.headers['webhook-id'])}`).to.not.equal(undefined)
        expect(JSON.parse(r.body)).to.deep.equal(match)
      }
      // Nothing more arrives: each event went once to each endpoint.
      await new Promise((r) => setTimeout(r, 500))
      expect([at('/filtered').length, at('/everything').length]).to.deep.equal([4, 7])
    })

    it('manages endpoints as its API client\'s own, and refuses bad input naming the field', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const other = await mintKey(server.url, { environment: 'test' })
      const created = await endpoint(partner, '/managed', ['loan.booked'])
      const id = created.webhook_endpoint_id as string
      const shown = await ok(partner, 'GET', `${W}/${id}`, undefined, 200)
      expect(shown).to.not.have.property('secret')
      expect((await ok(partner, 'GET', W, undefined, 200)).data.map((e: { webhook_endpoint_id: string }) => e.webhook_endpoint_id)).to.deep.equal([id])
      for (const [method, path, json] of [['GET', `${W}/${id}`, undefined], ['PATCH', `${W}/${id}`, { status: 'disabled' }], ['DELETE', `${W}/${id}`, undefined], ['POST', `${W}/${id}/rotate-secret`, {}]] as const) {
        const reply = await call(other, method, path, json)
        expect([reply.status, reply.body.error], `${method} ${path} by another client`).to.deep.equal([404, 'not_found'])
      }
      expect((await ok(other, 'GET', W, undefined, 200)).data).to.deep.equal([])
      const refusals: [unknown, string][] = [
        [{ url: 'ftp://example.com/hook', enabled_events: ['*'] }, 'url'],
        [{ url: `${receiver.base}/x`, enabled_events: ['loan.exploded'] }, 'enabled_events.0'],
        [{ url: `${receiver.base}/x`, enabled_events: [] }, 'enabled_events'],
        [{ url: `${receiver.base}/x` }, 'enabled_events'],
        [{ url: `${receiver.base}/x`, enabled_events: ['*'], colour: 'red' }, 'colour'],
      ]
      for (const [json, param] of refusals) {
        const reply = await call(partner, 'POST', W, json)
        expect([reply.status, reply.body.error, reply.body.param], JSON.stringify(json)).to.deep.equal([400, 'invalid_request', param])
      }
      expect((await ok(partner, 'GET', W, undefined, 200)).data).to.have.length(1)
      // Sixteen at most: each is a delivery written with every event it takes.
      for (let n = 1; n < 16; n += 1) await endpoint(partner, `/many-${n}`, ['loan.booked'])
      const seventeenth = await call(partner, 'POST', W, { url: `${receiver.base}/one-too-many`, enabled_events: ['*'] })
      expect([seventeenth.status, seventeenth.body.error]).to.deep.equal([400, 'invalid_request'])
      expect((await ok(partner, 'GET', W, undefined, 200)).data).to.have.length(16)
      const patched = await ok(partner, 'PATCH', `${W}/${id}`, { enabled_events: ['*'], description: null, status: 'disabled' }, 200)
      expect(patched).to.deep.include({ enabled_events: ['*'], description: null, status: 'disabled' })
      const deleted = await ok(partner, 'DELETE', `${W}/${id}`, undefined, 200)
      expect(deleted).to.deep.include({ webhook_endpoint_id: id, deleted: true })
      expect((await call(partner, 'GET', `${W}/${id}`)).status).to.equal(404)
    })

    it('signs with the old and the new secret during a rotation\'s grace period, and with the new alone after one without', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const created = await endpoint(partner, '/rotating', ['payment.succeeded'])
      const id = created.webhook_endpoint_id as string
      const loan = await withLoan(partner)
      const rotated = await ok(partner, 'POST', `${W}/${id}/rotate-secret`, { grace_period_seconds: 3600 }, 200)
      expect(rotated.secret).to.match(/^whsec_/)
      expect(rotated.secret).to.not.equal(created.secret)
      expect(Date.parse(rotated.previous_secret_expires_at as string) - Date.now()).to.be.within(3_500_000, 3_600_000)
      await loan.pay(50_000)
      const during = await waitFor('a delivery during the grace period', () => at('/rotating')[0])
      expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2)
      expect([verifies(during, created.secret as string), verifies(during, rotated.secret as string)]).to.deep.equal([true, true])

      const yours = 'a-partner-chosen-secret-of-32-chars!'
      const again = await ok(partner, 'POST', `${W}/${id}/rotate-secret`, { secret: yours, grace_period_seconds: 0 }, 200)
      expect(again).to.not.have.property('secret')
      expect(again.previous_secret_expires_at).to.equal(null)
      // Changing its settings afterwards keeps the rotated secret (a settings change never writes secrets).
      const patched = await ok(partner, 'PATCH', `${W}/${id}`, { description: 'rotated' }, 200)
      expect(patched).to.deep.include({ description: 'rotated', previous_secret_expires_at: null })
      await loan.pay(50_000)
      const after = await waitFor('a delivery after the rotation', () => at('/rotating')[1])
      // A secret without the whsec_ prefix: its UTF-8 bytes are the key (docs/events.md).
      const asRaw = new Webhook(new TextEncoder().encode(yours), { format: 'raw' })
      expect(() => asRaw.verify(after.body, { 'webhook-id': String(after.headers['webhook-id']), 'webhook-timestamp': String(after.headers['webhook-timestamp']), 'webhook-signature': String(after.headers['webhook-signature']) })).to.not.throw()
      expect([verifies(after, rotated.secret as string), verifies(after, created.secret as string)]).to.deep.equal([false, false])
    })

    it('sends a disabled endpoint nothing, then recovers the range it missed, once; and resends one event on request', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const created = await endpoint(partner, '/recovering', ['*'])
      const id = created.webhook_endpoint_id as string
      await ok(partner, 'PATCH', `${W}/${id}`, { status: 'disabled' }, 200)
      const since = new Date(Date.now() - 1000).toISOString()
      const loan = await withLoan(partner)
      await loan.pay(100_000)
      await new Promise((r) => setTimeout(r, 500))
      expect(at('/recovering')).to.deep.equal([])
      const missed = (await ok(partner, 'GET', `/public/events?since=${since}&limit=100`, undefined, 200)).data as { id: string }[]
      expect(missed.length).to.equal(5)

      await ok(partner, 'PATCH', `${W}/${id}`, { status: 'enabled' }, 200)
      expect(await ok(partner, 'POST', `${W}/${id}/recover`, { since }, 200)).to.deep.include({ recovered: 5 })
      const got = await waitFor('the recovered events', () => (at('/recovering').length >= 5 ? verified(receiver.received, '/recovering', created.secret as string) : undefined))
      expect(got.map((e) => e.id)).to.have.members(missed.map((e) => e.id))
      // Recovering again finds nothing undelivered.
      expect(await ok(partner, 'POST', `${W}/${id}/recover`, { since }, 200)).to.deep.include({ recovered: 0 })

      const first = missed[0]!.id
      const resent = await ok(partner, 'POST', `${W}/${id}/resend/${first}`, undefined, 200)
      expect(resent).to.deep.include({ webhook_endpoint_id: id, event_id: first, status: 'pending' })
      await waitFor('the resend', () => (at('/recovering').filter((r) => r.headers['webhook-id'] === first).length === 2 ? true : undefined))
      expect(at('/recovering')).to.have.length(6)

      // Refusals: an event the partner does not see, a window backwards, too many resends.
      const stranger = await mintKey(server.url, { environment: 'test' })
      const theirs = await endpoint(stranger, '/theirs', ['*'])
      const notSeen = await call(stranger, 'POST', `${W}/${theirs.webhook_endpoint_id as string}/resend/${first}`)
      expect([notSeen.status, notSeen.body.error]).to.deep.equal([404, 'not_found'])
      const backwards = await call(partner, 'POST', `${W}/${id}/recover`, { since, until: since })
      expect([backwards.status, backwards.body.param]).to.deep.equal([400, 'until'])
      const statuses: number[] = []
      for (let n = 0; n < MANUAL_RETRIES + 1; n += 1) statuses.push((await call(partner, 'POST', `${W}/${id}/resend/${first}`)).status)
      expect(statuses.slice(-1)).to.deep.equal([429])
    })
  })
}
