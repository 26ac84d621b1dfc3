/**
 * `pnpm bench:events [--quick] [--noise <n>]`: issue 57's done-criterion, the event list paging through 10,000
 * events on the embedded default, each page's p99 against 50 ms on a small machine.
 *
 * - **The API**: the compiled API (`apps/api/dist/main.js`) on a fresh `DATA_DIR`, `DATABASE_URL`
 *   unset (its embedded PostgreSQL server), jobs off. Through the public API with test keys: a
 *   partner onboards a borrower (the test helper approves it), the borrower's loan is applied
 *   for, submitted, approved by the helper and paid once, so real events exist (`party.ready`,
 *   `application.*`, `loan.booked`, `payment.succeeded`). Three other partners do the same: the
 *   noise the audience filter must skip (10,000 events, or `--noise`).
 * - **The seed**, in SQL on the API's own server (its socket under `DATA_DIR`): 10,000 copies of
 *   the loan's real `payment.succeeded` and `loan.booked` rows (three to one) with new ids,
 *   increasing `loan_sequence` and `created_at` spread over the last 29 days, two events at each
 *   instant (so pages end between equal `created_at`, ordered by `seq`); and 10,000 such events of
 *   the other partners' loans, interleaved in time. `VACUUM (ANALYZE)` afterwards.
 * - **The walks**: every event the partner sees with `GET /public/events?limit=100` following
 *   `next_cursor` to the end; the same with `type=payment.succeeded` and with
 *   `resource_id=<loan id>`; and every event the borrower's own key sees (its party). Each page's
 *   latency is recorded, in `ROUNDS` rounds after one warm-up walk.
 * - **The baselines, in the same run**: the same page statements (the SQL `event-log.ts` sends:
 *   two ordered index ranges merged; the same parameters and cursor positions) run with `pg` on one connection over the server's
 *   socket as the API's role: the SQL ceiling; and `GET /health` as many times as the partner's
 *   walk has pages: the HTTP floor.
 *
 * Every walk of every round is checked: each event exactly once, in `(created_at, seq)` order as
 * the database orders it, as many as were written, every answer a 200. Nothing about time fails
 * the run. Prints the table and the `EXPLAIN (ANALYZE, BUFFERS)` of each walk's first page and of
 * a page half-way down (summarised in the table: the plan's nodes, the rows its filters read
 * and dropped, its buffers and time); writes them into docs/benchmarks.md on a full run at the
 * default noise (not with `--quick` or `--noise`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { stopEmbeddedServerOf } from '@lendgate/adapters/testing'
import pg from 'pg'
import { apiAt, bearer, type Api } from './client.js'
import { median, percentile } from './load.js'
import { apiEnvironment, freePort, REPO_ROOT } from './processes.js'
import { writeInto } from './report.js'
import { runSecrets, type Secrets } from './seed.js'

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, noise: { type: 'string', default: '10000' } } })
const quick = flags.quick === true
const ROUNDS = quick ? 2 : 5
/** Events seeded for the partner's borrower, and for the other partners' borrowers (`--noise`, to see how a page's cost follows the rest of the world's events). */
const SEEDED = 10_000
const NOISE = Number(flags.noise)
if (!Number.isSafeInteger(NOISE) || NOISE < 0) throw new Error(`--noise takes a count of events, not ${flags.noise}`)
/** Only a full run at the default noise writes its table into docs/benchmarks.md. */
const writes = !quick && NOISE === 10_000
const NOISE_PARTNERS = 3
const LIMIT = 100
const SPREAD_DAYS = 29
const WORKING_CAPITAL = '5b0c1d2e-0001-4a00-8000-000000000001'
const SETTLING_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: '000123456789' }
const TEST_CODE = '000000'
/** The test world's schema (decision 128), where a test key's events are. */
const EVENTS = 'lendgate_test.events'
/** The database and role the API uses on its embedded server (`openDatabase`). */
const DATABASE = 'lendgate'
const ROLE = 'lendgate'
const say = (message: string) => process.stderr.write(`bench:events: ${message}\n`)

type Started = { readonly url: string; readonly pid: number; readonly stop: () => Promise<void> }

/** Starts the compiled API on `dataDir` (the embedded default: no `DATABASE_URL`, whatever this process has) and waits for `/health/ready`. */
const startApi = async (dataDir: string, env: Record<string, string>, children: ChildProcess[]): Promise<Started> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'apps/api/dist/main.js')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', MALLOC_MMAP_THRESHOLD_: '131072', ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.push(child)
  let errors = ''
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  let exited = false
  const gone = new Promise<void>((done) => child.once('exit', () => ((exited = true), done())))
  const started = performance.now()
  for (;;) {
    const status = await fetch(`${url}/health/ready`).then(
      (r) => r.status,
      () => 0,
    )
    if (status === 200) break
    if (exited) throw new Error(`the API exited before it was ready: ${errors}`)
    if (performance.now() - started > 120_000) throw new Error('the API was not ready within 120 s')
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM')
      const killed = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await gone
      clearTimeout(killed)
      if (child.exitCode !== 0) throw new Error(`the API stopped with ${child.exitCode ?? child.signalCode}: ${errors}`)
    },
  }
}

/** A test key of the client `party_id` + `client_name`. */
const mintTestKey = async (api: Api, secrets: Secrets, partyId: string, clientName: string): Promise<string> =>
  (
    await api.call('POST', '/public/partner/api-keys', {
      headers: { 'x-partner-mint-key': secrets.mint },
      json: { party_id: partyId, client_name: clientName, environment: 'test' },
      expect: 201,
    })
  ).api_key as string

type Journey = { readonly partnerKey: string; readonly partnerPartyId: string; readonly borrowerKey: string; readonly partyId: string; readonly loanId: string }

/**
 * A partner's test-mode journey through the public API (docs/testing.md): a partner key, a
 * session onboarded with the test code and approved by the helper, a key of the new party, a
 * loan applied for, submitted and approved by the helper, a bank account and one payment.
 */
const journey = async (api: Api, secrets: Secrets, label: string): Promise<Journey> => {
  const partnerPartyId = randomUUID()
  const partnerKey = await mintTestKey(api, secrets, partnerPartyId, `bench-events-${label}`)
  const as = (key: string) => bearer(key)
  const session = `/public/onboarding-sessions`
  const { session_id: id } = await api.call('POST', session, { headers: as(partnerKey), json: { country_of_incorporation: 'US', locale: 'en-US' }, expect: 201 })
  const step = (method: string, path: string, json: unknown, expect: number) => api.call(method, `${session}/${id}${path}`, { headers: as(partnerKey), json, expect })
  await step('POST', '/contact/phone', { phone: '+14155550123' }, 201)
  await step('POST', '/contact/phone/verify', { code: TEST_CODE }, 200)
  await step('POST', '/contact/email', { email: 'jane@acme.example' }, 201)
  await step('POST', '/contact/email/verify', { code: TEST_CODE }, 200)
  await step('PUT', '/applicant-profile', { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' }, 200)
  await step('POST', '/addresses', { type: 'registered', line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' }, 201)
  await step('POST', '/submit', {}, 201)
  const approval = await api.call('POST', `/public/test-helpers/onboarding-sessions/${id}/approve`, { headers: as(partnerKey), json: {}, expect: 200 })
  const partyId = approval.party.party_id as string
  const borrowerKey = await mintTestKey(api, secrets, partyId, `bench-events-${label}-borrower`)
  const draft = await api.call('POST', '/public/applications', {
    headers: as(borrowerKey),
    json: { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 },
    expect: 201,
  })
  const applicationId = draft.application_id as string
  await api.call('POST', `/public/applications/${applicationId}/submit`, { headers: as(borrowerKey), json: {}, expect: 200 })
  const booked = await api.call('POST', `/public/test-helpers/applications/${applicationId}/approve`, { headers: as(borrowerKey), json: {}, expect: 200 })
  const loanId = booked.loan.loan_id as string
  const loanPath = `/public/parties/${partyId}/loans/${loanId}`
  const method = await api.call('POST', `${loanPath}/payment-methods`, { headers: as(borrowerKey), json: SETTLING_ACCOUNT, expect: 201 })
  await api.call('POST', `${loanPath}/payments`, {
    headers: { ...as(borrowerKey), 'idempotency-key': randomUUID() },
    json: { amount: 10_000, currency: 'USD', payment_method_id: method.payment_method_id },
    expect: 201,
  })
  return { partnerKey, partnerPartyId, borrowerKey, partyId, loanId }
}

/**
 * Seeds `count` events of `loanId` in SQL: copies of the loan's real `payment.succeeded` row
 * (each with a new resource id, as each payment has) and, every fourth, of its `loan.booked` row,
 * with new ids, `loan_sequence` after the loan's last, and `created_at` spread evenly over the
 * last `SPREAD_DAYS` days in whole milliseconds (as the API writes them), two events at each instant.
 */
const seedEvents = async (admin: pg.Client, loanId: string, count: number): Promise<void> => {
  const { rowCount } = await admin.query(
    // The two templates are read once, before the insert: a lookup of the table for each new row would
    // scan the rows inserted so far too (invisible to the statement, but in the heap), quadratic in `count`.
    `with templates as materialized (
       select distinct on (type) * from ${EVENTS} where loan_id = $1 and type in ('loan.booked', 'payment.succeeded') order by type, seq),
     last as materialized (select max(loan_sequence) as n from ${EVENTS} where loan_id = $1)
     insert into ${EVENTS} (id, type, party_id, client_id, loan_id, loan_sequence, resource_id, data, previous, created_at)
     select 'evt_' || replace(gen_random_uuid()::text, '-', ''), t.type, t.party_id, t.client_id, t.loan_id, last.n + g.n,
            case when t.type = 'payment.succeeded' then gen_random_uuid()::text else t.resource_id end,
            t.data, t.previous,
            date_trunc('milliseconds', now() - interval '${SPREAD_DAYS} days' + (g.n / 2) * (interval '${SPREAD_DAYS} days' / ($2::int / 2 + 1)))
     from generate_series(1, $2::int) as g(n)
     cross join last
     join templates t on t.type = (case when g.n % 4 = 0 then 'loan.booked' else 'payment.succeeded' end)`,
    [loanId, count],
  )
  if (rowCount !== count) throw new Error(`seeded ${rowCount} events of loan ${loanId}, not ${count}`)
  // Where the loan keeps its own count of events (the next one's `loan_sequence` follows it), it counts the seeded ones too.
  const { rowCount: counted } = await admin.query(`select 1 from information_schema.columns where table_schema = 'lendgate_test' and table_name = 'loans' and column_name = 'event_sequence'`)
  if (counted === 1) await admin.query(`update lendgate_test.loans set event_sequence = (select max(loan_sequence) from ${EVENTS} where loan_id = $1) where id = $1`, [loanId])
}

/** A walk: who reads (audience: the key's client and party) and with which filter. */
type Walk = {
  readonly name: string
  readonly key: string
  readonly clientId: string
  readonly partyId: string
  readonly filter: { readonly type?: string; readonly resourceId?: string }
  /** How many events the walk must return, counted from what was written. */
  readonly expected: number
}

/**
 * The statement `postgresEventLog.list` sends (Kysely's compiled text, as of the list that merges
 * two ordered index ranges) for `walk`, after `after` or from the start, and its parameters: the
 * events of the parties the client onboarded, and its own party's that it did not, each read in
 * list order up to the page's end, merged.
 */
const pageStatement = (walk: Walk, after: { readonly createdAt: Date; readonly seq: string } | undefined): { readonly text: string; readonly values: unknown[] } => {
  const values: unknown[] = []
  const $ = (value: unknown) => `$${values.push(value)}`
  const branch = (seen: () => string) => {
    let text = `select * from "lendgate_test"."events" where ${seen()}`
    if (walk.filter.type !== undefined) text += ` and "type" = ${$(walk.filter.type)}`
    if (walk.filter.resourceId !== undefined) text += ` and "resource_id" = ${$(walk.filter.resourceId)}`
    if (after !== undefined) text += ` and (created_at, seq) > (${$(after.createdAt)}, ${$(after.seq)})`
    return `select * from (${text} order by created_at, seq limit ${$(LIMIT + 1)}) as "branch"`
  }
  const onboarded = branch(() => `"client_id" = ${$(walk.clientId)}`)
  const own = branch(() => `("party_id" = ${$(walk.partyId)} and ("client_id" is null or "client_id" <> ${$(walk.clientId)}))`)
  return { text: `select * from (${onboarded} union all ${own}) as "seen" order by "created_at", "seq" limit ${$(LIMIT + 1)}`, values }
}

/** What one walk read: the ids in order, their `occurred_at` (the API's) and each page's latency in ms. */
type Walked = { readonly ids: readonly string[]; readonly occurredAt: readonly number[]; readonly latencies: readonly number[] }

/** Every page of `walk` through the API, following `next_cursor`; any answer but a 200 fails the run. */
const walkApi = async (url: string, walk: Walk): Promise<Walked> => {
  const ids: string[] = []
  const occurredAt: number[] = []
  const latencies: number[] = []
  const query = [
    `limit=${LIMIT}`,
    ...(walk.filter.type === undefined ? [] : [`type=${encodeURIComponent(walk.filter.type)}`]),
    ...(walk.filter.resourceId === undefined ? [] : [`resource_id=${encodeURIComponent(walk.filter.resourceId)}`]),
  ].join('&')
  let cursor: string | null = null
  do {
    if (latencies.length > (walk.expected / LIMIT) * 2 + 10) throw new Error(`${walk.name}: more pages than ${walk.expected} events can fill`)
    const target = `${url}/public/events?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
    const started = performance.now()
    const response = await fetch(target, { headers: bearer(walk.key) })
    const text = await response.text()
    latencies.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`${walk.name}: page ${latencies.length} answered ${response.status}: ${text.slice(0, 500)}`)
    const body = JSON.parse(text) as { data: { id: string; occurred_at: string }[]; next_cursor: string | null }
    if (body.data.length > LIMIT) throw new Error(`${walk.name}: a page of ${body.data.length} events, over the limit of ${LIMIT}`)
    for (const e of body.data) {
      ids.push(e.id)
      occurredAt.push(Date.parse(e.occurred_at))
    }
    cursor = body.next_cursor
  } while (cursor !== null)
  return { ids, occurredAt, latencies }
}

/** The same pages with `pg` alone: each statement after the last row of the page before, as the API's cursor says. */
const walkSql = async (client: pg.Client, walk: Walk): Promise<Walked> => {
  const ids: string[] = []
  const occurredAt: number[] = []
  const latencies: number[] = []
  let after: { createdAt: Date; seq: string } | undefined
  for (;;) {
    const { text, values } = pageStatement(walk, after)
    const started = performance.now()
    const { rows } = await client.query<{ id: string; created_at: Date; seq: string }>(text, values)
    latencies.push(performance.now() - started)
    const page = rows.slice(0, LIMIT)
    for (const row of page) {
      ids.push(row.id)
      occurredAt.push(row.created_at.getTime())
    }
    if (rows.length <= LIMIT) break
    const last = page[page.length - 1]!
    after = { createdAt: last.created_at, seq: last.seq }
  }
  return { ids, occurredAt, latencies }
}

/** Fails unless `walked` holds exactly `truth` (every event once, in the database's order), as many as were written, in `occurred_at` order. */
const check = (label: string, walk: Walk, walked: Walked, truth: readonly string[]): void => {
  const { ids, occurredAt } = walked
  if (new Set(ids).size !== ids.length) throw new Error(`${label}: ${ids.length - new Set(ids).size} duplicate events`)
  if (truth.length !== walk.expected) throw new Error(`${label}: the database holds ${truth.length} events for this walk, not the ${walk.expected} written`)
  if (ids.length !== truth.length) throw new Error(`${label}: ${ids.length} events listed, ${truth.length} expected`)
  const listed = new Set(ids)
  const missing = truth.filter((id) => !listed.has(id))
  if (missing.length > 0) throw new Error(`${label}: ${missing.length} events missing, such as ${missing[0]}`)
  const misplaced = ids.findIndex((id, i) => id !== truth[i])
  if (misplaced >= 0) throw new Error(`${label}: event ${misplaced + 1} is ${ids[misplaced]}, ${truth[misplaced]} expected there`)
  const backwards = occurredAt.findIndex((t, i) => i > 0 && t < occurredAt[i - 1]!)
  if (backwards >= 0) throw new Error(`${label}: event ${backwards + 1} occurred before the one listed before it`)
}

/** `GET /health` `times` times, one after the other: the HTTP floor of a page. */
const healthFloor = async (url: string, times: number): Promise<number[]> => {
  const latencies: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    const response = await fetch(`${url}/health`)
    await response.text()
    latencies.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`GET /health answered ${response.status}`)
  }
  return latencies
}

/** The summary of an `EXPLAIN (ANALYZE, BUFFERS)`: its nodes, the rows its filters dropped, its buffers and its execution time. */
const planSummary = (lines: readonly string[]): { readonly nodes: string; readonly removed: number; readonly buffers: string; readonly executionMs: string } => ({
  nodes: lines
    .filter((line, i) => i === 0 || line.includes('->'))
    .map((line) => line.replace('->', '').replace(/\s+\((cost|actual)=.*$/, '').trim())
    .join(' → '),
  removed: lines.reduce((sum, line) => sum + Number(/Rows Removed by (?:Filter|Index Recheck): (\d+)/.exec(line)?.[1] ?? 0), 0),
  buffers: /Buffers: (.*)$/.exec(lines.find((line) => line.includes('Buffers:')) ?? '')?.[1] ?? '',
  executionMs: /Execution Time: ([\d.]+) ms/.exec(lines.find((line) => line.includes('Execution Time')) ?? '')?.[1] ?? '?',
})

const base = mkdtempSync(join(tmpdir(), 'lendgate-bench-events-'))
// Open to pass through, as a checkout is: run as root, the embedded server's user must reach the data directory.
chmodSync(base, 0o755)
const dataDir = join(base, 'data')
const children: ChildProcess[] = []
const clients: pg.Client[] = []
const connect = async (role: string): Promise<pg.Client> => {
  // The embedded server listens on a socket in its cluster's directory only (`useEmbeddedServer`), trusting local connections.
  const client = new pg.Client({ connectionString: `postgresql://${role}@localhost:5432/${DATABASE}?host=${encodeURIComponent(join(dataDir, 'pgdata'))}` })
  client.on('error', () => undefined)
  await client.connect()
  clients.push(client)
  return client
}

try {
  const secrets = runSecrets()
  say(`starting the compiled API on the embedded default (${dataDir})`)
  const server = await startApi(dataDir, { ...apiEnvironment(undefined, secrets, 'http://127.0.0.1:9'), RUN_JOBS: 'false', LOG_LEVEL: 'warn' }, children)
  const api = apiAt(server.url)

  say('the journeys through the public API')
  const main = await journey(api, secrets, 'partner')
  const others: Journey[] = []
  for (let i = 0; i < NOISE_PARTNERS; i++) others.push(await journey(api, secrets, `other-${i + 1}`))

  const admin = await connect('postgres')
  const real = async (where: string, values: unknown[]): Promise<number> =>
    Number((await admin.query<{ n: string }>(`select count(*) as n from ${EVENTS} where ${where}`, values)).rows[0]!.n)
  const { rows: clientRows } = await admin.query<{ client_id: string }>(`select client_id from lendgate_test.parties where id = $1`, [main.partyId])
  const partnerClient = clientRows[0]!.client_id
  const { rows: borrowerClients } = await admin.query<{ id: string }>(`select id from api_clients where party_id = $1 and name = $2`, [main.partyId, 'bench-events-partner-borrower'])
  const borrowerClient = borrowerClients[0]!.id
  const { rows: realTypes } = await admin.query<{ type: string }>(`select type from ${EVENTS} where party_id = $1 order by created_at, seq`, [main.partyId])
  for (const type of ['party.ready', 'application.submitted', 'application.decided', 'loan.booked', 'payment.succeeded']) {
    if (!realTypes.some((r) => r.type === type)) throw new Error(`the journey wrote no ${type} event (it wrote ${realTypes.map((r) => r.type).join(', ')})`)
  }
  const partnerReal = await real('client_id = $1 or party_id = $2', [partnerClient, main.partnerPartyId])
  const paymentsReal = await real(`(client_id = $1 or party_id = $2) and type = 'payment.succeeded'`, [partnerClient, main.partnerPartyId])
  const loanReal = await real('(client_id = $1 or party_id = $2) and resource_id = $3', [partnerClient, main.partnerPartyId, main.loanId])
  const borrowerReal = await real('client_id = $1 or party_id = $2', [borrowerClient, main.partyId])

  say(`seeding ${SEEDED} events of the partner's loan and ${NOISE} of ${NOISE_PARTNERS} other partners' loans`)
  const seededAt = performance.now()
  await seedEvents(admin, main.loanId, SEEDED)
  for (const [i, other] of others.entries()) await seedEvents(admin, other.loanId, Math.floor(NOISE / NOISE_PARTNERS) + (i < NOISE % NOISE_PARTNERS ? 1 : 0))
  await admin.query(`vacuum (analyze) ${EVENTS}`)
  const total = await real('true', [])
  say(`seeded in ${((performance.now() - seededAt) / 1000).toFixed(1)} s; ${total} events in the test world`)
  const seededPayments = SEEDED - Math.floor(SEEDED / 4)
  const seededBooked = Math.floor(SEEDED / 4)

  const audiences: readonly Walk[] = [
    { name: 'partner: every event', key: main.partnerKey, clientId: partnerClient, partyId: main.partnerPartyId, filter: {}, expected: partnerReal + SEEDED },
    {
      name: 'partner: `type=payment.succeeded`',
      key: main.partnerKey,
      clientId: partnerClient,
      partyId: main.partnerPartyId,
      filter: { type: 'payment.succeeded' },
      expected: paymentsReal + seededPayments,
    },
    {
      name: 'partner: `resource_id=<loan id>`',
      key: main.partnerKey,
      clientId: partnerClient,
      partyId: main.partnerPartyId,
      filter: { resourceId: main.loanId },
      expected: loanReal + seededBooked,
    },
    { name: "borrower's key: its party's events", key: main.borrowerKey, clientId: borrowerClient, partyId: main.partyId, filter: {}, expected: borrowerReal + SEEDED },
  ]

  const sqlClient = await connect(ROLE)
  const truths = new Map<string, readonly string[]>()
  for (const walk of audiences) {
    // The whole audience, in list order, read without the list's statement.
    const { rows } = await admin.query<{ id: string }>(
      `select id from ${EVENTS} where (client_id = $1 or party_id = $2) and ($3::text is null or type = $3) and ($4::text is null or resource_id = $4) order by created_at, seq`,
      [walk.clientId, walk.partyId, walk.filter.type ?? null, walk.filter.resourceId ?? null],
    )
    truths.set(walk.name, rows.map((r) => r.id))
  }

  type Samples = { api: number[]; sql: number[]; firstApi: number[]; lastApi: number[]; pages: number; walkMs: number[]; sqlWalkMs: number[] }
  const samples = new Map<string, Samples>(audiences.map((w) => [w.name, { api: [], sql: [], firstApi: [], lastApi: [], pages: 0, walkMs: [], sqlWalkMs: [] }]))
  const health: number[] = []
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)

  for (let round = 0; round <= ROUNDS; round++) {
    const warmUp = round === 0
    say(warmUp ? 'warm-up walk' : `round ${round} of ${ROUNDS}`)
    // Which side goes first alternates, so neither always reads after the other warmed a cache.
    const sqlFirst = round % 2 === 1
    const floor = await healthFloor(server.url, Math.ceil(audiences[0]!.expected / LIMIT))
    if (!warmUp) health.push(...floor)
    for (const walk of audiences) {
      const truth = truths.get(walk.name)!
      const viaSql = sqlFirst ? await walkSql(sqlClient, walk) : undefined
      const viaApi = await walkApi(server.url, walk)
      const sqlWalked = viaSql ?? (await walkSql(sqlClient, walk))
      check(`${walk.name}, through the API, round ${round}`, walk, viaApi, truth)
      check(`${walk.name}, in SQL, round ${round}`, walk, sqlWalked, truth)
      if (warmUp) continue
      const s = samples.get(walk.name)!
      s.api.push(...viaApi.latencies)
      s.sql.push(...sqlWalked.latencies)
      s.firstApi.push(viaApi.latencies[0]!)
      s.lastApi.push(viaApi.latencies.at(-1)!)
      s.pages = viaApi.latencies.length
      s.walkMs.push(sum(viaApi.latencies))
      s.sqlWalkMs.push(sum(sqlWalked.latencies))
    }
  }

  say("EXPLAIN (ANALYZE, BUFFERS) of each walk's first page and a page half-way down")
  const explain = async (walk: Walk, after: { createdAt: Date; seq: string } | undefined): Promise<string[]> => {
    const { text, values } = pageStatement(walk, after)
    const { rows } = await sqlClient.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, values)
    return rows.map((r) => r['QUERY PLAN'])
  }
  const plans: { readonly walk: Walk; readonly page: number; readonly lines: readonly string[] }[] = []
  for (const walk of audiences) {
    const truth = truths.get(walk.name)!
    plans.push({ walk, page: 1, lines: await explain(walk, undefined) })
    // The last event of the page before the middle one: where the middle page's cursor points.
    const before = Math.max(1, Math.floor(Math.ceil(truth.length / LIMIT) / 2)) * LIMIT - 1
    const { rows: at } = await admin.query<{ created_at: Date; seq: string }>(`select created_at, seq from ${EVENTS} where id = $1`, [truth[before]])
    plans.push({ walk, page: (before + 1) / LIMIT + 1, lines: await explain(walk, { createdAt: at[0]!.created_at, seq: at[0]!.seq }) })
  }
  for (const plan of plans) process.stdout.write(`\nEXPLAIN (ANALYZE, BUFFERS), ${plan.walk.name}, page ${plan.page}:\n${plan.lines.join('\n')}\n`)
  process.stdout.write('\n')

  const { rows: version } = await admin.query<{ server_version: string }>('show server_version')
  const ms = (n: number) => n.toFixed(2)
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`
  const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)
  const healthSorted = sorted(health)
  const rows = audiences.map((walk) => {
    const s = samples.get(walk.name)!
    const [api, sql] = [sorted(s.api), sorted(s.sql)]
    const [apiP50, apiP99, sqlP50, sqlP99] = [percentile(api, 0.5), percentile(api, 0.99), percentile(sql, 0.5), percentile(sql, 0.99)]
    return { walk, s, apiP50, apiP99, apiMax: api.at(-1)!, sqlP50, sqlP99, met: apiP99 < 50 }
  })
  const table = [
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${quick ? ' (--quick)' : ''}${NOISE === 10_000 ? '' : ` (--noise ${NOISE})`}. Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, embedded PostgreSQL ${version[0]?.server_version ?? '?'}; nothing pinned (the API, its server and this process share the cores).`,
    '',
    `Data: ${total} events in the test world: ${partnerReal} written through the API for the partner's borrower and ${SEEDED} seeded for its loan; ` +
      `${total - partnerReal - SEEDED} of ${NOISE_PARTNERS} other partners' borrowers. Pages of ${LIMIT}, one request at a time; ` +
      `${ROUNDS} rounds after a warm-up, every page of every round counted (p99 over all of them); each round's walks checked complete, unique and in order.`,
    '',
    '| walk | events | pages | API p50 ms | API p99 ms | API max ms | SQL p50 ms | SQL p99 ms | API / SQL p50 | API / SQL p99 | API first page, median ms | API last page, median ms | whole walk, median ms (API / SQL) | p99 under 50 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.walk.name} | ${r.walk.expected} | ${r.s.pages} | ${ms(r.apiP50)} | ${ms(r.apiP99)} | ${ms(r.apiMax)} | ${ms(r.sqlP50)} | ${ms(r.sqlP99)} | ` +
        `${ratio(r.apiP50, r.sqlP50)} | ${ratio(r.apiP99, r.sqlP99)} | ${ms(median(r.s.firstApi))} | ${ms(median(r.s.lastApi))} | ` +
        `${median(r.s.walkMs).toFixed(0)} / ${median(r.s.sqlWalkMs).toFixed(0)} | ${r.met ? 'yes' : '**no**'} |`,
    ),
    `| HTTP floor: \`GET /health\`, as many as the partner's pages | | ${Math.ceil(audiences[0]!.expected / LIMIT)} | ${ms(percentile(healthSorted, 0.5))} | ${ms(percentile(healthSorted, 0.99))} | ${ms(healthSorted.at(-1)!)} | | | | | | | | |`,
    '',
    `The page statements' plans (\`EXPLAIN (ANALYZE, BUFFERS)\` after the rounds, as the API's role; a page half-way down is read after the cursor of the page before it):`,
    '',
    '| walk | page | plan | rows its filters dropped | buffers | execution ms |',
    '|---|---:|---|---:|---|---:|',
    ...plans.map((p) => {
      const summary = planSummary(p.lines)
      return `| ${p.walk.name} | ${p.page} | ${summary.nodes} | ${summary.removed} | ${summary.buffers} | ${summary.executionMs} |`
    }),
  ].join('\n')
  process.stdout.write(`${table}\n`)
  const slowest = rows.reduce((a, b) => (b.apiP99 > a.apiP99 ? b : a))
  say(
    `every walk's page p99 ${rows.every((r) => r.met) ? 'is' : 'is NOT'} under 50 ms (highest: ${ms(slowest.apiP99)} ms, ${slowest.walk.name}); ` +
      `the partner's pages cost ${ratio(rows[0]!.apiP50, rows[0]!.sqlP50)} their SQL at the median, ${ms(rows[0]!.apiP50 - percentile(healthSorted, 0.5))} ms over the HTTP floor`,
  )
  if (writes) writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), table, 'bench-events')

  for (const client of clients.splice(0)) await client.end()
  await server.stop()
} finally {
  for (const client of clients) await client.end().catch(() => undefined)
  for (const child of children) child.kill('SIGKILL')
  await stopEmbeddedServerOf(dataDir)
  rmSync(base, { recursive: true, force: true })
}
