import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { deliverDueWebhooks, INTERRUPTED_ATTEMPT, keyMintedEvent, newOnboardingSession, OPERATOR_CONTEXT, partyReady, type DeliverDueWebhooksDeps, type WebhookBacklog } from '@lendgate/core'
import { freshId, right } from '@lendgate/core/testing/contracts'
import { testClock, testId } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { Webhook } from 'standardwebhooks'
import { aesGcmWebhookSecrets } from '../src/crypto/webhook-secrets.js'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresWebhookDeliveryQueue } from '../src/postgres/webhook-delivery-queue.js'
import { postgresWebhookEndpointRepository } from '../src/postgres/webhook-endpoint-repository.js'
import { insertWebhookEvent, postgresWebhookEventRepository } from '../src/postgres/webhook-event-repository.js'
import { testDatabases } from '../src/testing/test-databases.js'
import { attemptFailureOf, httpWebhookSender } from '../src/webhooks/http-sender.js'
import { signWebhook } from '../src/webhooks/signature.js'

type Received = { readonly headers: IncomingHttpHeaders; readonly body: string }

/** A partner's webhook receiver that answers with the statuses it is told, in order. */
const startReceiver = async () => {
  const received: Received[] = []
  let statuses: number[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      res.statusCode = statuses.shift() ?? 200
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    answer: (...next: number[]) => {
      statuses = next
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const secrets = aesGcmWebhookSecrets(new Uint8Array(32).fill(3))
const SECRET = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')

for (const database of testDatabases()) {
  describe(`webhook delivery on ${database.name}`, function () {
    this.timeout(30_000)
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let deps: DeliverDueWebhooksDeps & { clock: ReturnType<typeof testClock> }
    let queueEvent: (withEndpoint?: boolean) => Promise<string>
    let events: ReturnType<typeof postgresWebhookEventRepository>
    /** The session of each queued event. */
    const sessions = new Map<string, string>()
    const sessionOf = (eventId: string): string => sessions.get(eventId)!

    before(async () => {
      receiver = await startReceiver()
      const { db } = await database.open()
      const clock = testClock(new Date())
      deps = {
        queue: postgresWebhookDeliveryQueue(db),
        sender: httpWebhookSender({ timeoutMs: 5_000, allowPrivateNetworks: true }),
        sign: signWebhook,
        webhookSecrets: secrets,
        clock,
        schedule: [0, 0, 60],
        random: () => 0,
      }
      events = postgresWebhookEventRepository(db)
      const keys = postgresApiKeyRepository(db)
      const sessionRepository = postgresOnboardingSessionRepository(db)
      const endpoints = postgresWebhookEndpointRepository(db)
      queueEvent = async (withEndpoint = true) => {
        const partyId = freshId()
        const segment = freshId().replace(/-/g, '').slice(0, 16)
        const { client } = await right(
          keys.mint({
            client: { id: freshId(), partyId, name: 'hooks', createdAt: new Date() },
            key: { id: freshId(), partyId, idSegment: segment, prefix: `lgk_test_${segment}`, hash: '0'.repeat(64), environment: 'test', scopes: ['*'], status: 'active', createdAt: new Date(), revokedAt: null, lastUsedAt: null },
          }, ({ client, key }) => keyMintedEvent(freshId(), OPERATOR_CONTEXT, client, key)),
        )
        const session = newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, client.id, freshId(), new Date())
        await right(sessionRepository.insert(session))
        if (withEndpoint) {
          await right(endpoints.upsert({ sessionId: session.id, url: receiver.url, sealedSecret: secrets.seal(SECRET), createdAt: new Date(), updatedAt: new Date() }))
        }
        const event = partyReady(freshId(), session.id, { party_id: freshId() } as never, clock.now(), 'live').queued
        await db.transaction().execute((trx) => insertWebhookEvent(trx, event))
        sessions.set(event.id, session.id)
        return event.id
      }
    })
    after(async () => receiver.close())
    beforeEach(() => {
      receiver.received.length = 0
      receiver.answer()
    })

    const round = async () => {
      const result = await deliverDueWebhooks(deps)(50)
      if (E.isLeft(result)) throw new Error(JSON.stringify(result.left))
      return result.right
    }
    const forEvent = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id)

    it('delivers a signed event the standardwebhooks library verifies, and only once', async () => {
      const id = await queueEvent()
      await round()
      const [delivery] = forEvent(id)
      expect(delivery).not.to.equal(undefined)
      expect(new Webhook(SECRET).verify(delivery!.body, delivery!.headers as Record<string, string>)).to.deep.include({ type: 'party.ready' })
      await round()
      expect(forEvent(id)).to.have.length(1)
    })

    it('counts pending events by what they wait for, and tells since when the longest-due one has waited (issue 38)', async () => {
      const backlog = () => right(deps.queue.backlog(deps.clock.now()))
      const change = (before: WebhookBacklog, after: WebhookBacklog) => ({
        due: after.due - before.due,
        scheduled: after.scheduled - before.scheduled,
        awaitingEndpoint: after.awaitingEndpoint - before.awaitingEndpoint,
      })
      const start = await backlog()
      const due = await queueEvent()
      await queueEvent(false)
      const queued = await backlog()
      expect(change(start, queued)).to.deep.equal({ due: 1, scheduled: 0, awaitingEndpoint: 1 })
      expect(queued.oldestDueAt!.getTime()).to.be.at.most(deps.clock.now().getTime())
      // Two failed attempts: the next is 60 s away, so the event waits for its time, not for a worker.
      receiver.answer(500, 500)
      await round()
      await round()
      expect(forEvent(due)).to.have.length(2)
      expect(change(start, await backlog())).to.deep.equal({ due: 0, scheduled: 1, awaitingEndpoint: 1 })
    })

    it('retries a failing receiver with the same webhook-id until it answers 2xx', async () => {
      const id = await queueEvent()
      receiver.answer(500, 503, 200)
      await round()
      await round()
      deps.clock.advance(61_000)
      await round()
      const deliveries = forEvent(id)
      expect(deliveries).to.have.length(3)
      expect(new Set(deliveries.map((d) => d.headers['webhook-id']))).to.deep.equal(new Set([id]))
      await round()
      expect(forEvent(id)).to.have.length(3)
    })

    it('fails an event whose last scheduled attempt a crash cut short, without sending beyond the schedule (issue 35)', async () => {
      const id = await queueEvent()
      receiver.answer(500, 500)
      await round()
      await round()
      deps.clock.advance(61_000)
      // The third and last attempt of the schedule is claimed, and its worker dies.
      expect((await right(deps.queue.claimDue(deps.clock.now(), 50, 60_000))).map((d) => d.eventId)).to.include(id)
      deps.clock.advance(61_000)
      await round()
      expect(forEvent(id)).to.have.length(2)
      const [event] = (await right(events.listDeliveries(testId(sessionOf(id)), { limit: 10, after: O.none }))).filter((e) => e.id === id)
      expect(event!.status).to.equal('failed')
      expect(event!.attemptLog.map((a) => [a.attemptNumber, a.statusCode, a.error])).to.deep.equal([
        [1, 500, null],
        [2, 500, null],
        [3, null, INTERRUPTED_ATTEMPT],
      ])
    })

    it('stops for good on 410 Gone', async () => {
      const id = await queueEvent()
      receiver.answer(410)
      await round()
      deps.clock.advance(3_600_000)
      await round()
      expect(forEvent(id)).to.have.length(1)
    })

    it('waits for the next delay of the schedule before retrying', async () => {
      const id = await queueEvent()
      receiver.answer(500, 500, 200)
      await round()
      await round()
      expect(forEvent(id)).to.have.length(2)
      await round()
      expect(forEvent(id)).to.have.length(2)
      deps.clock.advance(61_000)
      await round()
      expect(forEvent(id)).to.have.length(3)
    })

    it('holds an event until its session has an endpoint', async () => {
      const id = await queueEvent(false)
      await round()
      expect(forEvent(id)).to.have.length(0)
    })

    it('gives each due event to exactly one of two concurrent workers', async () => {
      const ids = [await queueEvent(), await queueEvent(), await queueEvent()]
      await Promise.all([round(), round()])
      for (const id of ids) expect(forEvent(id), id).to.have.length(1)
    })

    it('redelivers with the same id after a worker died between sending and recording', async () => {
      const id = await queueEvent()
      // A worker claims the event and sends it…
      const claimedAt = deps.clock.now()
      const claimed = (await right(deps.queue.claimDue(claimedAt, 50, 60_000))).find((d) => d.eventId === id)!
      expect(claimed.interruptedLeaseEnd).to.equal(null)
      const headers = signWebhook(SECRET, claimed.eventId, deps.clock.now(), claimed.body)
      expect((await deps.sender.send({ url: claimed.url, headers, body: claimed.body })()).statusCode).to.equal(200)
      // …and dies before recording the attempt. While its lease holds, no other worker sends again…
      await round()
      expect(forEvent(id)).to.have.length(1)
      // …and once the lease has run out, the event is delivered again, with the same id.
      deps.clock.advance(61_000)
      await round()
      const deliveries = forEvent(id)
      expect(deliveries).to.have.length(2)
      expect(deliveries.map((d) => d.headers['webhook-id'])).to.deep.equal([id, id])
      expect(deliveries[1]!.body).to.equal(deliveries[0]!.body)
      // The attempt the crash cut short is in the delivery log, before the one that delivered (issue 35).
      const [event] = (await right(events.listDeliveries(testId(sessionOf(id)), { limit: 10, after: O.none }))).filter((e) => e.id === id)
      expect(event!.status).to.equal('delivered')
      expect(event!.attempts).to.equal(2)
      expect(event!.attemptLog.map((a) => [a.attemptNumber, a.statusCode, a.error])).to.deep.equal([
        [1, null, INTERRUPTED_ATTEMPT],
        [2, 200, null],
      ])
      // As started when the dead worker's lease began.
      expect(event!.attemptLog[0]!.startedAt.getTime()).to.equal(claimedAt.getTime())
    })
  })
}

describe('httpWebhookSender', () => {
  it('refuses to connect to a host name that resolves to a private address, and connects when private networks are allowed', async () => {
    const receiver = await startReceiver()
    try {
      const port = new URL(receiver.url).port
      // localhost resolves to 127.0.0.1 / ::1 from /etc/hosts: a name pointing inside the machine.
      const url = `http://localhost:${port}/hooks`
      const refused = await httpWebhookSender({ timeoutMs: 5_000 }).send({ url, headers: {}, body: '{}' })()
      expect(refused.statusCode).to.equal(null)
      expect(refused.error).to.contain('non-public address')
      expect(receiver.received).to.have.length(0)
      const allowed = await httpWebhookSender({ timeoutMs: 5_000, allowPrivateNetworks: true }).send({ url, headers: {}, body: '{}' })()
      expect(allowed.statusCode).to.equal(200)
      expect(receiver.received).to.have.length(1)
    } finally {
      await receiver.close()
    }
  })

  it('does not follow redirects: a 3xx is the result of the attempt', async () => {
    const receiver = await startReceiver()
    try {
      receiver.answer(302)
      const result = await httpWebhookSender({ timeoutMs: 5_000, allowPrivateNetworks: true }).send({ url: receiver.url, headers: {}, body: '{}' })()
      expect(result.statusCode).to.equal(302)
      expect(receiver.received).to.have.length(1)
    } finally {
      await receiver.close()
    }
  })

  it('ends an attempt that gets no answer within the timeout, as an error that says so', async () => {
    const silent: Server = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`
      const result = await httpWebhookSender({ timeoutMs: 200, allowPrivateNetworks: true }).send({ url, headers: {}, body: '{}' })()
      expect(result).to.include({ statusCode: null, error: 'timed out after 200 ms' })
      expect(result.durationMs).to.be.within(150, 2_000)
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })

  it('records why a connection failed', async () => {
    const closed: Server = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const sender = httpWebhookSender({ timeoutMs: 5_000, allowPrivateNetworks: true })
    for (const host of ['127.0.0.1', 'localhost']) {
      const result = await sender.send({ url: `http://${host}:${port}/hooks`, headers: {}, body: '{}' })()
      expect(result.statusCode, host).to.equal(null)
      expect(result.error, host).to.match(/ECONNREFUSED/)
    }
  })

  it("names a failure by its code when the error has no message (Node's AggregateError when every address refused)", () => {
    const everyAddressRefused = Object.assign(new AggregateError([new Error('connect ECONNREFUSED ::1:9'), new Error('connect ECONNREFUSED 127.0.0.1:9')], ''), { code: 'ECONNREFUSED' })
    expect(attemptFailureOf(everyAddressRefused, 5_000)).to.equal('ECONNREFUSED')
    expect(attemptFailureOf(new AggregateError([], ''), 5_000)).to.equal('AggregateError')
    expect(attemptFailureOf(Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }), 200)).to.equal('timed out after 200 ms')
    expect(attemptFailureOf(new Error('socket hang up'), 5_000)).to.equal('socket hang up')
  })

  it('takes the status of an answer whose body never ends, reading only the start of it', async () => {
    let written = 0
    const endless: Server = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      const chunk = Buffer.alloc(16 * 1024, 120)
      const write = (): void => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length
        if (!res.destroyed) res.once('drain', write)
      }
      write()
    })
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hooks`
      const result = await httpWebhookSender({ timeoutMs: 5_000, allowPrivateNetworks: true }).send({ url, headers: {}, body: '{}' })()
      expect(result).to.include({ statusCode: 200, error: null })
      expect(result.durationMs).to.be.below(5_000)
      expect(written).to.be.below(16 * 1024 * 1024)
    } finally {
      endless.closeAllConnections()
      await new Promise<void>((resolve) => endless.close(() => resolve()))
    }
  })
})
