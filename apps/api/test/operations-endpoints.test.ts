import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import { testDatabases } from '@lendgate/adapters/testing'
import { inMemoryJobLeases } from '@lendgate/core/testing'
import { runLeasedJob, storeUnavailable, type SteppedJob } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { createApp } from '../src/app.js'
import { compose, type Composition } from '../src/compose.js'
import { createLogger } from '../src/logger.js'
import { createMetrics } from '../src/metrics.js'
import { dailyRunDue, dailySchedule, startScheduler } from '../src/scheduler.js'
import { listen, type Listening } from '../src/server.js'
import { createWorkerApp } from '../src/worker-app.js'
import { bearer, mintKey, request } from './support/client.js'
import { durableDatabases, type DurableDatabase } from './support/durable-databases.js'
import { INTERNAL_TOKEN, MINT_SECRET, inMemoryDeps, startInMemoryServer, startTestServer, testConfig } from './support/test-server.js'

/**
 * What operators of a fleet use (issue 38): `/metrics` behind the internal token, readiness that
 * waits for the migrations, the worker's own probes, and the scheduler of leased jobs.
 */

const silent = createLogger('lendgate-api', 'silent', new Writable({ write: (_chunk, _enc, done) => done() }))

/** A plain GET (these paths are outside the partner OpenAPI document the test client checks against). */
const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers })
  const text = await response.text()
  return { status: response.status, type: response.headers.get('content-type'), text, json: () => JSON.parse(text) as Record<string, unknown> }
}

/** The value of one sample in Prometheus text, or undefined when it is not there. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const internal = { Authorization: `Bearer ${INTERNAL_TOKEN}` }

describe('GET /metrics', () => {
  const [database] = testDatabases()

  it('answers only to the internal token, never to a partner key or nothing', async () => {
    const server = await startTestServer(database!)
    try {
      const key = await mintKey(server.url)
      for (const headers of [{}, bearer(key.api_key), { Authorization: 'Bearer wrong-token-0123456789' }]) {
        const reply = await get(`${server.url}/metrics`, headers)
        expect(reply.status).to.equal(401)
        expect(reply.json()['error']).to.equal('invalid_internal_token')
      }
      expect((await fetch(`${server.url}/metrics`, { method: 'POST', headers: internal })).status).to.equal(405)
    } finally {
      await server.stop()
    }
  })

  it('counts the requests it served by operation and status class, key cache hits and misses, and pool connections', async () => {
    const server = await startTestServer(database!)
    try {
      const key = await mintKey(server.url)
      const before = (await get(`${server.url}/metrics`, internal)).text
      for (let i = 0; i < 3; i++) expect((await get(`${server.url}/public/partner/api-keys`, bearer(key.api_key))).status).to.equal(200)
      expect((await get(`${server.url}/public/onboarding-sessions/not-a-uuid`, bearer(key.api_key))).status).to.equal(400)
      const after = await get(`${server.url}/metrics`, internal)
      expect(after.status).to.equal(200)
      expect(after.type).to.equal('text/plain; version=0.0.4; charset=utf-8')
      const grew = (series: string) => (sample(after.text, series) ?? 0) - (sample(before, series) ?? 0)
      expect(grew('lendgate_http_requests_total{operation="listApiKeys",status_class="2xx"}')).to.equal(3)
      expect(grew('lendgate_http_requests_total{operation="getOnboardingSession",status_class="4xx"}')).to.equal(1)
      expect(grew('lendgate_http_request_duration_seconds_count{operation="listApiKeys"}')).to.equal(3)
      // The first request read the key from the store; the other three found it in the cache.
      expect(grew('lendgate_key_cache_lookups_total{result="miss"}')).to.equal(1)
      expect(grew('lendgate_key_cache_lookups_total{result="hit"}')).to.equal(3)
      expect(sample(after.text, 'lendgate_db_pool_waiting')).to.equal(0)
    } finally {
      await server.stop()
    }
  })

  it('counts rate-limit refusals by policy', async () => {
    const server = await startTestServer(database!, { rateLimits: { ...testConfig().rateLimits, requests: 2 } })
    try {
      const key = await mintKey(server.url)
      const statuses = []
      for (let i = 0; i < 4; i++) statuses.push((await get(`${server.url}/public/partner/api-keys`, bearer(key.api_key))).status)
      expect(statuses).to.deep.equal([200, 200, 429, 429])
      const text = (await get(`${server.url}/metrics`, internal)).text
      const refusals = (policy: string) => sample(text, `lendgate_rate_limit_refusals_total{policy="${policy}"}`)
      expect(['default', 'verification', 'webhook_retry', 'mint', 'key_lookups', 'keyless'].map(refusals)).to.deep.equal([2, 0, 0, 0, 0, 0])
    } finally {
      await server.stop()
    }
  })
})

describe('the webhook backlog gauges', () => {
  it('report one reading per scrape: the events by what they wait for, and how long the longest-due one has waited', async () => {
    let reads = 0
    const metrics = createMetrics({
      webhookBacklog: async () => {
        reads += 1
        return { due: 2, scheduled: 1, awaitingEndpoint: 5, oldestDueAt: new Date(Date.now() - 100_000) }
      },
    })
    const text = await metrics.registry.metrics()
    expect(reads).to.equal(1)
    expect(['due', 'scheduled', 'awaiting_endpoint'].map((state) => sample(text, `lendgate_webhook_events_pending{state="${state}"}`))).to.deep.equal([2, 1, 5])
    expect(sample(text, 'lendgate_webhook_oldest_due_age_seconds')).to.be.within(100, 101)
  })
})

for (const kind of durableDatabases()) {
  describe(`readiness and waiting while the migrations run, on ${kind.name} (issue 52)`, function () {
    this.timeout(60_000)

    // A fresh database of its own: the composition migrates it in `start`, which the tests hold
    // back until they have sent what they send during the migration.
    let database: DurableDatabase
    let config: ReturnType<typeof testConfig>
    let composition: Composition
    /** The app as it runs (requests wait up to 30 s), and one whose requests wait 200 ms. */
    let patient: Listening
    let hasty: Listening
    const HASTY_WAIT_MS = 200

    before(async () => {
      database = await kind.create()
      config = testConfig({ databaseUrl: database.env['DATABASE_URL'], dataDir: database.env['DATA_DIR']! })
      composition = await compose(config, silent)
      const at = { host: '127.0.0.1', port: 0, limits: config.connections }
      patient = await listen(createApp(composition.deps, config, silent).handle, at, async () => undefined)
      hasty = await listen(createApp(composition.deps, config, silent, { schemaWaitMs: HASTY_WAIT_MS }).handle, at, async () => undefined)
    })
    after(async () => {
      await hasty?.stop(1_000)
      await patient?.stop(1_000)
      await composition?.close()
      await database?.dispose()
    })

    const mint = (url: string, secret: string, partyId: string) =>
      request(url, '/public/partner/api-keys', { method: 'POST', headers: { 'X-Partner-Mint-Key': secret }, json: { party_id: partyId } })

    it('answers /health 200 and /health/ready 503 migrations_pending at once, and /metrics', async () => {
      expect((await get(`${patient.url}/health`)).json()).to.deep.equal({ status: 'ok' })
      const ready = await request(patient.url, '/health/ready')
      expect([ready.status, ready.body, ready.headers.get('Retry-After')]).to.deep.equal([503, { error: 'not_ready', detail: 'The database schema is being migrated; try again shortly.' }, '1'])
      expect((await get(`${patient.url}/metrics`, internal)).status).to.equal(200)
    })

    it('answers 503 not_ready with Retry-After to a request still waiting when the bound passes', async () => {
      const sent = process.hrtime.bigint()
      const reply = await mint(hasty.url, config.partnerMintSecret!, randomUUID())
      const waitedMs = Number(process.hrtime.bigint() - sent) / 1e6
      expect([reply.status, reply.body, reply.headers.get('Retry-After')]).to.deep.equal([503, { error: 'not_ready', detail: 'The database schema is being migrated; try again shortly.' }, '1'])
      expect(waitedMs).to.be.at.least(HASTY_WAIT_MS)
      expect(composition.deps.health.schemaCurrent()).to.equal(false)
    })

    it('tells the waiting that the schema will never be current once a composition closes unstarted', async () => {
      // A second composition on the same database (embedded: it joins the server the first started).
      const other = await compose(config, silent)
      const settled = other.deps.health.whenSchemaCurrent()
      await other.close()
      expect(await settled).to.equal(false)
      expect(await other.deps.health.whenSchemaCurrent()).to.equal(false)
    })

    it('holds partner requests sent during the migration and answers each as usual once the schema is current, bodies and credentials checked', async () => {
      const partyId = randomUUID()
      const minted = mint(patient.url, config.partnerMintSecret!, partyId)
      const wrongSecret = mint(patient.url, 'not-the-mint-secret', randomUUID())
      const listed = request(patient.url, '/public/partner/api-keys')
      const outcome = await Promise.race([Promise.all([minted, wrongSecret, listed]).then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))])
      expect(outcome, 'nothing is answered before the schema is current').to.equal('waiting')
      // Liveness and readiness are not held meanwhile.
      expect((await get(`${patient.url}/health`)).status).to.equal(200)
      expect((await get(`${patient.url}/health/ready`)).status).to.equal(503)

      await composition.start()
      const [created, refused, anonymous] = await Promise.all([minted, wrongSecret, listed])
      expect([created.status, created.body.party_id]).to.deep.equal([201, partyId])
      expect([refused.status, refused.body.error]).to.deep.equal([401, 'invalid_mint_key'])
      expect([anonymous.status, anonymous.body.error]).to.deep.equal([401, 'missing_api_key'])
      // The key minted during the migration works.
      expect((await request(patient.url, '/public/partner/api-keys', { headers: bearer(created.body.api_key) })).status).to.equal(200)
      expect(await (await get(`${patient.url}/health/ready`)).json()).to.deep.equal({ status: 'ready', database: 'up' })
    })
  })
}

describe('the schema gate and readiness over fake health', () => {
  it('answers 503 database_unreachable when the schema is current but the database does not answer', async () => {
    const server = await startInMemoryServer((base) => ({ health: { ...base.health, storeReachable: async () => false } }))
    try {
      const ready = await get(`${server.url}/health/ready`)
      expect([ready.status, ready.json()]).to.deep.equal([503, { error: 'not_ready', detail: 'The database is unreachable.' }])
    } finally {
      await server.stop()
    }
  })

  it('answers a waiting request 503 at once when the schema will never be current (the start failed)', async () => {
    let fail: (current: boolean) => void = () => undefined
    const settled = new Promise<boolean>((resolve) => {
      fail = resolve
    })
    const server = await startInMemoryServer((base) => ({ health: { ...base.health, schemaCurrent: () => false, whenSchemaCurrent: () => settled } }))
    try {
      const reply = request(server.url, '/public/partner/api-keys', { method: 'POST', headers: { 'X-Partner-Mint-Key': MINT_SECRET }, json: { party_id: randomUUID() } })
      await new Promise((resolve) => setTimeout(resolve, 100))
      const failedAt = process.hrtime.bigint()
      fail(false)
      const answered = await reply
      expect([answered.status, answered.body.error, answered.headers.get('Retry-After')]).to.deep.equal([503, 'not_ready', '1'])
      expect(Number(process.hrtime.bigint() - failedAt) / 1e6, 'answered without waiting out the bound').to.be.below(5_000)
    } finally {
      await server.stop()
    }
  })
})

describe('the worker\'s HTTP server', () => {
  const serveWorker = async (schemaCurrent: boolean) => {
    const deps = inMemoryDeps((base) => ({ health: { storeReachable: async () => true, schemaCurrent: () => schemaCurrent, whenSchemaCurrent: async () => schemaCurrent }, metrics: base.metrics }))
    const server = createServer(createWorkerApp(deps, { internalApiToken: INTERNAL_TOKEN, rateLimits: testConfig().rateLimits }, silent))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
  }

  it('answers liveness, readiness once migrated, metrics behind the internal token, and a JSON 404 or 405 to anything else', async () => {
    const migrating = await serveWorker(false)
    const worker = await serveWorker(true)
    try {
      expect((await get(`${migrating.url}/health/ready`)).status).to.equal(503)
      expect((await get(`${worker.url}/health`)).json()).to.deep.equal({ status: 'ok' })
      expect((await get(`${worker.url}/health/ready`)).json()).to.deep.equal({ status: 'ready', database: 'up' })
      expect((await get(`${worker.url}/metrics`)).status).to.equal(401)
      expect((await get(`${worker.url}/metrics`, internal)).text).to.contain('# TYPE lendgate_webhook_delivery_attempts_total counter')
      expect((await get(`${worker.url}/public/partner/api-keys`)).json()['error']).to.equal('not_found')
      expect((await fetch(`${worker.url}/health`, { method: 'DELETE' })).status).to.equal(405)
    } finally {
      await migrating.close()
      await worker.close()
    }
  })
})

describe('the scheduler', () => {
  it('names a daily run by the UTC date of its latest due time', () => {
    const at = (iso: string) => dailyRunDue(15, new Date(iso))
    expect(at('2026-11-26T00:15:00.000Z')).to.deep.equal({ runKey: '2026-11-26', dueAt: new Date('2026-11-26T00:15:00.000Z') })
    expect(at('2026-11-26T00:14:59.999Z')).to.deep.equal({ runKey: '2026-11-25', dueAt: new Date('2026-11-25T00:15:00.000Z') })
    expect(at('2026-12-31T23:59:00.000Z').runKey).to.equal('2026-12-31')
    expect(at('2027-01-01T00:00:00.000Z').runKey).to.equal('2026-12-31')
  })

  it('runs a due run once across schedulers sharing the leases, reports it, and shows no lag after', async () => {
    const leases = inMemoryJobLeases()
    const clock = { now: () => new Date('2026-11-26T06:00:00.000Z') }
    const steps: string[] = []
    const job = (runKey: string): SteppedJob<number> => ({
      name: 'counting',
      initial: 0,
      progress: t.number,
      step: (n) => async () => {
        steps.push(`${runKey}:${n + 1}`)
        // Every step yields, so the other scheduler gets its chance at the lease meanwhile.
        await new Promise((resolve) => setImmediate(resolve))
        return E.right({ progress: n + 1, done: n + 1 === 3 })
      },
      finish: () => TE.right(undefined),
    })
    const run = runLeasedJob({ leases, clock })
    const metrics = [createMetrics(), createMetrics()]
    const schedulers = metrics.map((m) =>
      startScheduler({ lastCompleted: leases.lastCompleted, clock, metrics: m, logger: silent }, [
        { name: 'counting', schedule: dailySchedule(0), attempt: (request) => run(job(request.runKey), request) },
      ]),
    )
    try {
      for (let i = 0; i < 100 && steps.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      await Promise.all(schedulers.map((s) => s.stop()))
      expect(steps).to.deep.equal(['2026-11-26:1', '2026-11-26:2', '2026-11-26:3'])
      const completed = await Promise.all(metrics.map(async (m) => sample(await m.registry.metrics(), 'lendgate_job_runs_total{job="counting",outcome="completed"}') ?? 0))
      expect(completed.reduce((a, b) => a + b, 0)).to.equal(1)
      expect(await schedulers[0]!.lag()).to.deep.equal([{ job: 'counting', seconds: 0 }])
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()))
    }
  })

  it('counts the loans a job skipped, by job, from 0', async () => {
    const metrics = createMetrics({ jobs: ['servicing'] })
    const failures = async () => sample(await metrics.registry.metrics(), 'lendgate_job_loan_failures_total{job="servicing"}')
    expect(await failures()).to.equal(0)
    metrics.loanFailed('servicing')
    metrics.loanFailed('servicing')
    expect(await failures()).to.equal(2)
  })

  it('reports a failed attempt, and the lag since the first run after the last completed one', async () => {
    const leases = inMemoryJobLeases()
    const clock = { now: () => new Date('2026-11-26T06:00:00.000Z') }
    const failing: SteppedJob<number> = { name: 'failing', initial: 0, progress: t.number, step: () => TE.left(storeUnavailable(new Error('down'))), finish: () => TE.right(undefined) }
    const metrics = createMetrics({ jobs: ['failing'] })
    const runsOf = async (outcome: string) => sample(await metrics.registry.metrics(), `lendgate_job_runs_total{job="failing",outcome="${outcome}"}`)
    // Every outcome is there from the start, at 0.
    expect(await Promise.all(['completed', 'stopped', 'lease_lost', 'failed', 'error'].map(runsOf))).to.deep.equal([0, 0, 0, 0, 0])
    const scheduler = startScheduler({ lastCompleted: leases.lastCompleted, clock, metrics, logger: silent }, [
      { name: 'failing', schedule: dailySchedule(0), attempt: (request) => runLeasedJob({ leases, clock })(failing, request) },
    ])
    try {
      for (let i = 0; i < 100 && (await runsOf('failed')) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    } finally {
      await scheduler.stop()
    }
    expect(await runsOf('failed')).to.equal(1)
    // Never completed: late since today's run was due at 00:00.
    expect(await scheduler.lag()).to.deep.equal([{ job: 'failing', seconds: 6 * 3600 }])
    // Last completed three days ago: late since the day after it.
    const earlier = await leases.acquire('failing', '2026-11-23', 'earlier', new Date('2026-11-23T00:00:00.000Z'), 1)()
    if (E.isLeft(earlier) || O.isNone(earlier.right)) throw new Error('no lease')
    expect(await leases.complete(earlier.right.value, new Date('2026-11-23T00:10:00.000Z'))()).to.deep.equal(E.right(true))
    expect(await scheduler.lag()).to.deep.equal([{ job: 'failing', seconds: 2 * 86_400 + 6 * 3600 }])
  })

  it('starts on the day after a run key, at the scheduled minute', () => {
    expect(dailySchedule(15).after('2026-12-31')).to.deep.equal({ runKey: '2027-01-01', dueAt: new Date('2027-01-01T00:15:00.000Z') })
  })
})
