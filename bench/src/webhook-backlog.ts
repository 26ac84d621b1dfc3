/**
 * `pnpm bench:webhooks [--quick]` (issues 40 and 61): draining a backlog of 10,000 `party.ready`
 * events with two worker processes, against a plain script doing the same work on an identical
 * backlog (the same SQL and the same signed POSTs to the same receiver: the ceiling), in one run.
 *
 * - **The backlog**, built once the way partners and operators make it: the API started with
 *   `RUN_JOBS=false` (so nothing is delivered), a submitted session with a webhook at the bench's
 *   receiver made through the public API and copied in SQL (`copySession`), every copy approved
 *   through the internal API by 10 concurrent operators, which queues one pending event each.
 *   Each round drains fresh copies of it (`create database … template …`).
 * - **The workers**: two compiled worker processes (`apps/api/dist/worker-main.js`) start while
 *   the bench holds a lock on the outbox, so each one's first claim waits for it; the drain is
 *   timed from the lock's release until the receiver has every event exactly once with a valid
 *   signature and the database shows none pending.
 * - **The ceiling**: two loops, each claiming with the workers' statement, POSTing every claimed
 *   event signed to the receiver with the workers' HTTP client and recording it with their
 *   statements over a pool of a worker's size (`webhook-ceiling.ts`); and, beside it, the same
 *   with one connection a loop, so its records go one at a time. The receiver must have each event of the
 *   drain once, correctly signed, from the ceiling as from the workers.
 *
 * Only a wrong answer fails the run (an event lost, delivered twice, badly signed or recorded as
 * anything but one delivered attempt; a process error); time never does. `--profile` starts the
 * workers under `node --cpu-prof`, their profiles left in the run's log folder.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { apiAt, bearer } from './client.js'
import { apiEnvironment, REPO_ROOT, startChild, type Child } from './processes.js'
import { startReceiver, type Receiver } from './receiver.js'
import { writeInto } from './report.js'
import { copySession, databaseUrl, mintKey, onDatabase, runSecrets, scratchDatabase, submittedSession, type Secrets } from './seed.js'
import { captureDelivery, drainCeiling, WORKER_BATCH, WORKER_POOL, type CapturedDelivery, type Drained } from './webhook-ceiling.js'

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, profile: { type: 'boolean', default: false } } })
const quick = flags.quick === true

const EVENTS = quick ? 1_000 : 10_000
const ROUNDS = quick ? 1 : 3
const WORKERS = 2
/** Operators approving the backlog's sessions at once. */
const OPERATORS = 10
/** The workers' throughput at least this share of the ceiling's. */
const GOAL = 0.6
/** Without a new delivery (or record) for this long, what is missing is lost: longer than a worker's lease (60 s). */
const STALL_MS = 90_000
const POLL_MS = 5

const say = (message: string) => process.stderr.write(`bench:webhooks: ${message}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const scratch = scratchDatabase('lendgate_webhooks')
const urlOf = (name: string): string => databaseUrl(scratch.baseUrl, name)
const admin = <A>(run: (client: pg.Client) => Promise<A>): Promise<A> => onDatabase(scratch.baseUrl, run)

/**
 * The backlog on `url`: `EVENTS` submitted sessions with a webhook at the receiver, approved
 * through an API that runs no jobs, so each one's `party.ready` waits in the outbox.
 */
const buildBacklog = async (url: string, env: Record<string, string>, receiver: Receiver, secrets: Secrets, logFile: string): Promise<void> => {
  const setup = await startChild('api (setup, RUN_JOBS=false)', 'apps/api/dist/main.js', { ...env, RUN_JOBS: 'false', LOG_LEVEL: 'warn' }, logFile)
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  try {
    const api = apiAt(setup.url)
    const partnerKey = await mintKey(api, secrets, randomUUID(), 'bench-webhooks-partner')
    const template = await submittedSession(api, partnerKey, receiver, { url: `${receiver.url}/hooks`, secret: secrets.webhook })
    const queue = [template, ...(await copySession(pool, template, EVENTS - 1))]
    let approved = 0
    const operator = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        await api.call('POST', `/internal/onboarding-sessions/${id}/approve`, { headers: bearer(secrets.internal), expect: 200 })
        if (++approved % 2_000 === 0) say(`approved ${approved}/${EVENTS}`)
      }
    }
    await Promise.all(Array.from({ length: OPERATORS }, operator))
    await setup.stop()
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from webhook_events e join webhook_endpoints w on w.session_id = e.session_id
       where e.status = 'pending' and e.type = 'party.ready' and e.attempts = 0 and w.url = $1`,
      [`${receiver.url}/hooks`],
    )
    if (rows[0]?.n !== EVENTS) throw new Error(`the backlog holds ${rows[0]?.n} pending events for the receiver, not ${EVENTS}`)
    await pool.query('vacuum (analyze)')
    await pool.query('checkpoint').catch(() => undefined) // needs a superuser or pg_checkpoint; only steadier figures are lost without it
  } finally {
    await setup.stop()
    await pool.end()
  }
}

/** Waits until `done` says so, failing once `progress` has not moved for `STALL_MS`. */
const until = async (what: string, done: () => Promise<boolean>, progress: () => number): Promise<void> => {
  let last = progress()
  let movedAt = performance.now()
  while (!(await done())) {
    const now = progress()
    if (now !== last) [last, movedAt] = [now, performance.now()]
    else if (performance.now() - movedAt > STALL_MS) throw new Error(`${what}: no progress for ${STALL_MS / 1000} s (${now} of ${EVENTS})`)
    await sleep(POLL_MS)
  }
}

const pendingEvents = async (client: pg.Client): Promise<number> =>
  (await client.query<{ n: number }>("select count(*)::int as n from webhook_events where status = 'pending'")).rows[0]?.n ?? Number.NaN

/**
 * What the database says of a drained backlog; throws unless every event is delivered after
 * exactly one attempt answered 2xx. Returns the events' ids.
 */
const checkDrained = async (client: pg.Client, who: string): Promise<Set<string>> => {
  const { rows } = await client.query<{ id: string; status: string; attempts: number; recorded: number; succeeded: number }>(
    `select e.id, e.status, e.attempts, count(a.id)::int as recorded, count(a.id) filter (where a.status_code between 200 and 299)::int as succeeded
     from webhook_events e left join webhook_attempts a on a.event_id = e.id group by e.id`,
  )
  const wrong = rows.filter((r) => r.status !== 'delivered' || r.attempts !== 1 || r.recorded !== 1 || r.succeeded !== 1)
  if (rows.length !== EVENTS || wrong.length > 0) throw new Error(`${who}: ${rows.length} events, ${wrong.length} not delivered after one successful attempt, e.g. ${JSON.stringify(wrong.slice(0, 3))}`)
  return new Set(rows.map((r) => r.id))
}

/**
 * A drain by the workers, with their CPU time (all threads), the time their main threads ran and
 * waited for a core, and the HTTP time of their attempts (the delivery log's `duration_ms`), all
 * summed over the workers.
 */
type WorkersDrained = Drained & {
  readonly cpuSeconds: number
  readonly running: number
  readonly waiting: number
  readonly attemptMs: { readonly p50: number; readonly p99: number }
}

/** Warnings and errors in a worker's log (pino levels 40 and up): none is expected. */
const complaints = (logFile: string): string[] => readFileSync(logFile, 'utf8').split('\n').filter((line) => /"level":(4|5|6)0\b/.test(line))

/**
 * The backlog on `url` drained by `WORKERS` worker processes. They start while this holds an
 * EXCLUSIVE lock on `webhook_events` (their first claims wait on it); the clock starts when the
 * lock goes and stops when the receiver has every event and none is pending any more.
 */
const drainWithWorkers = async (url: string, env: Record<string, string>, receiver: Receiver, logDir: string, round: number): Promise<WorkersDrained> => {
  const gate = new pg.Client({ connectionString: url })
  await gate.connect()
  try {
    const logs = Array.from({ length: WORKERS }, (_, i) => join(logDir, `worker-${round}-${i + 1}.log`))
    const first = receiver.deliveries.length
    const forgedBefore = receiver.forged()
    const received = new Set<string>()
    let read = first
    const receivedCount = (): number => {
      for (; read < receiver.deliveries.length; read++) received.add((receiver.deliveries[read] as { webhookId: string }).webhookId)
      return received.size
    }
    const drained = await timedDrain(gate, env, logs, async () => {
      // A badly signed delivery counts too, so that one fails the run at once rather than after a stall.
      const arrived = () => receivedCount() + receiver.forged() - forgedBefore
      await until('the workers', async () => arrived() >= EVENTS, arrived)
    })
    const ids = await checkDrained(gate, 'the workers')
    receivedCount()
    const lost = [...ids].filter((id) => !received.has(id)).length
    const strangers = [...received].filter((id) => !ids.has(id)).length
    const duplicates = receiver.deliveries.length - first - received.size
    const forged = receiver.forged() - forgedBefore
    if (lost + strangers + duplicates + forged > 0) throw new Error(`the workers: lost ${lost}, unknown ${strangers}, delivered twice ${duplicates}, badly signed ${forged}`)
    const logged = logs.flatMap(complaints)
    if (logged.length > 0) throw new Error(`the workers logged warnings or errors:\n${logged.slice(0, 5).join('\n')}`)
    const { rows } = await gate.query<{ p50: number; p99: number }>(
      'select percentile_cont(0.5) within group (order by duration_ms) as p50, percentile_cont(0.99) within group (order by duration_ms) as p99 from webhook_attempts',
    )
    return { ...drained, attemptMs: { p50: Number(rows[0]?.p50), p99: Number(rows[0]?.p99) } }
  } finally {
    await gate.end()
  }
}

/**
 * Starts the workers (logging to `logs`) while `gate` holds the outbox's lock, releases it, and
 * times until `delivered` resolves and no event is pending; the workers are stopped in any case.
 */
const timedDrain = async (
  gate: pg.Client,
  env: Record<string, string>,
  logs: readonly string[],
  delivered: () => Promise<void>,
): Promise<Omit<WorkersDrained, 'attemptMs'>> => {
  const workers: Child[] = []
  try {
    await gate.query('begin')
    await gate.query('lock table webhook_events in exclusive mode')
    // Not pinned: on two cores, the server core alone would leave both workers one core while the
    // ceiling's PostgreSQL has every core (docs/benchmarks.md, "Draining a webhook backlog").
    const nodeFlags = flags.profile === true ? ['--cpu-prof', `--cpu-prof-dir=${dirname(logs[0] as string)}`] : []
    const started = await Promise.allSettled(
      logs.map((log, i) =>
        startChild(`worker ${i + 1}`, 'apps/api/dist/worker-main.js', { ...env, LOG_LEVEL: 'warn' }, log, nodeFlags, { portVariable: 'WORKER_PORT', pinned: false }),
      ),
    )
    for (const s of started) if (s.status === 'fulfilled') workers.push(s.value)
    for (const s of started) if (s.status === 'rejected') throw s.reason
    const used = () => ({
      cpu: workers.reduce((sum, w) => sum + w.cpuSeconds(), 0),
      running: workers.reduce((sum, w) => sum + w.schedule().running, 0),
      waiting: workers.reduce((sum, w) => sum + w.schedule().waiting, 0),
    })
    const before = used()
    const t0 = performance.now()
    await gate.query('commit')
    await delivered()
    let pending = EVENTS
    await until('the workers recording their attempts', async () => (pending = await pendingEvents(gate)) === 0, () => pending)
    const seconds = (performance.now() - t0) / 1000
    const after = used()
    const gone = workers.filter((w) => w.exited())
    if (gone.length > 0) throw new Error(`${gone.map((w) => w.name).join(', ')} exited during the drain`)
    return { events: EVENTS, seconds, cpuSeconds: after.cpu - before.cpu, running: after.running - before.running, waiting: after.waiting - before.waiting }
  } finally {
    await Promise.all(workers.map((w) => w.stop()))
  }
}

const rate = (d: Drained): number => d.events / d.seconds

/** The round of the median rate. */
const median = <A extends Drained>(rounds: readonly A[]): A => [...rounds].sort((a, b) => rate(a) - rate(b))[Math.floor((rounds.length - 1) / 2)] as A

/**
 * One round: the workers; the ceiling (their statements and signed POSTs, each loop sending and
 * recording its batch over a pool of a worker's size); and the same with one connection a loop.
 */
type Round = { readonly workers: WorkersDrained; readonly ceiling: Drained; readonly serial: Drained }

const percent = (a: Drained, b: Drained): string => `${((rate(a) / rate(b)) * 100).toFixed(0)}%`

const report = (rounds: readonly Round[]): string => {
  const workers = median(rounds.map((r) => r.workers))
  const ceiling = median(rounds.map((r) => r.ceiling))
  const serial = median(rounds.map((r) => r.serial))
  const met = rate(workers) >= GOAL * rate(ceiling)
  const each = rounds.map((r, i) => `round ${i + 1}: ${[r.workers, r.ceiling, r.serial].map((d) => rate(d).toFixed(0)).join(', ')}`).join('; ')
  const n = EVENTS.toLocaleString('en-US')
  return [
    `Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}.`,
    '',
    `Settings: ${quick ? 'quick run' : 'full run'}; a backlog of ${n} pending \`party.ready\` events, ${ROUNDS} round(s), each drained on fresh copies of it, figures the median round ` +
      `(events/s of the three rows in turn, ${each}); ` +
      'nothing pinned: the workers, the receiver (in the bench process) and PostgreSQL share the cores, as the scripts and PostgreSQL do.',
    '',
    `| drain of ${n} events | seconds | events/s | workers / this |`,
    '|---|---:|---:|---:|',
    `| ${WORKERS} worker processes, each event to the receiver | ${workers.seconds.toFixed(2)} | ${rate(workers).toFixed(0)} | |`,
    `| ceiling: their SQL and signed POSTs to the receiver, ${WORKERS} loops each sending and recording its batch over ${WORKER_POOL} connections as a worker does | ${ceiling.seconds.toFixed(2)} | ${rate(ceiling).toFixed(0)} | ${percent(workers, ceiling)} |`,
    `| the same, ${WORKERS} loops of one connection each (their records one at a time) | ${serial.seconds.toFixed(2)} | ${rate(serial).toFixed(0)} | ${percent(workers, serial)} |`,
    '',
    `Goal: the workers at ≥ ${GOAL * 100}% of the ceiling: ${met ? 'met' : '**not met**'} (${percent(workers, ceiling)}). ` +
      `Their CPU: ${((workers.cpuSeconds / workers.events) * 1e6).toFixed(0)} µs an event for the two together, ${((workers.cpuSeconds / workers.seconds) * 100).toFixed(0)}% of one core over the drain; ` +
      `their main threads ran ${workers.running.toFixed(1)} s and waited ${workers.waiting.toFixed(1)} s in the run queue for a core (summed over the ${WORKERS}); ` +
      `an attempt's HTTP time (\`duration_ms\`, sending to the answer read) ${workers.attemptMs.p50.toFixed(0)} ms at the median, ${workers.attemptMs.p99.toFixed(0)} ms at p99 (median round). ` +
      'Every event reached the receiver once, validly signed, after one recorded attempt.',
  ].join('\n')
}

const main = async (): Promise<boolean> => {
  const logDir = mkdtempSync(join(tmpdir(), 'lendgate-bench-webhooks-'))
  const secrets = runSecrets()
  const receiver = await startReceiver(secrets.webhook)
  // One environment for the setup API and every worker: the workers unseal what the API sealed with its WEBHOOK_SECRET_KEY.
  const env = apiEnvironment(urlOf(scratch.name), secrets, receiver.url)
  const made: string[] = []
  const create = async (name: string, template?: string): Promise<string> => {
    made.push(name)
    await admin((c) => c.query(`create database ${name}${template === undefined ? '' : ` template ${template}`}`))
    return urlOf(name)
  }
  const drop = async (name: string): Promise<void> => {
    await admin((c) => c.query(`drop database if exists ${name} with (force)`))
    made.splice(made.indexOf(name), 1)
  }
  const rounds: Round[] = []
  let failed = false
  try {
    say(`logs in ${logDir}`)
    await create(scratch.name)
    await buildBacklog(urlOf(scratch.name), env, receiver, secrets, join(logDir, 'api-setup.log'))
    say(`backlog of ${EVENTS} pending events in ${scratch.name}`)
    const captured: CapturedDelivery = await captureDelivery(await create(`${scratch.name}_capture`, scratch.name))
    await drop(`${scratch.name}_capture`)
    say(`captured a worker's statements: the claim (limit ${WORKER_BATCH}) and ${captured.record.length} a recorded event`)
    for (let round = 1; round <= ROUNDS; round++) {
      const copy = (suffix: string): Promise<string> => create(`${scratch.name}_${suffix}${round}`, scratch.name)
      const runWorkers = async () => {
        const url = await copy('w')
        return drainWithWorkers(url, { ...env, DATABASE_URL: url }, receiver, logDir, round)
      }
      const runScript = (connections: number) => async (): Promise<Drained> => {
        const url = await copy(connections === 1 ? 's' : 'c')
        const [first, forgedBefore] = [receiver.deliveries.length, receiver.forged()]
        const drained = await drainCeiling(url, captured, WORKERS, connections, secrets.webhook)
        await onDatabase(url, (c) => checkDrained(c, 'the ceiling script'))
        const received = new Set(receiver.deliveries.slice(first).map((d) => d.webhookId))
        const [arrived, forged] = [receiver.deliveries.length - first, receiver.forged() - forgedBefore]
        if (received.size !== EVENTS || arrived !== EVENTS || forged > 0) throw new Error(`the ceiling script: ${arrived} deliveries of ${received.size} events, ${forged} badly signed, for ${EVENTS} events`)
        return drained
      }
      // The workers go first in odd rounds and last in even ones, so that neither side always runs on a warmer cache.
      const runs = [runWorkers, runScript(WORKER_POOL), runScript(1)] as const
      const results: Drained[] = []
      for (const i of round % 2 === 1 ? [0, 1, 2] : [2, 1, 0]) results[i] = await runs[i]!()
      const [workers, ceiling, serial] = results as [WorkersDrained, Drained, Drained]
      say(`round ${round}: workers ${rate(workers).toFixed(0)} events/s, ceiling ${rate(ceiling).toFixed(0)}, one connection a loop ${rate(serial).toFixed(0)}`)
      rounds.push({ workers, ceiling, serial })
      for (const name of made.filter((m) => m !== scratch.name)) await drop(name)
    }
  } catch (error) {
    failed = true
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  } finally {
    await receiver.close()
    for (const name of [...made].reverse()) await drop(name)
  }
  if (failed) return false
  const table = report(rounds)
  process.stdout.write(`${table}\n`)
  if (!quick) {
    writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), table, 'bench-webhooks')
    say('written into docs/benchmarks.md')
  }
  return true
}

process.exit((await main()) ? 0 : 1)
