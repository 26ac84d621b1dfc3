import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { inMemoryLoanProductRepository, SEEDED_LOAN_PRODUCTS } from '@lendgate/core/testing'
import { expect } from 'chai'
import { OPERATIONS } from '../src/routes/operations.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { answersOf, buildSubject, ownerOfPath, type Subject } from './support/isolation-fixtures.js'
import { operatorHeaders, startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Wiping a partner's test data (decision 132): `DELETE /public/test-helpers/data` with a test key
 * holding `keys:manage` deletes every test-world record of the key's API client at once, and
 * nothing else: not another client's test data, not the live world, not the keys. Run on each
 * database and on the in-memory adapters (test subjects only there: their live world sends codes
 * to no receiver).
 */

const WIPE = '/public/test-helpers/data'
/**
 * The events of a wiped subject (docs/events.md): party.ready, the booked application's
 * submitted and decided, loan.booked and one payment.succeeded.
 */
const EVENTS = 5

type Target = { readonly name: string; readonly start: (deliveryUrl: string) => Promise<TestServer>; readonly live: boolean }

const TARGETS: readonly Target[] = [
  ...testDatabases().map((database): Target => ({ name: database.name, start: (url) => startTestServer(database, { verificationDeliveryUrl: url }), live: true })),
  { name: 'in-memory adapters', start: () => startInMemoryServer(() => ({ products: inMemoryLoanProductRepository([...SEEDED_LOAN_PRODUCTS]) })), live: false },
]

/** Whether an answer shows a record: a 200 with a body that is not an empty page. */
const showsRecord = (answer: unknown): boolean => {
  const { status, body } = answer as { status: number; body: { data?: unknown[] } }
  return status === 200 && !(Array.isArray(body.data) && body.data.length === 0)
}

/** The operation an `answersOf` label names. */
const operationOf = (label: string) => OPERATIONS.find((op) => label.startsWith(`${op.operationId} `))!

for (const target of TARGETS) {
  describe(`wiping a partner's test data, on ${target.name}`, function () {
    this.timeout(60_000)
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    /** Wiped: a test subject with a record of every kind. */
    let w: Subject
    /** Kept: a test subject of another client. */
    let k: Subject
    /** Kept: a live subject, and a live session of W's own client. */
    let l: Subject | undefined
    let wLive: MintedKey
    let wLiveSession: Reply
    /** Keys of W's client the wipe refuses: a live one, and a test one without `keys:manage`. */
    let live: MintedKey
    let unscoped: MintedKey
    /** A session W's client opened with an Idempotency-Key: the key's record goes with the wipe. */
    const sessionKey = `wipe-session-${randomUUID()}`

    const call = (key: MintedKey, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      request(server.url, path, { method, headers: { ...bearer(key.api_key), ...headers }, ...(json === undefined ? {} : { json }) })

    before(async () => {
      receiver = await startCodeReceiver()
      server = await target.start(receiver.url)
      w = await buildSubject(server, receiver, 'W', 1, 'test')
      k = await buildSubject(server, receiver, 'K', 2, 'test')
      const opened = await call(w.partnerKey, 'POST', '/public/onboarding-sessions', { country_of_incorporation: 'US', locale: 'en-US' }, { 'Idempotency-Key': sessionKey })
      expect(opened.status, opened.text).to.equal(201)
      live = await mintKey(server.url, { party_id: w.partnerKey.party_id, client_name: w.partnerKey.client_name })
      unscoped = await mintKey(server.url, { party_id: w.partnerKey.party_id, client_name: w.partnerKey.client_name, environment: 'test', scopes: ['partner:api'] })
      if (target.live) {
        l = await buildSubject(server, receiver, 'L', 3, 'live')
        wLive = live
        const created = await call(wLive, 'POST', '/public/onboarding-sessions', { country_of_incorporation: 'US', locale: 'en-US' })
        expect(created.status, created.text).to.equal(201)
        wLiveSession = await call(wLive, 'GET', `/public/onboarding-sessions/${created.body.session_id as string}`)
      }
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    it('refuses a live key (403 test_mode_only) and a test key without keys:manage (403 insufficient_scope), deleting nothing', async () => {
      const before = await answersOf(server, w)
      const refused = await call(live, 'DELETE', WIPE)
      expect([refused.status, refused.body.error]).to.deep.equal([403, 'test_mode_only'])
      const lacking = await call(unscoped, 'DELETE', WIPE)
      expect([lacking.status, lacking.body.error, lacking.body.scope]).to.deep.equal([403, 'insufficient_scope', 'keys:manage'])
      expect(await answersOf(server, w)).to.deep.equal(before)
      // The session's Idempotency-Key is still held: another body under it is a mismatch.
      const reused = await call(w.partnerKey, 'POST', '/public/onboarding-sessions', { country_of_incorporation: 'GB', locale: 'en-GB' }, { 'Idempotency-Key': sessionKey })
      expect(reused.status, reused.text).to.equal(422)
    })

    it("deletes every test record of the key's client at once and counts them; another client's test data and the live world stay as they were", async () => {
      const keptBefore = await answersOf(server, k)
      const liveBefore = l === undefined ? undefined : await answersOf(server, l)
      const wBefore = await answersOf(server, w)

      const wiped = await call(w.partnerKey, 'DELETE', WIPE)
      expect(wiped.status, wiped.text).to.equal(200)
      // W's client: its approved and open sessions and the keyed one, the party they made, the
      // booked application and a draft of the party (applied for by its borrower's own client),
      // the loan, its payment, the party.ready event and the party's clock.
      expect(wiped.body).to.deep.equal({
        deleted: { onboarding_sessions: 3, parties: 1, loan_applications: 2, loans: 1, payments: 1, events: EVENTS, webhook_events: 1, test_clocks: 1 },
        livemode: false,
      })

      const shownBefore = Object.entries(wBefore).filter(([, answer]) => showsRecord(answer))
      expect(shownBefore.length, 'W showed its records before').to.be.greaterThan(20)
      const wAfter = await answersOf(server, w)
      const stillShown = Object.keys(wAfter).filter((label) => {
        const op = operationOf(label)
        // Keys and the product catalogue are not test data.
        const kept = op.path.startsWith('/public/partner/api-keys') || ownerOfPath(op) === 'none' || op.path.endsWith('/available-loan-products')
        return !kept && showsRecord(wAfter[label])
      })
      expect(stillShown, 'W records still shown').to.deep.equal([])

      expect(await answersOf(server, k), "another client's test data").to.deep.equal(keptBefore)
      if (l !== undefined) {
        expect(await answersOf(server, l), 'the live world').to.deep.equal(liveBefore)
        const session = await call(wLive, 'GET', `/public/onboarding-sessions/${wLiveSession.body.session_id as string}`)
        expect([session.status, session.body], "a live session of W's own client").to.deep.equal([200, wLiveSession.body])
      }
      // Its keys stay: the partner key reads its (now empty) test world.
      const sessions = await call(w.partnerKey, 'GET', '/public/onboarding-sessions/' + w.worlds.open.sessionId)
      expect(sessions.status).to.equal(404)
    })

    it("leaves one audit event of the wipe in the test world's trail, where the client's earlier events were", async () => {
      const trail = await request(server.url, `/internal/audit-events?api_client_id=${w.partnerKey.client_id}`, { headers: operatorHeaders('test') })
      expect(trail.status, trail.text).to.equal(200)
      const events = trail.body.data as Record<string, unknown>[]
      expect(events.map((e) => e['action'])).to.deep.equal(['test_data.wiped'])
      expect(events[0]).to.deep.include({
        actor: { type: 'api_key', id: w.partnerKey.api_key_id },
        subject: { type: 'api_client', id: w.partnerKey.client_id },
        details: { onboarding_sessions: 3, parties: 1, loan_applications: 2, loans: 1, payments: 1, events: EVENTS, webhook_events: 1, test_clocks: 1 },
      })
      const party = await request(server.url, `/internal/audit-events?party_id=${w.borrower.partyId}`, { headers: operatorHeaders('test') })
      expect(party.body.data, "the party's events").to.deep.equal([])
    })

    it('lets the client start again: a new session, its Idempotency-Keys free, and a second wipe that finds nothing', async () => {
      const reused = await call(w.partnerKey, 'POST', '/public/onboarding-sessions', { country_of_incorporation: 'GB', locale: 'en-GB' }, { 'Idempotency-Key': sessionKey })
      expect(reused.status, reused.text).to.equal(201)
      expect(reused.body).to.deep.include({ country_of_incorporation: 'GB', livemode: false })
      const again = await call(w.partnerKey, 'DELETE', WIPE)
      expect(again.body.deleted).to.deep.equal({ onboarding_sessions: 1, parties: 0, loan_applications: 0, loans: 0, payments: 0, events: 0, webhook_events: 0, test_clocks: 0 })
    })
  })
}
