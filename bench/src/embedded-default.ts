/**
 * `pnpm bench:embedded --a <checkout> [--b <checkout>] [--quick]`: issue 41's figures, the
 * zero-setup default of two builds side by side in one run: build A (the checkout to compare
 * against, say a `git worktree` of the commit before the embedded server, built with `tsc -b`)
 * and build B (this checkout by default), each on a fresh `DATA_DIR` with `DATABASE_URL` unset,
 * running its compiled API (`apps/api/dist/main.js`) as production runs it.
 *
 * For each build: the first start (the data directory initialised) and the median of warm
 * starts, to a healthy `/health` and to a ready `/health/ready`; the memory of the API and of
 * its database processes (the embedded server's postmaster and its children, found through
 * `DATA_DIR/pgdata/postmaster.pid`; none for an in-process database) at idle and at its peak
 * under an authenticated GET load, as resident sets added up (RSS: every process counts the
 * shared pages it touched) and as proportional sets (PSS: each shared page counted once, split
 * among the processes that share it); the requests a second of that load; the time SIGTERM
 * takes to stop the API and its database; and, without `--quick`, the wall time of the whole
 * test suite on the embedded database alone (`TEST_DATABASE_URL` unset). Linux only (`/proc`).
 * Writes its table into docs/benchmarks.md without `--quick`. Asserts nothing about time or
 * memory; fails only on a wrong answer, a process that does not start or stop, or a failing
 * suite.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { apiAt, bearer } from './client.js'
import { drive, median, type Measured } from './load.js'
import { apiEnvironment, everyTenthOfASecond, freePort, REPO_ROOT } from './processes.js'
import { writeInto } from './report.js'
import { mintKey, runSecrets } from './seed.js'
import { stopEmbeddedServerOf } from '@lendgate/adapters/testing'

const { values: flags } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: REPO_ROOT },
    quick: { type: 'boolean', default: false },
  },
})
if (flags.a === undefined) {
  process.stderr.write('usage: bench:embedded --a <checkout> [--b <checkout>] [--quick]\n')
  process.exit(2)
}
const quick = flags.quick === true
/** When idle memory is read, in seconds after ready: soon after the start, and past the pool's 30 s idle timeout (its idle connections closed). */
const IDLE_AT = quick ? [1, 2] : [5, 35]
const WARM_STARTS = quick ? 1 : 3
const LOAD = quick ? { connections: 10, seconds: 2, warmupSeconds: 1 } : { connections: 10, seconds: 10, warmupSeconds: 3 }
const PARTY = '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b'
const TEST_GLOBS = ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts']
const say = (message: string) => process.stderr.write(`bench:embedded: ${message}\n`)

/** Memory of a group of processes, in kB. */
type Memory = { readonly rss: number; readonly pss: number }

const kB = (pid: number, file: 'status' | 'smaps_rollup', field: 'VmRSS' | 'Pss'): number => {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))?.[1] ?? 0)
  } catch {
    return 0 // gone meanwhile
  }
}

/** The pids of the embedded server of `dataDir`: its postmaster and the postmaster's children; none when it does not run. */
const serverPids = (dataDir: string): readonly number[] => {
  const pidFile = join(dataDir, 'pgdata', 'postmaster.pid')
  if (!existsSync(pidFile)) return []
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // Field 4 of /proc/<pid>/stat, counted after the `)` that ends the command name: the parent.
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === postmaster
      } catch {
        return false
      }
    })
    .map(Number)
  return [postmaster, ...children]
}

const memoryOf = (pids: readonly number[]): Memory => ({
  rss: pids.reduce((sum, pid) => sum + kB(pid, 'status', 'VmRSS'), 0),
  pss: pids.reduce((sum, pid) => sum + kB(pid, 'smaps_rollup', 'Pss'), 0),
})

type Started = { readonly url: string; readonly toHealthMs: number; readonly toReadyMs: number; readonly pid: number; readonly stop: () => Promise<number> }

const answers = async (url: string): Promise<boolean> => {
  try {
    return (await fetch(url)).status === 200
  } catch {
    return false
  }
}

/**
 * Starts the compiled API of `checkout` on `dataDir`, timing it to a healthy `/health` and a
 * ready `/health/ready`; `stop` answers how long SIGTERM took, in ms. Every process started is
 * put in `children`, for a failed run to stop.
 */
const startApi = async (checkout: string, dataDir: string, env: Record<string, string>, children: ChildProcess[]): Promise<Started> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child: ChildProcess = spawn(process.execPath, [resolve(checkout, 'apps/api/dist/main.js')], {
    cwd: checkout,
    env: { PATH: process.env['PATH'] ?? '', MALLOC_MMAP_THRESHOLD_: '131072', ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.push(child)
  let errors = ''
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  let exited = false
  const gone = new Promise<void>((done) => child.once('exit', () => ((exited = true), done())))
  const until = async (path: string): Promise<number> => {
    while (!(await answers(`${url}${path}`))) {
      if (exited) throw new Error(`the API of ${checkout} exited before ${path} answered: ${errors}`)
      if (performance.now() - started > 120_000) throw new Error(`the API of ${checkout} did not answer ${path} within 120 s`)
      await new Promise((r) => setTimeout(r, 10))
    }
    return performance.now() - started
  }
  const toHealthMs = await until('/health')
  const toReadyMs = await until('/health/ready')
  return {
    url,
    toHealthMs,
    toReadyMs,
    pid: child.pid!,
    stop: async () => {
      const stopping = performance.now()
      child.kill('SIGTERM')
      const killed = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await gone
      clearTimeout(killed)
      if (child.exitCode !== 0) throw new Error(`the API of ${checkout} stopped with ${child.exitCode ?? child.signalCode}: ${errors}`)
      return performance.now() - stopping
    },
  }
}

type Figures = {
  readonly firstHealthMs: number
  readonly firstReadyMs: number
  readonly warmHealthMs: number
  readonly warmReadyMs: number
  readonly idleSoon: Memory
  readonly idleLater: Memory
  readonly peak: Memory
  readonly load: Measured
  readonly stopMs: number
  readonly suiteSeconds?: number
}

/** Every figure of one build. */
const measure = async (label: string, checkout: string): Promise<Figures> => {
  // Open to pass through, as a checkout is: run as root, the embedded server's user must reach the data directory.
  const base = mkdtempSync(join(tmpdir(), `lendgate-bench-embedded-${label}-`))
  chmodSync(base, 0o755)
  const dataDir = join(base, 'data')
  const secrets = runSecrets()
  const env = apiEnvironment(undefined, secrets, 'http://127.0.0.1:9')
  const children: ChildProcess[] = []
  try {
    say(`${label}: first start`)
    const startedAt = performance.now()
    const first = await startApi(checkout, dataDir, env, children)
    const group = () => [first.pid, ...serverPids(dataDir)]
    const idleAfter = async (seconds: number): Promise<Memory> => {
      await new Promise((r) => setTimeout(r, first.toReadyMs + seconds * 1_000 - (performance.now() - startedAt)))
      return memoryOf(group())
    }
    const idleSoon = await idleAfter(IDLE_AT[0]!)
    const idleLater = await idleAfter(IDLE_AT[1]!)

    say(`${label}: authenticated GET load`)
    const api = apiAt(first.url)
    const key = await mintKey(api, secrets, PARTY, `bench-embedded-${label}`)
    const session = (await api.call('POST', '/public/onboarding-sessions', { headers: bearer(key), json: { country_of_incorporation: 'US', locale: 'en-US' }, expect: 201 })) as { session_id: string }
    let peak: Memory = { rss: 0, pss: 0 }
    const sampler = everyTenthOfASecond(async () => {
      const now = memoryOf(group())
      peak = { rss: Math.max(peak.rss, now.rss), pss: Math.max(peak.pss, now.pss) }
    })
    const load = await drive({ url: `${first.url}/public/onboarding-sessions/${session.session_id}`, headers: bearer(key), expect: 200 }, LOAD).finally(() => sampler.stop())
    if (Object.keys(load.unexpected).length > 0) throw new Error(`${label}: unexpected answers under load: ${JSON.stringify(load.unexpected)}`)
    const stopMs = await first.stop()
    if (serverPids(dataDir).length > 0) throw new Error(`${label}: the embedded server still runs after the API stopped`)

    const warm: Started[] = []
    for (let i = 0; i < WARM_STARTS; i++) {
      say(`${label}: warm start ${i + 1} of ${WARM_STARTS}`)
      const again = await startApi(checkout, dataDir, env, children)
      warm.push(again)
      await again.stop()
    }
    return {
      firstHealthMs: first.toHealthMs,
      firstReadyMs: first.toReadyMs,
      warmHealthMs: median(warm.map((w) => w.toHealthMs)),
      warmReadyMs: median(warm.map((w) => w.toReadyMs)),
      idleSoon,
      idleLater,
      peak,
      load,
      stopMs,
      ...(quick ? {} : { suiteSeconds: await suiteSeconds(label, checkout) }),
    }
  } finally {
    // A failed run leaves no process behind: the API, then its server (left by a killed API).
    for (const child of children) child.kill('SIGKILL')
    await stopEmbeddedServerOf(dataDir)
    rmSync(base, { recursive: true, force: true })
  }
}

/** The wall time of `checkout`'s whole test suite on its embedded database alone; fails when the suite does. */
const suiteSeconds = async (label: string, checkout: string): Promise<number> => {
  say(`${label}: the test suite`)
  const { TEST_DATABASE_URL: _ignored, ...env } = process.env
  const started = performance.now()
  const child = spawn(resolve(checkout, 'node_modules/.bin/mocha'), TEST_GLOBS, { cwd: checkout, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  const code = await new Promise<number | null>((done) => child.once('exit', done))
  if (code !== 0) throw new Error(`${label}: the test suite failed (${code}): ${errors.slice(-2_000)}`)
  return (performance.now() - started) / 1_000
}

const mb = (kb: number): string => (kb / 1024).toFixed(0)
const ratio = (a: number, b: number): string => (a > 0 ? `${(b / a).toFixed(2)}×` : '')

const a = await measure('A', resolve(flags.a))
const b = await measure('B', resolve(flags.b))
const rows: readonly (readonly [string, number, number, (n: number) => string])[] = [
  ['first start to a healthy /health (ms)', a.firstHealthMs, b.firstHealthMs, (n) => n.toFixed(0)],
  ['first start to a ready /health/ready (ms)', a.firstReadyMs, b.firstReadyMs, (n) => n.toFixed(0)],
  [`warm start to /health, median of ${WARM_STARTS} (ms)`, a.warmHealthMs, b.warmHealthMs, (n) => n.toFixed(0)],
  [`warm start to /health/ready, median of ${WARM_STARTS} (ms)`, a.warmReadyMs, b.warmReadyMs, (n) => n.toFixed(0)],
  ...IDLE_AT.flatMap((seconds, i) => {
    const [inA, inB] = i === 0 ? [a.idleSoon, b.idleSoon] : [a.idleLater, b.idleLater]
    return [
      [`API + database idle, ${seconds} s after ready: RSS added up (MB)`, inA.rss, inB.rss, mb],
      [`API + database idle, ${seconds} s after ready: PSS (MB)`, inA.pss, inB.pss, mb],
    ] as const
  }),
  [`API + database under ${LOAD.seconds} s of authenticated GET load, peak: RSS added up (MB)`, a.peak.rss, b.peak.rss, mb],
  ['API + database under the load, peak: PSS (MB)', a.peak.pss, b.peak.pss, mb],
  ['the load: requests a second', a.load.rps, b.load.rps, (n) => n.toFixed(0)],
  ['the load: p99 (ms)', a.load.p99, b.load.p99, (n) => n.toFixed(1)],
  ['SIGTERM to exit, database stopped (ms)', a.stopMs, b.stopMs, (n) => n.toFixed(0)],
  ...(a.suiteSeconds === undefined || b.suiteSeconds === undefined ? [] : [['the test suite, embedded database only (s)', a.suiteSeconds, b.suiteSeconds, (n: number) => n.toFixed(0)] as const]),
]
const table = [
  `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${quick ? ' (--quick)' : ''}; A: \`${flags.a}\`, B: \`${flags.b === REPO_ROOT ? 'this checkout' : flags.b}\`.`,
  '',
  '| figure | A | B | B / A |',
  '|---|---|---|---|',
  ...rows.map(([name, av, bv, show]) => `| ${name} | ${show(av)} | ${show(bv)} | ${ratio(av, bv)} |`),
].join('\n')
process.stdout.write(`${table}\n`)
if (!quick) writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), table, 'bench-embedded')
