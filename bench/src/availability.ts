/**
 * `pnpm bench:availability [--quick]`: issue 35's availability check. One partner reads its
 * onboarding session over 10 connections, first quietly, then while keyless clients each send,
 * back to back, 1 MiB bodies of nested arrays (`[[[[…`) to `POST /public/onboarding-sessions`:
 * before issue 35 each such body was parsed before its 401. Two API processes are measured in
 * turn: one with the keyless budget lifted, so that every flood request reaches the 401 and its
 * body is read and dropped (the cost of answering politely), and one with the default budget,
 * past which the flood gets 429 and a closed connection. Quiet and flooded rounds alternate;
 * the figures are the medians. Prints the partner's req/s, p50 and p99 in both and their ratios
 * (the issue asks that p99 stay within 2× of quiet). Like `pnpm bench`, on real PostgreSQL
 * (`BENCH_DATABASE_URL`, in a database of its own, dropped at the end), and it fails only on a
 * wrong answer: a partner read that is not 200, or a flood request answered anything but 401
 * or 429.
 */
import { randomUUID } from 'node:crypto'
import { Agent, request } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { apiAt, bearer } from './client.js'
import { drive, medianOf, type Drive, type Measured } from './load.js'
import { apiEnvironment, endRun, pinLoadGenerator, pinning, startChild, type Child } from './processes.js'
import { startReceiver } from './receiver.js'
import { mintKey, runSecrets, scratchDatabase, type Secrets } from './seed.js'

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false } } })
const quick = flags.quick === true
const ROUNDS = quick ? 1 : 3
const how: Drive = quick ? { connections: 10, seconds: 2, warmupSeconds: 1 } : { connections: 10, seconds: 8, warmupSeconds: 2 }
/** Keyless clients sending deep bodies at once, each waiting for its answer before the next. */
const FLOODERS = 4
const DEEP_BODY = Buffer.from('['.repeat(1024 * 1024))

const say = (message: string) => process.stderr.write(`availability: ${message}\n`)

const { baseUrl, name: databaseName, url: benchUrl } = scratchDatabase('lendgate_avail')
const secrets: Secrets = runSecrets()

type FloodResult = {
  /** Requests answered. */
  readonly answered: number
  /** Requests whose connection was closed before the answer was read (past the budget). */
  readonly cut: number
  readonly unexpected: Readonly<Record<string, number>>
}
type Flood = { readonly stop: () => Promise<FloodResult> }

/** `FLOODERS` keyless clients sending `DEEP_BODY` back to back until stopped. */
const flood = (url: string): Flood => {
  const { hostname, port } = new URL(url)
  const agent = new Agent({ keepAlive: true, maxSockets: FLOODERS })
  let running = true
  let answered = 0
  let cut = 0
  const unexpected: Record<string, number> = {}
  const one = () =>
    new Promise<void>((resolve) => {
      const outgoing = request(
        { host: hostname, port, method: 'POST', path: '/public/onboarding-sessions', agent, headers: { 'content-type': 'application/json', 'content-length': DEEP_BODY.length } },
        (response) => {
          response.resume()
          response.on('end', () => {
            answered++
            const status = response.statusCode ?? 0
            if (status !== 401 && status !== 429) unexpected[String(status)] = (unexpected[String(status)] ?? 0) + 1
            resolve()
          })
        },
      )
      // The server closes the connection after a 429 without reading the rest of the body.
      outgoing.on('error', () => {
        cut++
        resolve()
      })
      outgoing.end(DEEP_BODY)
    })
  const loops = Array.from({ length: FLOODERS }, async () => {
    while (running) await one()
  })
  return {
    stop: async () => {
      running = false
      await Promise.all(loops)
      agent.destroy()
      return { answered, cut, unexpected }
    },
  }
}

const ms = (n: number) => `${n.toFixed(2)} ms`
const unexpectedOf = (m: Measured) => Object.entries(m.unexpected)

pinLoadGenerator()
const admin = new pg.Pool({ connectionString: baseUrl, max: 1 })
await admin.query(`create database ${databaseName}`)
const receiver = await startReceiver(secrets.webhook)
const logDir = mkdtempSync(join(tmpdir(), 'lendgate-availability-'))
const children: Child[] = []
let failed = false

/** The partner's reads, quiet and flooded in turn, against an API started with `env`. */
const measure = async (label: string, env: Record<string, string>) => {
  const api = await startChild(label, 'apps/api/dist/main.js', { ...apiEnvironment(benchUrl, secrets, receiver.url), ...env }, join(logDir, `${label}.log`))
  children.push(api)
  const client = apiAt(api.url)
  const key = await mintKey(client, secrets, randomUUID(), 'availability')
  const { session_id: sessionId } = await client.call('POST', '/public/onboarding-sessions', {
    headers: bearer(key),
    json: { country_of_incorporation: 'US', locale: 'en-US' },
    expect: 201,
  })
  const partnerRead = { url: `${api.url}/public/onboarding-sessions/${sessionId}`, headers: bearer(key), expect: 200 }
  const quiet: Measured[] = []
  const flooded: Measured[] = []
  let answered = 0
  let cut = 0
  const unexpected: Record<string, number> = {}
  for (let round = 1; round <= ROUNDS; round++) {
    say(`${label}, round ${round} of ${ROUNDS}: quiet`)
    quiet.push(await drive(partnerRead, how))
    say(`${label}, round ${round} of ${ROUNDS}: under a keyless flood of ${FLOODERS} clients`)
    const running = flood(api.url)
    flooded.push(await drive(partnerRead, how))
    const result = await running.stop()
    answered += result.answered
    cut += result.cut
    for (const [what, n] of Object.entries(result.unexpected)) unexpected[what] = (unexpected[what] ?? 0) + n
  }
  await api.stop()
  const q = medianOf(quiet)
  const f = medianOf(flooded)
  const wrong = [...unexpectedOf(q), ...unexpectedOf(f)].map(([what, n]) => `${label} partner read ${what}: ${n}`).concat(Object.entries(unexpected).map(([what, n]) => `${label} flood ${what}: ${n}`))
  const perSecond = (n: number) => (n / (ROUNDS * how.seconds)).toFixed(0)
  return {
    wrong,
    rows: [
      `| ${label}: quiet | ${q.rps.toFixed(0)} | ${ms(q.p50)} | ${ms(q.p99)} |`,
      `| ${label}: flooded (${perSecond(answered)} answered/s, ${perSecond(cut)} cut off/s) | ${f.rps.toFixed(0)} | ${ms(f.p50)} | ${ms(f.p99)} |`,
      `| ${label}: flooded / quiet | ${(f.rps / q.rps).toFixed(2)}× | ${(f.p50 / q.p50).toFixed(2)}× | ${(f.p99 / q.p99).toFixed(2)}× |`,
    ],
  }
}

try {
  say(`database ${databaseName}; logs in ${logDir}; ${pinning === undefined ? 'no CPU pinning' : `API on CPU ${pinning.server}, clients on CPU ${pinning.load}`}`)
  const lifted = await measure('keyless budget lifted', {})
  const budget = await measure('default keyless budget', { RATE_LIMIT_KEYLESS_REQUESTS: '300' })
  process.stdout.write(
    [
      `Partner GET of its session over ${how.connections} connections, alone and beside ${FLOODERS} keyless clients sending 1 MiB nested-array bodies back to back:`,
      '',
      '| case | req/s | p50 | p99 |',
      '|---|---|---|---|',
      ...lifted.rows,
      ...budget.rows,
      '',
    ].join('\n'),
  )
  const wrong = [...lifted.wrong, ...budget.wrong]
  if (wrong.length > 0) throw new Error(`wrong answers: ${wrong.join('; ')}`)
} catch (error) {
  failed = true
  say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
} finally {
  await endRun({ children, receiver, admin, databaseName })
}
process.exit(failed ? 1 : 0)
