/**
 * `pnpm bench:ab --a <checkout>`: two builds of the API side by side, loaded in turn, to judge a
 * change by its ratio. Whole-run figures on a shared machine drift by a third within minutes;
 * two processes measured alternately, a few seconds apart, drift together. Both run the
 * compiled API (`apps/api/dist`) of their checkout (`--b` defaults to this one) on the server
 * core, against one database; the load generator (and PostgreSQL, when it may be pinned) on
 * the others. Cases: an authenticated GET of an onboarding session, the 401 path with an
 * unknown key, a new onboarding session (a write), and, on a loan of each build's own, its
 * latest balance, a page of its ledger, its schedule, its payment methods and a payment with
 * an Idempotency-Key. Prints each round and the median ratios B / A of req/s and of the server's CPU time a request (from
 * /proc). The two agree when the server's core is the limit; a change that moves req/s without
 * moving the CPU a request changed waiting, not work. Asserts nothing about time; fails only on
 * a wrong answer.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { apiAt, bearer } from './client.js'
import { drive, median, type Load, type Measured } from './load.js'
import { apiEnvironment, endRun, pinLoadGenerator, pinPostgres, REPO_ROOT, startChild, type Child } from './processes.js'
import { startReceiver } from './receiver.js'
import { borrowerWithLoans, mintKey, paymentBody, runSecrets, scratchDatabase, type Borrower, type Secrets, type ServicedLoan } from './seed.js'

const { values: flags } = parseArgs({
  options: {
    /** The checkout of build A (built with `tsc -b`); a `git worktree` of the commit to compare against, say. */
    a: { type: 'string' },
    /** The checkout of build B; this one by default. */
    b: { type: 'string', default: REPO_ROOT },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '4' },
    /** Seconds of load each build gets before the rounds: the JIT takes about 10 s to settle. */
    warmup: { type: 'string', default: '8' },
    /** Runs only the cases whose name contains this text (`--only 401`, `--only GET`, `--only 'POST onboarding'`, `--only balance`, `--only 'GET loan'`, `--only payment`). */
    only: { type: 'string' },
    /** Node or V8 flags for build A's process, space-separated (`--a-flags=--single-threaded-gc`). */
    'a-flags': { type: 'string', default: '' },
    /** The same for build B: with `--a .`, compares one build under two sets of flags. */
    'b-flags': { type: 'string', default: '' },
  },
})
if (flags.a === undefined) {
  process.stderr.write('usage: bench:ab --a <checkout> [--b <checkout>] [--rounds 6] [--seconds 4] [--warmup 8] [--only <text>] [--a-flags <flags>] [--b-flags <flags>]\n')
  process.exit(2)
}
const rounds = Number(flags.rounds)
const how = { connections: 10, seconds: Number(flags.seconds), warmupSeconds: 0 }
/**
 * The median over pairs of rounds (A loaded first, then B first) of the pair's geometric mean.
 * On a noisy day the build loaded second in a round can lose by 10 to 30% whichever it is; a
 * pair holds one round of each order, so its mean cancels that, where the median of single
 * rounds falls wherever the two groups meet (docs/benchmarks-history.md, "Eighth pass").
 */
const balanced = (ratios: readonly number[]): string => {
  const pairs: number[] = []
  for (let i = 0; i + 1 < ratios.length; i += 2) pairs.push(Math.sqrt((ratios[i] as number) * (ratios[i + 1] as number)))
  return pairs.length === 0 ? 'order-balanced: needs two rounds' : `order-balanced median of ${pairs.length} pairs ${median(pairs).toFixed(3)}`
}
const say = (message: string) => process.stderr.write(`bench:ab: ${message}\n`)

const { baseUrl, name: databaseName, url: benchUrl } = scratchDatabase('lendgate_ab')
const secrets: Secrets = runSecrets()

pinLoadGenerator()
const admin = new pg.Pool({ connectionString: baseUrl, max: 1 })
const unpinPostgres = pinPostgres((await admin.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid ?? 0)
await admin.query(`create database ${databaseName}`)
const logDir = mkdtempSync(join(tmpdir(), 'lendgate-ab-'))
// Receives the verification codes of the borrower's onboarding (the payment case's setup).
const receiver = await startReceiver(secrets.webhook)
const children: Child[] = []
let failed = false

// One environment for both builds: they share the database, so they share its secrets too (the
// key that seals webhook secrets among them).
const environment = apiEnvironment(benchUrl, secrets, receiver.url)
const nodeFlags = (text: string): string[] => text.split(' ').filter((flag) => flag !== '')
const startApi = (label: string, checkout: string, extra: string): Promise<Child> =>
  startChild(label, resolve(checkout, 'apps/api/dist/main.js'), environment, join(logDir, `${label}.log`), nodeFlags(extra))

try {
  const withFlags = (extra: string) => (extra === '' ? '' : ` with ${extra}`)
  say(`A: ${resolve(flags.a)}${withFlags(flags['a-flags'])}; B: ${resolve(flags.b)}${withFlags(flags['b-flags'])}; logs in ${logDir}`)
  // One after the other: the first migrates the database, the second finds it migrated.
  const a = await startApi('A', flags.a, flags['a-flags'])
  children.push(a)
  const b = await startApi('B', flags.b, flags['b-flags'])
  children.push(b)
  const key = await mintKey(apiAt(a.url), secrets, randomUUID(), 'bench-ab-partner')
  const session = (await apiAt(a.url).call('POST', '/public/onboarding-sessions', { headers: bearer(key), json: { country_of_incorporation: 'US', locale: 'en-US' }, expect: 201 })).session_id as string
  const unknownKey = `lgk_live_${'0'.repeat(16)}_${'A'.repeat(32)}`
  // A borrower and loan for each build, onboarded and booked through that build: neither pays
  // against the other's growing ledger, and both have served the same setup (scrypt hashes and
  // all) before they are measured.
  const borrowers = new Map<Child, Borrower>()
  for (const api of [a, b]) borrowers.set(api, await borrowerWithLoans(apiAt(api.url), receiver, secrets, key, 1))
  const borrowerOf = (api: Child): Borrower => borrowers.get(api) as Borrower
  const loanOf = (api: Child): ServicedLoan => borrowerOf(api).loans[0] as ServicedLoan
  const cases: { readonly name: string; readonly load: (api: Child) => Load }[] = [
    { name: 'GET onboarding session', load: (api) => ({ url: `${api.url}/public/onboarding-sessions/${session}`, headers: bearer(key), expect: 200 }) },
    { name: 'GET with an unknown key (401)', load: (api) => ({ url: `${api.url}/public/onboarding-sessions/${session}`, headers: bearer(unknownKey), expect: 401 }) },
    {
      name: 'POST onboarding session (write)',
      load: (api) => ({ url: `${api.url}/public/onboarding-sessions`, method: 'POST', headers: bearer(key), body: JSON.stringify({ country_of_incorporation: 'US', locale: 'en-US' }), expect: 201 }),
    },
    {
      name: 'GET latest balance',
      load: (api) => ({ url: `${api.url}${loanOf(api).path}/balances/latest`, headers: bearer(borrowerOf(api).borrowerKey), expect: 200 }),
    },
    {
      name: 'GET loan transactions (a page of the ledger)',
      load: (api) => ({ url: `${api.url}${loanOf(api).path}/transactions?limit=10`, headers: bearer(borrowerOf(api).borrowerKey), expect: 200 }),
    },
    {
      name: 'GET loan schedule',
      load: (api) => ({ url: `${api.url}${loanOf(api).path}/schedule`, headers: bearer(borrowerOf(api).borrowerKey), expect: 200 }),
    },
    {
      name: 'GET loan payment methods',
      load: (api) => ({ url: `${api.url}${loanOf(api).path}/payment-methods`, headers: bearer(borrowerOf(api).borrowerKey), expect: 200 }),
    },
    {
      name: 'POST payment with Idempotency-Key',
      load: (api) => ({
        url: `${api.url}${loanOf(api).path}/payments`,
        method: 'POST',
        headers: bearer(borrowerOf(api).borrowerKey),
        body: paymentBody(loanOf(api)),
        perRequest: () => ({ 'idempotency-key': randomUUID() }),
        expect: 201,
      }),
    },
  ]
  for (const c of cases.filter(({ name }) => flags.only === undefined || name.includes(flags.only))) {
    // Warm-up in alternating slices (A B B A): with one whole warm-up each, the build warmed
    // first measured about 10% faster on the 401 path in A/A runs (one build against itself),
    // whichever was started, set up or loaded first; reversing the warm-up reversed it.
    for (const api of [a, b, b, a]) await drive(c.load(api), { ...how, seconds: Number(flags.warmup) / 2 })
    const ratios: number[] = []
    const cpuRatios: number[] = []
    for (let round = 1; round <= rounds; round++) {
      // The order within a round alternates too, so no build is always measured right after
      // the other one's load.
      const measured = new Map<Child, Measured>()
      const cpuPerRequest = new Map<Child, number>()
      for (const api of round % 2 === 1 ? [a, b] : [b, a]) {
        const cpuBefore = api.cpuSeconds()
        const m = await drive(c.load(api), how)
        cpuPerRequest.set(api, (api.cpuSeconds() - cpuBefore) / m.requests)
        if (Object.keys(m.unexpected).length > 0) {
          failed = true
          say(`${c.name} on ${api.name}: unexpected answers ${JSON.stringify(m.unexpected)}`)
        }
        measured.set(api, m)
      }
      const [ma, mb] = [measured.get(a), measured.get(b)] as [Measured, Measured]
      const [ca, cb] = [cpuPerRequest.get(a), cpuPerRequest.get(b)] as [number, number]
      ratios.push(mb.rps / ma.rps)
      cpuRatios.push(cb / ca)
      say(
        `${c.name}, round ${round}: A ${ma.rps.toFixed(0)} req/s (p99 ${ma.p99.toFixed(2)} ms, ${(ca * 1e6).toFixed(0)} µs CPU a request), ` +
          `B ${mb.rps.toFixed(0)} req/s (p99 ${mb.p99.toFixed(2)} ms, ${(cb * 1e6).toFixed(0)} µs), B/A ${(mb.rps / ma.rps).toFixed(3)}, CPU B/A ${(cb / ca).toFixed(3)}`,
      )
    }
    const listed = (values: readonly number[]) => values.map((r) => r.toFixed(3)).join(', ')
    process.stdout.write(`${c.name}: B/A req/s median ${median(ratios).toFixed(3)} (rounds: ${listed(ratios)}); ${balanced(ratios)}\n`)
    process.stdout.write(`${c.name}: B/A server CPU a request, median ${median(cpuRatios).toFixed(3)} (rounds: ${listed(cpuRatios)}); ${balanced(cpuRatios)}\n`)
  }
} catch (error) {
  failed = true
  say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
} finally {
  await endRun({ children, receiver, admin, databaseName, unpinPostgres })
}
process.exit(failed ? 1 : 0)
