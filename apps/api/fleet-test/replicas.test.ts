import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort, startReplicatedPostgres, type ReplicatedPostgres } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { apiClient, bearer, type ApiClient, type Reply } from './support/api-client.js'
import { acquireResources, fleetSettings, type Resources } from './support/fleet.js'
import { startFleetProcess } from './support/fleet-process.js'
import { borrowerWithLoans, paymentRequest, sendPayment, strictCall, type Borrower, type Operators } from './support/journeys.js'
import { samplesOf, scrape, total } from './support/metrics.js'
import { startPartnerReceiver } from './support/partner-receiver.js'
import { sleep } from './support/waiting.js'

/**
 * Read replicas (issue 61, item 1; decision 156) in a fleet: a PostgreSQL primary with a streaming
 * replica (`startReplicatedPostgres`), and two API processes (`pnpm start`) reading the routes that
 * may be behind from the replica (`DATABASE_READ_URL`) and everything else from the primary. It
 * checks the routing and its `Lendgate-Data-As-Of` header, read-your-writes on the instance that
 * took the write while the replica's replay is paused, the fall back to the primary once the
 * replica is too far behind, and reads that never fail while the replica is killed and started
 * again. Needs Debian's PostgreSQL server binaries (initdb, pg_basebackup, pg_ctl) and `psql`.
 */

const DATABASE = 'lendgate_replicas'
/** REPLICA_MAX_LAG_MS of the APIs: the default, leaving a paused replica seconds in which it must still serve. */
const MAX_LAG_MS = 5_000
const AS_OF = 'lendgate-data-as-of'
const READS = 'lendgate_db_reads_behind_total'
const REPLICA_UP = 'lendgate_db_replica_up'
const REPLICA_LAG = 'lendgate_db_replica_lag_seconds'
const run = promisify(execFile)

/** Runs `sql` with psql on `url`; its unaligned output. */
const psql = async (url: string, sql: string): Promise<string> => (await run('psql', [url, '-XAtqc', sql], { encoding: 'utf8' })).stdout.trim()

/** `url` (a server's `postgres` database) on database `name`. */
const onDatabase = (url: string, name: string): string => url.replace(/\/postgres$/, `/${name}`)

/** A line under the test's title in mocha's output: what this run measured. */
const note = (text: string): void => console.log(`      ${text}`)

const listed = (items: readonly string[]): string => `${items.length}:\n${items.slice(0, 20).join('\n')}`

/** Polls `check` (async) every `everyMs` until it holds or `ms` have passed; whether it held. */
const eventually = async (check: () => Promise<boolean>, ms: number, everyMs = 100): Promise<boolean> => {
  for (const deadline = Date.now() + ms; ; await sleep(everyMs)) {
    if (await check()) return true
    if (Date.now() > deadline) return false
  }
}

const asOfOf = (reply: Reply): number => Date.parse(reply.headers.get(AS_OF) ?? '')

describe('a fleet with a streaming read replica (issue 61)', function () {
  let resources: Resources
  let pair: ReplicatedPostgres
  let apis: readonly [ApiClient, ApiClient]
  let ops: Operators
  let borrower: Borrower
  /** The replica's label on the replica gauges: its host, port and database. */
  let replicaLabel: string
  let failed = false

  /** Every metric of an API. */
  const metricsOf = async (api: ApiClient): Promise<string> => {
    const { status, text } = await scrape(api.process.url, ops.internalToken)
    expect(status, `GET /metrics of ${api.name}`).to.equal(200)
    return text
  }
  const served = (text: string, by: 'replica' | 'primary' | 'primary_after_replica_failed'): number => total(text, READS, { served_by: by })
  /** The value of a replica gauge for the replica (exactly one sample of it). */
  const gauge = (text: string, name: string): number => {
    const ours = samplesOf(text, name).filter((s) => s.labels['replica']?.includes(replicaLabel) === true)
    expect(ours.map((s) => s.labels), `${name} for ${replicaLabel}`).to.have.length(1)
    return (ours[0] as { value: number }).value
  }

  const borrowerHeaders = () => bearer(borrower.borrowerKey)
  /** The borrower's reads that may be behind (partner routes) and two internal ones, each with its headers. */
  const behindReads = (): { readonly path: string; readonly headers: Record<string, string> }[] => {
    const [first, second] = borrower.loans as [Borrower['loans'][0], Borrower['loans'][0]]
    const as = borrowerHeaders()
    const internal = bearer(ops.internalToken)
    return [
      { path: `${first.path}/payments`, headers: as },
      { path: `${first.path}/transactions`, headers: as },
      { path: `${second.path}/payments`, headers: as },
      { path: `${second.path}/schedule`, headers: as },
      { path: `/public/parties/${borrower.partyId}/loans`, headers: as },
      { path: `/internal/loans/${first.loanId}/payments`, headers: internal },
      { path: '/internal/loans', headers: internal },
    ]
  }
  const paymentsPath = () => `${(borrower.loans[0] as Borrower['loans'][0]).path}/payments`
  const paymentIds = (reply: Reply): string[] => (reply.body.data as { payment_id: string }[]).map((p) => p.payment_id)

  /** Whether one read on `api` is served by the replica: its counter grows by one (nothing else reads meanwhile). */
  const servedByReplica = async (api: ApiClient): Promise<boolean> => {
    const before = served(await metricsOf(api), 'replica')
    const reply = await api.send('GET', paymentsPath(), { headers: borrowerHeaders() })
    expect(reply.status, reply.text).to.equal(200)
    return served(await metricsOf(api), 'replica') === before + 1
  }

  before(async function () {
    this.timeout(240_000)
    resources = acquireResources()
    try {
      pair = await startReplicatedPostgres()
      resources.onTeardown(pair.stop)
      await psql(pair.primaryUrl, `create database ${DATABASE}`)
      const replicated = await eventually(async () => (await psql(pair.replicaUrl, `select count(*) from pg_database where datname = '${DATABASE}'`)) === '1', 30_000)
      expect(replicated, `${DATABASE} on the replica within 30 s`).to.equal(true)
      const replicaDb = onDatabase(pair.replicaUrl, DATABASE)
      replicaLabel = `${new URL(replicaDb).host}/${DATABASE}`

      const receiver = await startPartnerReceiver()
      resources.onTeardown(receiver.close)
      ops = { mintSecret: `replicas-mint-${randomBytes(16).toString('hex')}`, internalToken: `replicas-internal-${randomBytes(16).toString('hex')}`, receiver }
      const env = {
        ...fleetSettings(ops, join(resources.dir, 'data')),
        DATABASE_URL: onDatabase(pair.primaryUrl, DATABASE),
        DATABASE_READ_URL: replicaDb,
        REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
        RUN_JOBS: 'false',
        // The read traffic below sends as many requests as the machine answers in seconds, with
        // one key: the rate limit is another suite's subject.
        RATE_LIMIT_REQUESTS: '1000000000',
      }
      const portA = await freePort()
      let portB = await freePort()
      while (portB === portA) portB = await freePort()
      // Both migrate on start: the first to take the migrations' lock does it, the other finds it done.
      const started = await Promise.all(
        [['API A', portA], ['API B', portB]].map(async ([name, port]) => {
          const logFile = join(resources.dir, `${String(name).replace(' ', '-').toLowerCase()}.log`)
          resources.logs.set(String(name), logFile)
          const process = await startFleetProcess({ name: String(name), script: 'start', port: Number(port), env: { ...env, PORT: String(port) }, logFile })
          resources.onTeardown(process.stop)
          return apiClient(process)
        }),
      )
      apis = started as [ApiClient, ApiClient]

      // A borrower with two loans, and payments on both, made through both APIs.
      let next = 0
      const call = strictCall(() => apis[next++ % 2] as ApiClient)
      borrower = await borrowerWithLoans(call, ops, 2)
      for (const [i, loan] of borrower.loans.entries()) {
        for (const amount of [10_000, 20_000]) {
          const reply = await sendPayment(apis[i % 2] as ApiClient, borrower.borrowerKey, paymentRequest(loan, amount + i))
          expect(reply.status, reply.text).to.equal(201)
        }
      }
    } catch (error) {
      failed = true
      console.error(`\nLogs kept in ${resources.dir}; their last lines:\n${resources.logTails()}`)
      throw error
    }
  })

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return
    failed = true
    console.error(`\nLogs kept in ${resources.dir}; their last lines:\n${resources.logTails()}`)
  })

  after(async function () {
    this.timeout(60_000)
    if (resources !== undefined) expect(await resources.teardown(!failed), 'tearing the fleet down').to.deep.equal([])
  })

  it('serves the reads that may be behind from the replica on both APIs, each with Lendgate-Data-As-Of, and the others from the primary without it', async function () {
    this.timeout(60_000)
    // The borrower's own writes of the setup are on the replica within a probe or two.
    for (const api of apis) expect(await eventually(() => servedByReplica(api), 10_000), `a read on ${api.name} served by the replica within 10 s`).to.equal(true)

    const before = await Promise.all(apis.map(metricsOf))
    const reads = behindReads()
    const problems: string[] = []
    const sent = [0, 0]
    const sentAt = Date.now()
    await Promise.all(
      [0, 1, 2, 3].map(async (client) => {
        for (let i = 0; i < 12; i += 1) {
          const which = (client + i) % 2
          const api = apis[which] as ApiClient
          const { path, headers } = reads[(client * 12 + i) % reads.length] as (typeof reads)[number]
          sent[which] = (sent[which] ?? 0) + 1
          const reply = await api.send('GET', path, { headers })
          const asOf = asOfOf(reply)
          if (reply.status !== 200) problems.push(`GET ${path} on ${api.name}: ${reply.status} ${reply.text}`)
          else if (!Number.isFinite(asOf) || asOf > Date.now()) problems.push(`GET ${path} on ${api.name}: ${AS_OF}: ${String(reply.headers.get(AS_OF))}`)
          else if (asOf < sentAt - 10_000) problems.push(`GET ${path} on ${api.name}: data as of ${reply.headers.get(AS_OF)}, more than 10 s before the burst`)
        }
      }),
    )
    expect(problems, `reads with a wrong answer: ${listed(problems)}`).to.deep.equal([])

    const after = await Promise.all(apis.map(metricsOf))
    for (const [i, api] of apis.entries()) {
      const [b, a] = [before[i] as string, after[i] as string]
      const grew = { replica: served(a, 'replica') - served(b, 'replica'), primary: served(a, 'primary') - served(b, 'primary') }
      note(`${api.name}: ${sent[i]} reads, ${grew.replica} served by the replica, ${grew.primary} by the primary`)
      expect(grew.replica + grew.primary, `reads that may be behind counted on ${api.name}`).to.equal(sent[i])
      expect(grew.replica, `reads served by the replica on ${api.name}`).to.be.greaterThan(0)
      expect(served(a, 'primary_after_replica_failed'), `reads that failed on the replica (${api.name})`).to.equal(0)
      expect(gauge(a, REPLICA_UP), `${REPLICA_UP} on ${api.name}`).to.equal(1)
      expect(gauge(a, REPLICA_LAG), `${REPLICA_LAG} on ${api.name}`).to.be.at.most(MAX_LAG_MS / 1000)
    }

    // A read that decides things (one loan) is the primary's, with no such header.
    const loan = await apis[1].send('GET', (borrower.loans[0] as Borrower['loans'][0]).path, { headers: borrowerHeaders() })
    expect(loan.status, loan.text).to.equal(200)
    expect(loan.headers.get(AS_OF), `${AS_OF} on GET one loan`).to.equal(null)
  })

  it('reads a writer\'s own write on the API that took it while the replica is paused, serves the other API from the replica until it is too far behind, then from the primary, and from the replica again once it catches up', async function () {
    this.timeout(90_000)
    const [apiA, apiB] = apis
    const list = (api: ApiClient) => api.send('GET', paymentsPath(), { headers: borrowerHeaders() })

    // Just after a probe of API B found the replica current (its as-of moves), replay stops.
    const first = await list(apiB)
    let fresh = asOfOf(first)
    const probed = await eventually(async () => {
      const reply = await list(apiB)
      const asOf = asOfOf(reply)
      const moved = asOf !== fresh && Date.now() - asOf < 500
      fresh = asOf
      return moved
    }, 10_000, 25)
    expect(probed, 'a fresh probe of the replica on API B within 10 s').to.equal(true)
    await psql(pair.replicaUrl, 'select pg_wal_replay_pause()')
    try {
      expect(await eventually(async () => (await psql(pair.replicaUrl, 'select pg_get_wal_replay_pause_state()')) === 'paused', 10_000, 20), 'replay paused').to.equal(true)
      const pausedAt = Date.now()
      const beforeB = await metricsOf(apiB)

      const payment = paymentRequest(borrower.loans[0] as Borrower['loans'][0], 4_321)
      const wroteFrom = Date.now()
      const wrote = await sendPayment(apiA, borrower.borrowerKey, payment)
      const wroteBy = Date.now()
      expect(wrote.status, wrote.text).to.equal(201)
      const paymentId = wrote.body.payment_id as string
      const readBAt = Date.now()
      const [onA, onB] = await Promise.all([list(apiA), list(apiB)])
      note(`replay paused ${pausedAt - fresh} ms after API B's last fresh probe; the payment took ${wroteBy - wroteFrom} ms; API B read ${readBAt - fresh} ms after that probe`)

      // API A took the write: its writer reads it (from the primary), current to after the write began.
      expect(onA.status, onA.text).to.equal(200)
      expect(paymentIds(onA), 'the payment in the list on API A, just after it').to.include(paymentId)
      expect(asOfOf(onA), `${AS_OF} on API A (${onA.headers.get(AS_OF)}) against the write's start (${new Date(wroteFrom).toISOString()})`).to.be.at.least(wroteFrom)

      // API B did not see the write: it reads the paused replica while it is within REPLICA_MAX_LAG_MS.
      expect(onB.status, onB.text).to.equal(200)
      const asOfB = asOfOf(onB)
      // Read well within REPLICA_MAX_LAG_MS of the replica's last known instant: the replica must have served it.
      expect(readBAt - fresh, 'API B read well within REPLICA_MAX_LAG_MS of its replica last being current').to.be.below(MAX_LAG_MS - 1_000)
      expect(paymentIds(onB), `the list on API B ${readBAt - fresh} ms after its replica was last current`).to.not.include(paymentId)
      expect(asOfB, `${AS_OF} on API B (${onB.headers.get(AS_OF)}) against the payment's answer (${new Date(wroteBy).toISOString()})`).to.be.below(wroteBy)
      expect(served(await metricsOf(apiB), 'replica') - served(beforeB, 'replica'), 'reads served by the paused replica on API B').to.equal(1)

      // Past REPLICA_MAX_LAG_MS the replica is too far behind: API B answers from the primary, with the payment.
      const primaryBefore = served(await metricsOf(apiB), 'primary')
      let late: Reply | undefined
      const caught = await eventually(async () => {
        const reply = await list(apiB)
        expect(reply.status, reply.text).to.equal(200)
        late = reply
        return paymentIds(reply).includes(paymentId)
      }, fresh + MAX_LAG_MS + 10_000 - Date.now(), 100)
      expect(caught, 'the payment in the list on API B once the paused replica is too far behind').to.equal(true)
      note(`API B's list has the payment ${Date.now() - fresh} ms after its replica was last current`)
      expect(asOfOf(late as Reply), `${AS_OF} of API B's list with the payment`).to.be.at.least(wroteBy)
      const tooFarBehind = await metricsOf(apiB)
      expect(served(tooFarBehind, 'primary'), 'reads served by the primary on API B').to.be.greaterThan(primaryBefore)
      expect(gauge(tooFarBehind, REPLICA_UP), `${REPLICA_UP} on API B (paused, but answering)`).to.equal(1)
      expect(gauge(tooFarBehind, REPLICA_LAG), `${REPLICA_LAG} on API B with replay paused`).to.be.above(MAX_LAG_MS / 1000)
    } finally {
      await psql(pair.replicaUrl, 'select pg_wal_replay_resume()')
    }
    const resumedAt = Date.now()

    // Replay resumed: the lag is back under REPLICA_MAX_LAG_MS and API B reads from the replica again, payment included.
    for (const api of apis) {
      const back = await eventually(async () => gauge(await metricsOf(api), REPLICA_LAG) < MAX_LAG_MS / 1000 && (await servedByReplica(api)), 15_000, 200)
      expect(back, `${api.name} reading from the replica again within 15 s of the resume`).to.equal(true)
    }
    note(`both APIs read from the replica again ${Date.now() - resumedAt} ms after the resume`)
    const onB = await list(apiB)
    expect(onB.status, onB.text).to.equal(200)
    expect(onB.body.data.length, 'payments on the first loan').to.equal(3)
  })

  it('answers every read while the replica is killed and started again, from the primary meanwhile, and from the replica once it is back', async function () {
    this.timeout(90_000)
    const reads = behindReads()
    const before = await Promise.all(apis.map(metricsOf))
    const problems: string[] = []
    let answered = 0
    const TRAFFIC_MS = 6_000
    const KILL_AFTER_MS = 2_000
    const until = Date.now() + TRAFFIC_MS
    const client = async (api: ApiClient, offset: number): Promise<void> => {
      for (let i = offset; Date.now() < until; i += 1) {
        const { path, headers } = reads[i % reads.length] as (typeof reads)[number]
        try {
          const reply = await api.send('GET', path, { headers })
          answered += 1
          if (reply.status !== 200) problems.push(`GET ${path} on ${api.name}: ${reply.status} ${reply.text}`)
          else if (!Number.isFinite(asOfOf(reply))) problems.push(`GET ${path} on ${api.name}: no ${AS_OF}`)
        } catch (error) {
          problems.push(`GET ${path} on ${api.name}: no answer: ${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`)
        }
      }
    }
    let killedAt = 0
    await Promise.all([
      ...[0, 1, 2].flatMap((offset) => apis.map((api) => client(api, offset * 2))),
      sleep(KILL_AFTER_MS).then(async () => {
        killedAt = Date.now()
        await pair.killReplica()
      }),
    ])
    note(`${answered} reads in ${TRAFFIC_MS} ms, the replica killed after ${killedAt - (until - TRAFFIC_MS)} ms`)
    expect(problems, `reads without a 200: ${listed(problems)}`).to.deep.equal([])
    for (const api of apis) expect(api.process.alive(), `${api.name} still running`).to.equal(true)

    for (const [i, api] of apis.entries()) {
      let text = ''
      const down = await eventually(async () => gauge((text = await metricsOf(api)), REPLICA_UP) === 0, 10_000, 200)
      expect(down, `${REPLICA_UP} 0 on ${api.name} within 10 s of the kill`).to.equal(true)
      const b = before[i] as string
      const onPrimary = served(text, 'primary') - served(b, 'primary')
      const afterFailure = served(text, 'primary_after_replica_failed') - served(b, 'primary_after_replica_failed')
      note(`${api.name}: ${served(text, 'replica') - served(b, 'replica')} reads served by the replica, ${onPrimary} by the primary, ${afterFailure} by the primary after failing on the replica`)
      expect(onPrimary + afterFailure, `reads answered by the primary on ${api.name} while the replica was down`).to.be.greaterThan(0)
    }
    // The replica down, every read is the primary's.
    const whileDown = await apis[0].send('GET', paymentsPath(), { headers: borrowerHeaders() })
    expect(whileDown.status, whileDown.text).to.equal(200)

    await pair.startReplica()
    const startedAt = Date.now()
    for (const api of apis) {
      const back = await eventually(async () => gauge(await metricsOf(api), REPLICA_UP) === 1 && (await servedByReplica(api)), 15_000, 200)
      expect(back, `${api.name}: ${REPLICA_UP} 1 and a read served by the replica within 15 s of its start`).to.equal(true)
    }
    note(`both APIs read from the replica again ${Date.now() - startedAt} ms after it started`)
    for (const api of apis) expect(api.process.alive(), `${api.name} still running`).to.equal(true)
  })
})
