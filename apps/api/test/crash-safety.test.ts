import { randomUUID } from 'node:crypto'
import { IDEMPOTENCY_LEASE_MS, INTERRUPTED_ATTEMPT } from '@lendgate/core'
import { expect } from 'chai'
import { Webhook } from 'standardwebhooks'
import { overHttp, processEnv, startApiProcess, type ApiProcess } from './support/api-process.js'
import { allPages, bookLoan, expectLedgerMatchesLatestBalance, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower, type CodeReceiver } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { durableDatabases, type DurableDatabase } from './support/durable-databases.js'
import { INTERNAL_TOKEN, MINT_SECRET } from './support/test-server.js'
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/webhook-receiver.js'
import { testId } from '@lendgate/core/testing'

const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }
const PAYMENT_AMOUNT = 10_000
const IN_USE = { error: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still being processed; retry shortly.' }

/**
 * Where, in the life of a request, the process is killed: a fraction of how long the same
 * request took on that process just before. The exact point is a race; across these, crashes
 * land before a request arrives, in its middle and around its commit.
 */
const KILL_POINTS = [0.2, 0.6, 1] as const

/** What became of a request cut short by a crash: its reply, or none (the connection died). */
type Outcome = { readonly reply: Reply | undefined }

const outcomeOf = async (sent: Promise<Reply>): Promise<Outcome> => {
  try {
    return { reply: await sent }
  } catch (error) {
    // undici: the connection failed or closed before (`fetch failed`) or during (`terminated`) the answer.
    if (error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated')) return { reply: undefined }
    throw error
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

const timed = async <A>(run: () => Promise<A>): Promise<{ readonly value: A; readonly ms: number }> => {
  const started = performance.now()
  const value = await run()
  return { value, ms: performance.now() - started }
}

/** One kill: a payment and a mint in flight when the process died, and what followed. */
type Round = {
  readonly key: string
  readonly payment: Outcome
  /** The same payment request, sent again right after the restart. */
  readonly replay: Reply
  readonly partyId: string
  readonly clientName: string
  readonly mint: Outcome
}

/** The rows an interrupted mint left, read while the process was down. */
type MintRows = { readonly clients: readonly { id: string }[]; readonly keys: readonly { id: string; client_id: string; status: string }[] }

/**
 * The API runs as a process of its own and is killed with SIGKILL (nothing of it runs after:
 * no graceful stop, no flush) at several points, then started again on the same database. One
 * sequence of crashes serves every check below: each crash interrupts a payment and a key mint,
 * and the last one also a webhook delivery.
 */
for (const kind of durableDatabases()) {
  describe(`Crash safety: the API process killed with SIGKILL, on ${kind.name}`, function () {
    this.timeout(120_000)
    let database: DurableDatabase
    let codes: CodeReceiver
    let hooks: WebhookReceiver
    /** The borrower's webhook endpoint for payment.succeeded (docs/events.md), up throughout. */
    let endpointHooks: WebhookReceiver
    let endpointSecret: string
    let api: ApiProcess
    /** The output of every process started. */
    const outputs: (() => string)[] = []
    let borrower: Borrower
    let loan: BookedLoan
    let methodId: string
    let payoffBefore: number
    /** Payments made, and answered, between the crashes (to time the requests). */
    const completed: string[] = []
    const rounds: Round[] = []
    /** Each round's payment, asked for once more after every lease ended. */
    const finals: Reply[] = []
    const mintRows = new Map<string, MintRows>()
    /** The payment stored under each round's Idempotency-Key, read while the process was down. */
    const storedPayments = new Map<string, string | undefined>()
    let webhookSecret: string
    let interrupted: ReceivedWebhook
    /** The interrupted event's row, read while the process was down. */
    let eventAtCrash: { readonly id: string; readonly status: string; readonly attempts: number; readonly leasedBeyondCrash: boolean }

    const start = async (): Promise<void> => {
      api = await startApiProcess({ ...processEnv(codes.url), ...database.env })
      outputs.push(api.output)
    }
    const asBorrower = (): Record<string, string> => bearer(borrower.key.api_key)
    const pay = (key: string): Promise<Reply> =>
      request(api.url, loan.paths.payments, { method: 'POST', headers: { ...asBorrower(), 'Idempotency-Key': key }, json: { amount: PAYMENT_AMOUNT, currency: 'USD', payment_method_id: methodId } })
    const mint = (partyId: string, clientName: string): Promise<Reply> =>
      request(api.url, '/public/partner/api-keys', { method: 'POST', headers: { 'X-Partner-Mint-Key': MINT_SECRET }, json: { party_id: partyId, client_name: clientName } })

    /** While the process is down: what the crash left, and the ends of the dead process's leases. */
    const inspectAfterLastCrash = (eventId: string, crashed: readonly Pick<Round, 'key' | 'partyId'>[]): Promise<void> =>
      database.inspect(async (db) => {
        for (const { key } of crashed) {
          const stored = await db.selectFrom('payments').select('id').where('client_id', '=', testId(borrower.key.client_id)).where('idempotency_key', '=', key).execute()
          expect(stored.length, key).to.be.at.most(1)
          storedPayments.set(key, stored[0]?.id)
        }
        for (const { partyId } of crashed) {
          const clients = await db.selectFrom('api_clients').select('id').where('party_id', '=', testId(partyId)).execute()
          const keys = await db.selectFrom('api_keys').select(['id', 'client_id', 'status']).where('party_id', '=', testId(partyId)).execute()
          mintRows.set(partyId, { clients, keys })
        }
        const event = await db.selectFrom('webhook_events').selectAll().where('id', '=', testId(eventId)).executeTakeFirstOrThrow()
        eventAtCrash = { id: event.id, status: event.status, attempts: event.attempts, leasedBeyondCrash: (event.locked_until?.getTime() ?? 0) > Date.now() }
        // A lease keeps a slow but live process's claim its own; a dead process's claim is taken
        // over when its lease ends (DELIVERY_LEASE_MS, 60 s, for a webhook event; IDEMPOTENCY_LEASE_MS,
        // 60 s, for an Idempotency-Key: 409 idempotency_key_in_use meanwhile). End them now rather
        // than wait a minute.
        await db.updateTable('webhook_events').set({ locked_until: new Date(Date.now() - 1_000) }).where('id', '=', testId(eventId)).execute()
        // The same for the deliveries of events to the partner's endpoint a dead process was sending
        // (its attempt is recorded as interrupted when taken over), due again at once.
        await db.updateTable('event_deliveries').set({ locked_until: new Date(Date.now() - 1_000), next_attempt_at: new Date() }).where('status', '=', 'pending').execute()
        await db
          .updateTable('idempotency_keys')
          .set({ claimed_at: new Date(Date.now() - IDEMPOTENCY_LEASE_MS - 1_000) })
          .where('scope', '=', borrower.key.client_id)
          .where('completed_at', 'is', null)
          .execute()
      })

    before(async () => {
      codes = await startCodeReceiver()
      hooks = await startWebhookReceiver({ holdFirst: true })
      endpointHooks = await startWebhookReceiver()
      database = await kind.create()
      await start()
      // The approval queues party.ready; it waits for the session's webhook.
      borrower = await onboardBorrower(overHttp(api), codes)
      loan = await bookLoan(overHttp(api), borrower)
      const method = await request(api.url, loan.paths.paymentMethods, { method: 'POST', headers: asBorrower(), json: BANK_ACCOUNT })
      expect(method.status, method.text).to.equal(201)
      methodId = method.body.payment_method_id as string
      payoffBefore = (await request(api.url, loan.paths.latestBalance, { headers: asBorrower() })).body.payoff_amount as number
      const endpoint = await request(api.url, '/public/webhook-endpoints', { method: 'POST', headers: asBorrower(), json: { url: endpointHooks.url, enabled_events: ['payment.succeeded'] } })
      expect(endpoint.status, endpoint.text).to.equal(201)
      endpointSecret = endpoint.body.secret as string

      for (const [n, point] of KILL_POINTS.entries()) {
        const last = n === KILL_POINTS.length - 1
        if (last) {
          const registered = await request(api.url, `/public/onboarding-sessions/${borrower.sessionId}/webhook`, {
            method: 'PUT',
            headers: bearer(borrower.partnerKey.api_key),
            json: { webhook_url: hooks.url },
          })
          expect(registered.status, registered.text).to.equal(200)
          webhookSecret = registered.body.webhook_secret as string
          // The receiver holds the request open: the worker is in the middle of a delivery.
          interrupted = await hooks.arrival(1)
        }
        const paid = await timed(() => pay(`completed-${randomUUID()}`))
        expect(paid.value.status, paid.value.text).to.equal(201)
        completed.push(paid.value.body.payment_id as string)
        const minted = await timed(() => mint(randomUUID(), 'timing'))
        expect(minted.value.status, minted.value.text).to.equal(201)

        // Both requests are at `point` of their expected life when the process dies.
        const key = `crash-${n}-${randomUUID()}`
        const partyId = randomUUID()
        const clientName = `crash-round-${n}`
        const payment = outcomeOf(pay(key))
        await sleep(point * (paid.ms - minted.ms))
        const minting = outcomeOf(mint(partyId, clientName))
        await sleep(point * minted.ms)
        await api.crash()
        const round = { key, payment: await payment, partyId, clientName, mint: await minting }
        if (last) await inspectAfterLastCrash(interrupted.headers['webhook-id'] as string, [...rounds, round])
        await start()
        rounds.push({ ...round, replay: await pay(key) })
      }
      for (const r of rounds) finals.push(await pay(r.key))
    })
    after(async () => {
      await api?.crash()
      await database?.dispose()
      await hooks?.close()
      await endpointHooks?.close()
      await codes?.close()
    })

    it('delivers the webhook event a crash interrupted mid-delivery after the restart: same webhook-id, same body, a valid signature', async () => {
      const eventId = interrupted.headers['webhook-id'] as string
      expect(eventAtCrash, 'the event as the crash left it: claimed, never recorded as attempted').to.deep.equal({
        id: eventId,
        status: 'pending',
        attempts: 0,
        leasedBeyondCrash: true,
      })

      const delivered = await hooks.arrival(2)
      expect(delivered.headers['webhook-id']).to.equal(eventId)
      expect(delivered.body).to.equal(interrupted.body)
      const event = new Webhook(webhookSecret).verify(delivered.body, delivered.headers as Record<string, string>) as { type: string; data: { party_id: string } }
      expect({ type: event.type, party_id: event.data.party_id }).to.deep.equal({ type: 'party.ready', party_id: borrower.partyId })

      const path = `/public/onboarding-sessions/${borrower.sessionId}/webhook/deliveries`
      const until = Date.now() + 10_000
      let log: Reply
      for (;;) {
        log = await request(api.url, path, { headers: bearer(borrower.partnerKey.api_key) })
        expect(log.status, log.text).to.equal(200)
        if (log.body.data[0]?.status === 'delivered' || Date.now() > until) break
        await sleep(50)
      }
      // The interrupted attempt died with its process before its outcome was recorded; the
      // worker that took the expired lease over records it as interrupted (issue 35).
      expect(
        log.body.data.map((d: { event_id: string; status: string; attempt_log: { status_code: number | null; error: string | null }[] }) => [
          d.event_id,
          d.status,
          d.attempt_log.map((a) => [a.status_code, a.error]),
        ]),
      ).to.deep.equal([[eventId, 'delivered', [[null, INTERRUPTED_ATTEMPT], [204, null]]]])
      expect(hooks.received).to.have.length(2)
    })

    it('pays once per Idempotency-Key whatever the point of the crash: a replay answers the one payment, or 409 idempotency_key_in_use while the dead request holds the key', () => {
      for (const [n, r] of rounds.entries()) {
        const final = finals[n]!
        expect(final.status, `round ${n}: ${final.text}`).to.equal(201)
        expect({ amount: final.body.amount, status: final.body.status }).to.deep.equal({ amount: PAYMENT_AMOUNT, status: 'SUCCEEDED' })
        const stored = storedPayments.get(r.key)
        if (stored !== undefined) expect(final.body.payment_id, `round ${n}: the payment stored under the key before the last restart`).to.equal(stored)
        for (const earlier of [r.payment.reply, r.replay]) {
          if (earlier?.status === 409) expect(earlier.body, `round ${n}`).to.deep.equal(IN_USE)
          else if (earlier !== undefined) expect({ status: earlier.status, body: earlier.body }, `round ${n}: the same payment`).to.deep.equal({ status: 201, body: final.body })
        }
      }
      expect(new Set(finals.map((f) => f.body.payment_id)).size, 'a payment of its own per key').to.equal(rounds.length)
    })

    it('keeps one PAYMENT entry per payment and the ledger, balance and schedule in agreement', async () => {
      const ledger = await allPages(overHttp(api), borrower.key.api_key, loan.paths.transactions)
      const paid = ledger.filter((t) => t['type'] === 'PAYMENT').map((t) => t['payment_id'] as string)
      expect([...paid].sort(), 'no duplicate, nothing missing').to.deep.equal([...completed, ...finals.map((f) => f.body.payment_id as string)].sort())
      const latest = await expectLedgerMatchesLatestBalance(overHttp(api), borrower.key.api_key, loan.paths, 'after the crashes')
      expect(latest['payoff_amount']).to.equal(payoffBefore - PAYMENT_AMOUNT * paid.length)
    })

    it('writes one payment.succeeded per payment across the crashes, numbered in the loan\'s order, and delivers each to the endpoint under its id', async () => {
      const paid = [...completed, ...finals.map((f) => f.body.payment_id as string)].sort()
      const events = await allPages(overHttp(api), borrower.key.api_key, '/public/events?type=payment.succeeded')
      expect(events.map((e) => (e['data'] as { payment_id: string }).payment_id).sort(), 'one event per payment, none for a payment that was not made').to.deep.equal(paid)
      const sequences = events.map((e) => e['sequence'] as number)
      expect(new Set(sequences).size, 'no sequence twice').to.equal(sequences.length)
      expect([...sequences].sort((a, b) => a - b), 'in list order').to.deep.equal(sequences)
      // Delivered at least once each (a crash mid-send sends again, with the same webhook-id), and nothing else.
      const ids = new Set(events.map((e) => e['id'] as string))
      const until = Date.now() + 15_000
      const delivered = () => new Set(endpointHooks.received.map((r) => r.headers['webhook-id'] as string))
      while ([...ids].some((id) => !delivered().has(id)) && Date.now() < until) await sleep(50)
      expect([...delivered()].sort()).to.deep.equal([...ids].sort())
      for (const r of endpointHooks.received) expect(() => new Webhook(endpointSecret).verify(r.body, r.headers as Record<string, string>)).to.not.throw()
    })

    it('leaves a key mint a crash interrupted whole or absent: an API client with its key, or neither', async () => {
      const listed = async (apiKey: string): Promise<string[]> => {
        const listing = await request(api.url, '/public/partner/api-keys', { headers: bearer(apiKey) })
        expect(listing.status, listing.text).to.equal(200)
        return listing.body.data.map((k: { api_key_id: string }) => k.api_key_id).sort()
      }
      for (const r of rounds) {
        const { clients, keys } = mintRows.get(r.partyId)!
        const left = keys[0]?.id
        if (left === undefined) expect({ clients, keys }, r.clientName).to.deep.equal({ clients: [], keys: [] })
        else expect(keys, r.clientName).to.deep.equal([{ id: left, client_id: clients[0]?.id, status: 'active' }])
        expect(clients, r.clientName).to.have.length(keys.length)
        if (r.mint.reply !== undefined) expect({ status: r.mint.reply.status, id: r.mint.reply.body.api_key_id }).to.deep.equal({ status: 201, id: left })

        // The client takes further keys as usual and lists the one the crash left with them.
        const again = await mint(r.partyId, r.clientName)
        expect(again.status, again.text).to.equal(201)
        const expected = [again.body.api_key_id as string, ...(left === undefined ? [] : [left])].sort()
        expect(await listed(again.body.api_key), r.clientName).to.deep.equal(expected)
        if (r.mint.reply !== undefined) expect(await listed(r.mint.reply.body.api_key), `${r.clientName}: the answered key works`).to.deep.equal(expected)
      }
    })

    it('writes no secret to its output, crashes included', () => {
      const secrets = [
        MINT_SECRET,
        INTERNAL_TOKEN,
        borrower.key.api_key,
        borrower.partnerKey.api_key,
        webhookSecret,
        endpointSecret,
        ...rounds.flatMap((r) => (r.mint.reply === undefined ? [] : [r.mint.reply.body.api_key as string])),
      ]
      for (const output of outputs) for (const secret of secrets) expect(output().includes(secret), `${secret.slice(0, 8)}… in the output`).to.equal(false)
    })
  })
}
