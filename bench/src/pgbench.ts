import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { percentile, type Measured } from './load.js'
import { pinning } from './processes.js'

/** One pgbench run of a custom script. */
export type PgbenchRun = {
  readonly url: string
  /** The script file (`-f`). */
  readonly script: string
  /** Variables every client starts with (`-D name=value`). */
  readonly variables: Readonly<Record<string, string>>
  readonly clients: number
  readonly threads: number
  readonly seconds: number
  /** Where its per-transaction logs go (a folder of their own under it) and its output is appended (`pgbench.log`). */
  readonly logDir: string
}

/** Throws unless `pgbench` runs here (Debian ships it with the server, in `postgresql-<version>`). */
export const requirePgbench = (): void => {
  const version = spawnSync('pgbench', ['--version'], { encoding: 'utf8' })
  if (version.status !== 0) throw new Error(`pgbench does not run here (${version.error?.message ?? version.stderr.trim()}): install PostgreSQL's pgbench (Debian: postgresql-15)`)
}

/** pgbench's figures, or undefined when its output does not hold them. */
const figure = (output: string, pattern: RegExp): number | undefined => {
  const match = output.match(pattern)
  return match === null ? undefined : Number(match[1])
}

/**
 * Runs pgbench with `-M extended` (each statement parsed, bound and run unnamed, as `pg` runs the
 * API's) for `seconds`, pinned like the API to the server core. req/s is pgbench's own tps
 * (without the time taken to connect); p50 and p99 come from its per-transaction log (`-l`, one
 * line a transaction with its latency in microseconds, one file a thread). A wrong answer lands
 * in `unexpected`: a non-zero exit, a client aborted by an error, a failed transaction.
 */
export const runPgbench = async (run: PgbenchRun): Promise<Measured> => {
  const logs = mkdtempSync(join(run.logDir, 'pgbench-'))
  const args = [
    '-n',
    '-M', 'extended',
    '-c', String(run.clients),
    '-j', String(run.threads),
    '-T', String(run.seconds),
    '-f', run.script,
    '-l', `--log-prefix=${join(logs, 'tx')}`,
    ...Object.entries(run.variables).flatMap(([name, value]) => ['-D', `${name}=${value}`]),
    run.url,
  ]
  const command = pinning === undefined ? ['pgbench', ...args] : ['taskset', '-c', pinning.server, 'pgbench', ...args]
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')))
    child.once('error', reject)
    child.once('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }))
  })
  appendFileSync(join(run.logDir, 'pgbench.log'), `$ pgbench … -T ${run.seconds} (per-transaction logs in ${logs})\n${stdout}${stderr}\n`)

  const latencies: number[] = []
  let failedInLog = 0
  for (const file of readdirSync(logs)) {
    for (const line of readFileSync(join(logs, file), 'utf8').split('\n')) {
      const time = line.split(' ')[2]
      if (time === undefined) continue
      if (/^\d+$/.test(time)) latencies.push(Number(time) / 1000)
      else failedInLog++
    }
  }
  latencies.sort((a, b) => a - b)
  const tps = figure(stdout, /^tps = ([\d.]+) \(without initial connection time\)/m)
  const failed = figure(stdout, /^number of failed transactions: (\d+)/m) ?? 0
  const aborted = (stderr.match(/aborted/g) ?? []).length
  const unexpected: Record<string, number> = {}
  if (code !== 0) unexpected[`pgbench exit ${code}`] = 1
  if (tps === undefined) unexpected['no tps in pgbench output'] = 1
  if (failed > 0 || failedInLog > 0) unexpected['failed transactions'] = Math.max(failed, failedInLog)
  if (aborted > 0) unexpected['aborted clients'] = aborted
  return { requests: latencies.length, rps: tps ?? Number.NaN, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), unexpected }
}
