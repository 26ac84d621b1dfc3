import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { expect } from 'chai'
import { bearer, type ApiClient } from './support/api-client.js'
import { acquireResources, RATE_LIMIT, startFleet, type Fleet, type Resources } from './support/fleet.js'
import { approveSession, borrowerWithLoans, mintKey, paymentRequest, sendPayment, strictCall, submittedSession } from './support/journeys.js'
import { startDisruptionTraffic, type Answered } from './support/disruption-traffic.js'
import { killMidDelivery, type MidDeliveryKill } from './support/kill-mid-delivery.js'
import { declaredType, promtoolCheck, samplesOf, scrape, total, type Scrape } from './support/metrics.js'
import type { Delivery } from './support/partner-receiver.js'
import { burst, loanRecords, replayUntilSettled } from './support/payment-burst.js'
import { hammer, secondsToReset } from './support/rate-limit-hammer.js'
import { runTraffic } from './support/traffic.js'
import { forEachConcurrently, sleep, waitUntil } from './support/waiting.js'

/**
 * The fleet test (`pnpm test:fleet`): a scratch database behind PgBouncer in transaction mode,
 * two API processes and two workers started with the project's own commands, then mixed partner
 * traffic, a key revoked across instances, webhooks delivered while a worker is killed, payments
 * while an API is killed, payments while every database backend is terminated and PgBouncer
 * restarts, the shared rate limit and every process's metrics. Needs the local
 * PostgreSQL (127.0.0.1:5432, trust) with `createdb` and `dropdb`, `pgbouncer` and `promtool`
 * (`.ci/run` installs both; `PGBOUNCER_PATH` and `PROMTOOL_PATH` point elsewhere).
 */

const PARTNERS = 10
const TRAFFIC_MS = 60_000
const WEBHOOK_SESSIONS = 200
/** A killed worker's leased events go out again once their lease (60 s) has expired. */
const STRAGGLERS_MS = 90_000
const LOANS = 4
const PAYMENTS_PER_LOAN = 30
/** Payments answered before API A is killed. */
const KILL_AFTER = 30
/** A payment cut short holds its Idempotency-Key for the claim's lease (60 s). */
const IN_USE_MS = 90_000

/** Clients of the traffic under disruption, and the borrowers (keys) they share. */
const DISRUPTION_CLIENTS = 8
const DISRUPTION_ACCOUNTS = 4
/** Traffic before, between and after the disruptions. */
const SETTLE_MS = 3_000
/** A request sent just as a disruption ended may still meet a connection it ended. */
const IN_FLIGHT_GRACE_MS = 500

/**
 * A line of a process's log that tells of its end: a record logged at `fatal`, Node's report of
 * an unhandled error or rejection, or pnpm's of the command's exit.
 */
const isFatal = (line: string): boolean => {
  if (line.startsWith('{')) {
    try {
      return (JSON.parse(line) as { level?: unknown }).level === 'fatal'
    } catch {
      return false
    }
  }
  return /Unhandled '\w+' event|Uncaught|unhandled rejection|ERR_UNHANDLED_REJECTION|ELIFECYCLE/i.test(line)
}

/** A short list for a failure message: how many, and the first few. */
const listed = (items: readonly string[]): string => `${items.length}:\n${items.slice(0, 20).join('\n')}`

/** A line under the test's title in mocha's output: what this run measured. */
const note = (text: string): void => console.log(`      ${text}`)

/** Alternates between the APIs, request by request. */
const alternating = (apis: readonly ApiClient[]): (() => ApiClient) => {
  let next = 0
  return () => apis[next++ % apis.length] as ApiClient
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i)

describe('a fleet of two APIs and two workers behind PgBouncer', function () {
  let run: Resources
  let fleet: Fleet
  let failed = false
  /** The kill of worker 2 in the webhook test: the metrics check adds back the counters it held. */
  let workerKill: MidDeliveryKill | undefined

  const showLogs = (): void => {
    failed = true
    console.error(`\nLogs kept in ${run.dir}; their last lines:\n${run.logTails()}`)
  }

  before(async function () {
    this.timeout(180_000)
    run = acquireResources()
    try {
      fleet = await startFleet(run)
    } catch (error) {
      showLogs()
      throw error
    }
  })

  afterEach(function () {
    if (this.currentTest?.state === 'failed') showLogs()
  })

  after(async function () {
    this.timeout(60_000)
    expect(await run.teardown(!failed), 'tearing the fleet down').to.deep.equal([])
  })

  it('serves a minute of mixed partner traffic through both APIs with no 5xx, no lost connection and no unexpected answer', async function () {
    this.timeout(TRAFFIC_MS + 90_000)
    const tally = await runTraffic(fleet.apis, fleet.ops, PARTNERS, TRAFFIC_MS)
    note(`${tally.journeys} journeys; answers by status: ${JSON.stringify(Object.fromEntries(tally.statuses))}`)

    expect(tally.serverErrors, `5xx answers: ${listed(tally.serverErrors)}`).to.have.length(0)
    expect(tally.socketErrors, `requests without an answer: ${listed(tally.socketErrors)}`).to.have.length(0)
    expect(tally.unexpected, `unexpected answers: ${listed(tally.unexpected)}`).to.have.length(0)
    expect(tally.journeys, 'journeys walked to the end').to.be.at.least(PARTNERS)
    // Each journey walks into an early submit (409), a party before approval (404) and an overpayment (422).
    expect([409, 404, 422].map((status) => tally.statuses.get(status) ?? 0)).to.deep.equal([tally.journeys, tally.journeys, tally.journeys])
    for (const api of fleet.apis) expect(api.served(), `answers from ${api.name}`).to.be.greaterThan(tally.journeys)
  })

  it('runs a test-mode borrower to 90 days past due through PgBouncer, its clock advanced by a worker, and keeps it out of the live world', async function () {
    this.timeout(120_000)
    const [apiA, apiB] = fleet.apis
    const onA = strictCall(() => apiA)
    const onB = strictCall(() => apiB)
    const mintTest = async (partyId: string, clientName: string): Promise<string> =>
      (await onA('POST', '/public/partner/api-keys', { headers: { 'x-partner-mint-key': fleet.ops.mintSecret }, json: { party_id: partyId, client_name: clientName, environment: 'test' }, expect: 201 })).body.api_key as string
    // The test world: codes are 000000 and nothing is sent; the test helpers decide in the operator's place.
    const partner = bearer(await mintTest(randomUUID(), 'fleet-test-mode'))
    const session = (await onA('POST', '/public/onboarding-sessions', { headers: partner, json: { country_of_incorporation: 'US', locale: 'en-US' }, expect: 201 })).body.session_id as string
    const on = `/public/onboarding-sessions/${session}`
    await onB('POST', `${on}/contact/phone`, { headers: partner, json: { phone: '+14155550123' }, expect: 201 })
    await onA('POST', `${on}/contact/phone/verify`, { headers: partner, json: { code: '000000' }, expect: 200 })
    await onB('POST', `${on}/contact/email`, { headers: partner, json: { email: 'jane@acme.example' }, expect: 201 })
    await onA('POST', `${on}/contact/email/verify`, { headers: partner, json: { code: '000000' }, expect: 200 })
    await onB('PUT', `${on}/applicant-profile`, { headers: partner, json: { legal_name: 'Acme Widgets LLC', tax_id: '12-3456789' }, expect: 200 })
    await onA('POST', `${on}/addresses`, { headers: partner, json: { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }, expect: 201 })
    await onB('POST', `${on}/submit`, { headers: partner, json: {}, expect: 201 })
    const partyId = (await onA('POST', `/public/test-helpers/onboarding-sessions/${session}/approve`, { headers: partner, json: {}, expect: 200 })).body.party.party_id as string
    const borrower = bearer(await mintTest(partyId, 'fleet-test-borrower'))
    const clock = (await onB('POST', '/public/test-helpers/clocks', { headers: borrower, json: {}, expect: 201 })).body as { test_clock_id: string; frozen_time: string }
    const application = (await onA('POST', '/public/applications', { headers: borrower, json: { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1_200_000, currency: 'USD', term_months: 12 }, expect: 201 })).body.application_id as string
    await onB('POST', `/public/applications/${application}/submit`, { headers: borrower, expect: 200 })
    const loanId = (await onA('POST', `/public/test-helpers/applications/${application}/approve`, { headers: borrower, json: {}, expect: 200 })).body.loan.loan_id as string
    const target = new Date(Date.parse(clock.frozen_time) + 130 * 86_400_000).toISOString()
    await onB('POST', `/public/test-helpers/clocks/${clock.test_clock_id}/advance`, { headers: borrower, json: { frozen_time: target }, expect: 200 })
    // The APIs run no jobs here: a worker claims the advance.
    let ready: Record<string, unknown> | undefined
    for (const deadline = Date.now() + 60_000; ready === undefined && Date.now() < deadline; await sleep(100)) {
      const read = await onA('GET', `/public/test-helpers/clocks/${clock.test_clock_id}`, { headers: borrower, expect: 200 })
      if (read.body.status === 'ready') ready = read.body as Record<string, unknown>
    }
    expect(ready?.['frozen_time'], 'the clock advanced within a minute').to.equal(target)
    const loan = (await onB('GET', `/public/parties/${partyId}/loans/${loanId}`, { headers: borrower, expect: 200 })).body
    expect([loan.livemode, loan.delinquency_bucket]).to.deep.equal([false, 'DPD_90_PLUS'])
    note(`test-mode loan ${loan.days_past_due as number} days past due after a 130-day advance`)
    // The same party and client in the live world see none of it.
    const liveBorrower = await mintKey(onA, fleet.ops, partyId, 'fleet-test-borrower')
    expect((await onB('GET', `/public/parties/${partyId}/loans`, { headers: bearer(liveBorrower.apiKey), expect: 200 })).body.data).to.deep.equal([])
  })

  it('refuses a key revoked through API A on API B within a second', async function () {
    const [apiA, apiB] = fleet.apis
    const client = { partyId: randomUUID(), clientName: 'fleet-revocation' }
    const manager = await mintKey(strictCall(() => apiA), fleet.ops, client.partyId, client.clientName)
    const doomed = await mintKey(strictCall(() => apiA), fleet.ops, client.partyId, client.clientName)
    const onB = () => apiB.send('GET', '/public/partner/api-keys', { headers: bearer(doomed.apiKey) })
    for (const _ of range(3)) expect((await onB()).status, 'the key on API B before its revocation').to.equal(200)

    const revocation = await apiA.send('DELETE', `/public/partner/api-keys/${doomed.apiKeyId}`, { headers: bearer(manager.apiKey) })
    const revokedAt = performance.now()
    expect(revocation.status, revocation.text).to.equal(200)
    let status = (await onB()).status
    while (status !== 401 && performance.now() - revokedAt < 1_000) {
      await sleep(50)
      status = (await onB()).status
    }
    const elapsed = Math.round(performance.now() - revokedAt)
    expect(status, `API B's answer to the revoked key ${elapsed} ms after the revocation`).to.equal(401)
    expect(elapsed).to.be.at.most(1_000)
  })

  it('delivers every party.ready of 200 approvals, signed, while a worker is killed in the middle of a delivery', async function () {
    this.timeout(240_000)
    const { receiver, ops } = fleet
    const call = strictCall(alternating(fleet.apis))
    const partnerParty = randomUUID()
    const partyOf = new Map<string, string>()
    const onboardAndApprove = async (): Promise<void> => {
      const { apiKey } = await mintKey(call, ops, partnerParty, 'fleet-webhooks')
      const sessionId = await submittedSession(call, ops, apiKey, { webhook: true })
      partyOf.set(sessionId, await approveSession(call, ops, sessionId))
    }
    const [, kill] = await Promise.all([
      forEachConcurrently(range(WEBHOOK_SESSIONS), 8, onboardAndApprove),
      killMidDelivery(receiver, fleet.workers[1], ops.internalToken, WEBHOOK_SESSIONS / 5),
    ])
    workerKill = kill
    const deliveredAgain = (cut: Delivery) => receiver.deliveries.filter((d) => d.webhookId === cut.webhookId).length >= 2
    const everyEventIn = () => [...partyOf.keys()].every((id) => receiver.deliveredSessions().has(id)) && kill.cutShort.every(deliveredAgain)
    await waitUntil(everyEventIn, STRAGGLERS_MS, 200)

    const redeliveries = receiver.deliveries.length - receiver.deliveredSessions().size
    note(`worker 2 killed after ${kill.deliveredBefore} sessions' events arrived, delivering ${kill.cutShort.length}; ${redeliveries} redeliveries in all`)
    expect(partyOf.size, 'sessions approved').to.equal(WEBHOOK_SESSIONS)
    expect(kill.deliveredBefore, 'events delivered when the worker was killed').to.be.within(1, WEBHOOK_SESSIONS - 1)
    expect(receiver.refused, `deliveries that did not verify: ${listed(receiver.refused)}`).to.have.length(0)
    const lost = [...partyOf.keys()].filter((id) => !receiver.deliveredSessions().has(id))
    expect(lost, `sessions whose party.ready never arrived: ${listed(lost)}`).to.have.length(0)
    const wrong = receiver.deliveries.filter((d) => d.type !== 'party.ready' || d.partyId !== partyOf.get(d.sessionId))
    expect(wrong, 'deliveries of another type or party').to.deep.equal([])
    const idsBySession = new Map<string, Set<string>>()
    for (const d of receiver.deliveries) idsBySession.set(d.sessionId, (idsBySession.get(d.sessionId) ?? new Set()).add(d.webhookId))
    const renamed = [...idsBySession].filter(([, ids]) => ids.size > 1).map(([id, ids]) => `${id}: ${[...ids].join(', ')}`)
    expect(renamed, `events delivered again under another webhook-id: ${listed(renamed)}`).to.have.length(0)
    // What worker 2 was sending when it died reached the receiver but was never recorded as delivered: it comes again.
    const notAgain = kill.cutShort.filter((cut) => !deliveredAgain(cut)).map((d) => d.sessionId)
    expect(notAgain, `events cut short by the kill and never delivered again: ${listed(notAgain)}`).to.have.length(0)
  })

  it('keeps each acknowledged payment exactly once, and takes none twice, when API A is killed mid-burst', async function () {
    this.timeout(240_000)
    const [apiA, apiB] = fleet.apis
    const viaB = strictCall(() => apiB)
    const { borrowerKey, loans } = await borrowerWithLoans(viaB, fleet.ops, LOANS)
    // Each request pays its own amount, so a payment in the ledger names the request that made it.
    const requests = loans.flatMap((loan, l) => range(PAYMENTS_PER_LOAN).map((i) => paymentRequest(loan, 100 + l * PAYMENTS_PER_LOAN + i)))

    let killed: Promise<void> | undefined
    let killedAt = 0
    const outcomes = await burst(apiA, borrowerKey, requests, 12, (answered) => {
      if (answered !== KILL_AFTER) return
      killedAt = Date.now()
      killed = apiA.process.kill9()
    })
    expect(killed, 'API A was killed').to.not.equal(undefined)
    await killed
    await apiA.process.restart()
    const acknowledged = outcomes.flatMap(({ request, reply }) => (reply === undefined ? [] : [{ request, reply }]))
    const unanswered = outcomes.flatMap(({ request, reply }) => (reply === undefined ? [request] : []))
    expect(acknowledged.filter((a) => a.reply.status !== 201).map((a) => `${a.reply.status} ${a.reply.text}`), 'answers other than 201').to.deep.equal([])
    expect(unanswered.length, 'payments the kill left without an answer').to.be.greaterThan(0)

    // A client that got its answer and sends the request again gets the same answer.
    for (const { request, reply } of acknowledged) {
      const replay = await sendPayment(apiA, borrowerKey, request)
      expect({ status: replay.status, body: replay.body }, `replay of ${request.idempotencyKey}`).to.deep.equal({ status: reply.status, body: reply.body })
    }
    // A client that got none sends it again until the key is free: it completes once, or is clearly refused.
    const settled: { status: number; body: { payment_id?: string; error?: string; created_at?: string } }[] = []
    await forEachConcurrently(unanswered, 12, async (request) => {
      const { status, body } = await replayUntilSettled(apiA, borrowerKey, request, IN_USE_MS)
      settled.push({ status, body })
    })
    const completed = settled.filter((r) => r.status === 201)
    const takenBeforeKill = completed.filter((r) => Date.parse(r.body.created_at ?? '') < killedAt).length
    note(`${acknowledged.length} payments answered before the kill; of the ${unanswered.length} others, ${completed.length} completed on replay (${takenBeforeKill} taken before the kill)`)
    const unclear = settled.filter((r) => r.status !== 201 && (r.status < 400 || r.status >= 500 || r.body.error === 'idempotency_key_in_use'))
    expect(unclear.map((r) => `${r.status} ${JSON.stringify(r.body)}`), 'replays neither completed nor clearly refused').to.deep.equal([])

    const acknowledgedIds = acknowledged.map((a) => a.reply.body.payment_id as string)
    const confirmedIds = new Set([...acknowledgedIds, ...completed.map((r) => r.body.payment_id as string)])
    const recorded = await Promise.all(loans.map((loan) => loanRecords(viaB, borrowerKey, loan.path)))
    const payments = recorded.flatMap((r) => r.payments)
    expect(payments.length, 'payments recorded, against those confirmed').to.equal(confirmedIds.size)
    expect(new Set(payments.map((p) => p.payment_id)).size, 'distinct payment ids').to.equal(payments.length)
    expect(new Set(payments.map((p) => p.amount)).size, 'distinct amounts: no request paid twice').to.equal(payments.length)
    expect(payments.filter((p) => !confirmedIds.has(p.payment_id)), 'payments nobody was told of').to.deep.equal([])
    expect(acknowledgedIds.filter((id) => !payments.some((p) => p.payment_id === id)), 'acknowledged payments missing').to.deep.equal([])
    expect(payments.filter((p) => p.status !== 'SUCCEEDED'), 'payments that did not succeed').to.deep.equal([])

    for (const [i, { payments: paid, transactions, latestSnapshot }] of recorded.entries()) {
      const paymentEntries = transactions.filter((t) => t.type === 'PAYMENT').map((t) => t.payment_id)
      expect(paymentEntries.sort(), `loan ${i + 1}: one PAYMENT entry per payment`).to.deep.equal(paid.map((p) => p.payment_id).sort())
      const sum = (bucket: 'principal' | 'interest' | 'fees') => transactions.reduce((n, t) => n + t[bucket], 0)
      expect({ principal: sum('principal'), interest: sum('interest'), fees: sum('fees') }, `loan ${i + 1}: ledger sums against the latest balance`).to.deep.equal({
        principal: latestSnapshot.principal_outstanding,
        interest: latestSnapshot.interest_outstanding,
        fees: latestSnapshot.fees_outstanding,
      })
    }
  })

  it('survives every database backend terminated and PgBouncer restarted under payment traffic: no exit, 5xx only in flight, every acknowledged payment kept', async function () {
    this.timeout(90_000)
    const { apis, workers, database, pgbouncer } = fleet
    const processes = [...apis.map((api) => api.process), ...workers]
    const incarnations = processes.map((p) => p.incarnation())
    const logStarts = new Map([...run.logs].map(([name, file]) => [name, readFileSync(file, 'utf8').length]))
    const viaB = strictCall(() => apis[1])
    const borrowers = await Promise.all(range(DISRUPTION_ACCOUNTS).map(() => borrowerWithLoans(viaB, fleet.ops, 1)))
    const accounts = borrowers.map(({ borrowerKey, loans: [loan] }) => ({ borrowerKey, loan: loan! }))

    const traffic = startDisruptionTraffic(apis, accounts, DISRUPTION_CLIENTS)
    const windows: { name: string; from: number; to: number }[] = []
    let terminated = 0
    try {
      await sleep(SETTLE_MS)
      let from = Date.now()
      terminated = database.terminateBackends()
      windows.push({ name: 'backends terminated', from, to: Date.now() })
      await sleep(SETTLE_MS)
      from = Date.now()
      await pgbouncer.restart()
      windows.push({ name: 'PgBouncer restarted', from, to: Date.now() })
      await sleep(SETTLE_MS)
    } finally {
      await traffic.stop()
    }
    const { answers, acknowledged } = traffic
    const failures = answers.filter((a) => a.status >= 500 || a.status === 0)
    const windowOf = (a: Answered) => windows.find((w) => a.sentAt <= w.to + IN_FLIGHT_GRACE_MS && a.answeredAt >= w.from)
    const byWindow = windows.map((w) => `${w.name} in ${w.to - w.from} ms: ${failures.filter((a) => windowOf(a) === w).length} 5xx`)
    note(`${terminated} backends terminated; ${answers.length} answers, ${acknowledged.length} payments acknowledged; ${byWindow.join('; ')}`)

    for (const [i, p] of processes.entries()) {
      expect(p.alive(), `${p.name} alive`).to.equal(true)
      expect(p.incarnation(), `${p.name} not restarted`).to.equal(incarnations[i])
    }
    for (const [name, file] of run.logs) {
      const written = readFileSync(file, 'utf8').slice(logStarts.get(name) ?? 0)
      expect(written.split('\n').filter(isFatal), `fatal lines in the log of ${name}`).to.deep.equal([])
    }
    expect(terminated, 'backends terminated').to.be.greaterThan(0)
    const show = (a: Answered) => `${a.what}: ${a.status} ${a.error ?? ''} sent ${a.sentAt - windows[0]!.from} ms after the first disruption`
    // Only the store's answers, only for requests in flight while a disruption was.
    const unlike = failures.filter((a) => !(a.status === 500 && a.error === 'store_unavailable') && a.status !== 503)
    expect(unlike.map(show), 'failures other than 500 store_unavailable and 503').to.deep.equal([])
    const outside = failures.filter((a) => windowOf(a) === undefined)
    expect(outside.map(show), 'failures outside the disruptions').to.deep.equal([])
    const terminationFailures = failures.filter((a) => windowOf(a) === windows[0])
    expect(terminationFailures.length, 'failures of the termination, against the requests in flight').to.be.at.most(DISRUPTION_CLIENTS)
    // While PgBouncer is down every request fails; once it listens again, at most those already in flight.
    const restart = windows[1]!
    const lateRestartFailures = failures.filter((a) => windowOf(a) === restart && a.sentAt > restart.to)
    expect(lateRestartFailures.length, 'failures sent once PgBouncer listened again').to.be.at.most(DISRUPTION_CLIENTS)
    const others = answers.filter((a) => a.status < 500 && a.status !== 0 && (a.status < 200 || a.status >= 300))
    expect(others.map(show), 'answers other than 2xx and the store failures').to.deep.equal([])
    // Serving again after each.
    for (const w of windows) expect(answers.filter((a) => a.sentAt > w.to + IN_FLIGHT_GRACE_MS && a.status < 300).length, `answers after ${w.name}`).to.be.at.least(DISRUPTION_CLIENTS)

    // Every acknowledged payment is recorded, once, with its entry in the ledger.
    const recorded = await Promise.all(accounts.map(({ borrowerKey, loan }) => loanRecords(viaB, borrowerKey, loan.path)))
    for (const [i, { payments, transactions }] of recorded.entries()) {
      const mine = acknowledged.filter((a) => a.account === accounts[i])
      const ids = new Set(payments.map((p) => p.payment_id))
      expect(mine.filter((a) => !ids.has(a.paymentId)).map((a) => a.paymentId), `account ${i + 1}: acknowledged payments missing`).to.deep.equal([])
      expect(new Set(payments.map((p) => p.amount)).size, `account ${i + 1}: distinct amounts, no request paid twice`).to.equal(payments.length)
      const entries = new Set(transactions.filter((t) => t.type === 'PAYMENT').map((t) => t.payment_id))
      expect(mine.filter((a) => !entries.has(a.paymentId)).map((a) => a.paymentId), `account ${i + 1}: acknowledged payments without a ledger entry`).to.deep.equal([])
    }
    // The workers serve on: a webhook of an approval after both disruptions arrives.
    const call = strictCall(alternating(apis))
    const { apiKey } = await mintKey(call, fleet.ops, randomUUID(), 'fleet-after-disruptions')
    const sessionId = await submittedSession(call, fleet.ops, apiKey, { webhook: true })
    await approveSession(call, fleet.ops, sessionId)
    expect(await waitUntil(() => fleet.receiver.deliveredSessions().has(sessionId), 30_000, 100), 'party.ready delivered after the disruptions').to.equal(true)
  })

  it("shares one key's rate limit across both APIs: the limit, plus at most a sync interval of requests per API", async function () {
    this.timeout(150_000)
    const { apis } = fleet
    const { apiKey } = await mintKey(strictCall(() => apis[0]), fleet.ops, randomUUID(), 'fleet-rate-limit')
    const probe = () => apis[0].send('GET', '/public/partner/api-keys', { headers: bearer(apiKey) })
    // Hammer at the start of a window, so that all of it falls in one.
    let first = await probe()
    let windowLeft = secondsToReset(first.headers.get('ratelimit')) ?? 0
    if (windowLeft < 25) {
      await sleep((windowLeft + 1) * 1_000)
      first = await probe()
      windowLeft = secondsToReset(first.headers.get('ratelimit')) ?? 0
    }
    expect(first.status, first.text).to.equal(200)
    expect(windowLeft, 'seconds left in the window').to.be.at.least(25)

    const result = await hammer(apis, apiKey, '/public/partner/api-keys', { concurrency: 16, refusals: 50, maxMs: (windowLeft - 2) * 1_000 })
    const admitted = result.admitted + 1
    // Each instance may admit what it serves in one sync interval before it learns the others' counts.
    const tolerance = Math.ceil(result.admittedPerSecond * (RATE_LIMIT.syncMs / 1_000) * apis.length) + 20
    note(`${admitted} admitted of ${result.requests + 1} at ${Math.round(result.admittedPerSecond)}/s (${result.deferred} deferred to the next sync); tolerance ${tolerance}`)
    expect(result.unexpected, `answers other than 2xx and 429: ${listed(result.unexpected)}`).to.have.length(0)
    expect(result.seconds, 'the hammering fits in the window').to.be.below(windowLeft - 1)
    for (const api of apis) expect(result.refusedBy.get(api.name), `429s from ${api.name}`).to.be.at.least(50)
    expect(admitted, 'admitted across both APIs').to.be.at.least(RATE_LIMIT.requests)
    expect(admitted, 'admitted across both APIs').to.be.at.most(RATE_LIMIT.requests + tolerance)
    expect(admitted, 'admitted across both APIs, against twice the limit, which two unsynchronised instances would allow').to.be.below(2 * RATE_LIMIT.requests)
  })

  it('exposes metrics promtool accepts on every process: the requests each API served, deliveries and jobs on the workers', async function () {
    const { apis, workers, ops } = fleet
    const processes = [...apis.map((api) => api.process), ...workers]
    const noAnswer = (error: unknown): Scrape => ({ status: 0, contentType: '', text: `no answer: ${String((error as { cause?: unknown }).cause ?? error)}` })
    const scrapes = await Promise.all(processes.map((p) => scrape(p.url, ops.internalToken).catch(noAnswer)))
    for (const [i, metrics] of scrapes.entries()) {
      const name = processes[i]!.name
      expect(metrics.status, `GET /metrics on ${name}: ${metrics.text.slice(0, 200)}`).to.equal(200)
      expect(metrics.contentType, name).to.match(/^text\/plain/)
      expect(promtoolCheck(metrics.text), `promtool check metrics on ${name}`).to.deep.equal({ status: 0, output: '' })
    }
    const [apiA, apiB, worker1, worker2] = scrapes.map((s) => s.text) as [string, string, string, string]

    for (const [api, text] of [[apis[0], apiA], [apis[1], apiB]] as const) {
      const requests = samplesOf(text, 'lendgate_http_requests_total')
      expect(requests.length, `${api.name}: lendgate_http_requests_total samples`).to.be.greaterThan(0)
      const unlabelled = requests.filter((s) => s.labels['operation'] === undefined || s.labels['status_class'] === undefined)
      expect(unlabelled, `${api.name}: samples without operation or status_class`).to.deep.equal([])
      expect(total(text, 'lendgate_http_requests_total'), `${api.name}: requests counted, against those this test sent it`).to.be.at.least(api.served())
    }

    for (const [name, text] of [['worker 1', worker1], ['worker 2', worker2]] as const) {
      expect(declaredType(text, 'lendgate_webhook_delivery_attempts_total'), name).to.equal('counter')
      expect(declaredType(text, 'lendgate_job_runs_total'), name).to.equal('counter')
      const attemptsUnlabelled = samplesOf(text, 'lendgate_webhook_delivery_attempts_total').filter((s) => s.labels['outcome'] === undefined)
      expect(attemptsUnlabelled, `${name}: attempts without an outcome`).to.deep.equal([])
      const runsUnlabelled = samplesOf(text, 'lendgate_job_runs_total').filter((s) => s.labels['job'] === undefined || s.labels['outcome'] === undefined)
      expect(runsUnlabelled, `${name}: job runs without a job or an outcome`).to.deep.equal([])
    }
    const attempts = total(worker1, 'lendgate_webhook_delivery_attempts_total') + total(worker2, 'lendgate_webhook_delivery_attempts_total')
    expect(attempts, 'delivery attempts counted').to.be.greaterThan(0)

    // The daily servicing job runs on a lease: once a day across the workers, worker 2's life before its kill included.
    const beforeKill = workerKill?.metricsBefore
    expect(beforeKill?.status, "worker 2's metrics just before it was killed").to.equal(200)
    const servicingRuns = [worker1, worker2, beforeKill?.text ?? ''].map((text) => total(text, 'lendgate_job_runs_total', { job: 'servicing', outcome: 'completed' }))
    expect(servicingRuns.reduce((a, b) => a + b, 0), `servicing runs completed (worker 1, worker 2, worker 2 before its kill: ${servicingRuns.join(', ')})`).to.equal(1)
  })
})
