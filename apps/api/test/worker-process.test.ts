import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { realDatabaseUrl } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { API_DIR, FROM_SOURCE } from './support/api-process.js'
import { INTERNAL_TOKEN } from './support/test-server.js'

/**
 * `pnpm worker` as its own process (issue 38): it refuses the embedded database, and on a
 * PostgreSQL server (`TEST_DATABASE_URL`, a database of its own) it migrates, runs the day's
 * servicing job once, answers its probes and metrics on `WORKER_PORT`, and on SIGTERM stops
 * with status 0 and no lease held.
 */

type Worker = { readonly output: () => string; readonly url: Promise<string>; readonly exited: Promise<number | null>; readonly stop: () => void }

const startWorker = (env: Record<string, string>): Worker => {
  const child = spawn(process.execPath, [...FROM_SOURCE, 'src/worker-main.ts'], {
    cwd: API_DIR,
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'info', WORKER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /"url":"(http:\/\/[^"]+)","msg":"Lendgate worker running"/.exec(output)
      if (match !== null) resolve(match[1]!)
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.on('exit', (code) => reject(new Error(`exited with ${code} before it was ready: ${output}`)))
  })
  url.catch(() => undefined)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { output: () => output, url, exited, stop: () => child.kill('SIGTERM') }
}

const within = <A>(ms: number, promise: Promise<A>): Promise<A> =>
  Promise.race([promise, new Promise<A>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))])

describe('the worker process (worker-main.ts)', function () {
  this.timeout(60_000)

  it('refuses the embedded database with exit status 1, naming DATABASE_URL', async () => {
    const worker = startWorker({ DATABASE_URL: 'pglite://memory', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') })
    expect(await within(30_000, worker.exited)).to.equal(1)
    expect(worker.output()).to.contain('pnpm worker needs a PostgreSQL server')
  })

  const serverUrl = realDatabaseUrl()
  if (serverUrl === undefined) return
  const server = new URL(serverUrl)
  const serverArgs = ['-h', server.hostname, '-p', server.port || '5432', '-U', decodeURIComponent(server.username) || 'postgres']

  it('migrates, runs the day\'s servicing job once, serves probes and metrics, and stops on SIGTERM with no lease held', async () => {
    const name = `lendgate_worker_${randomBytes(4).toString('hex')}`
    execFileSync('createdb', [...serverArgs, name], { stdio: 'pipe' })
    const url = new URL(serverUrl)
    url.pathname = `/${name}`
    const psql = (query: string) => execFileSync('psql', [...serverArgs, '-d', name, '-Atc', query], { encoding: 'utf8' }).trim()
    const worker = startWorker({
      DATABASE_URL: url.toString(),
      INTERNAL_API_TOKEN: INTERNAL_TOKEN,
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      SERVICING_JOB_AT: '00:00',
    })
    try {
      const base = await within(30_000, worker.url)
      expect(await (await fetch(`${base}/health/ready`)).json()).to.deep.equal({ status: 'ready', database: 'up' })
      const today = new Date().toISOString().slice(0, 10)
      // The day's run is due from 00:00 UTC: the worker takes it at start.
      for (let i = 0; i < 100 && psql('select completed_run_key from job_leases') !== today; i++) await new Promise((resolve) => setTimeout(resolve, 100))
      expect(psql("select completed_run_key, holder is null from job_leases where job = 'servicing'")).to.equal(`${today}|t`)
      expect(psql("select count(*) from audit_events where action = 'interest_accrual.completed'")).to.equal('1')
      const metrics = await (await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${INTERNAL_TOKEN}` } })).text()
      expect(metrics).to.contain('lendgate_job_runs_total{job="servicing",outcome="completed"} 1')
      expect(metrics).to.contain('lendgate_job_lag_seconds{job="servicing"} 0')
      worker.stop()
      expect(await within(10_000, worker.exited)).to.equal(0)
      expect(worker.output()).to.contain('"msg":"shutting down"')
      expect(psql('select count(*) from job_leases where holder is not null')).to.equal('0')
    } finally {
      worker.stop()
      await within(10_000, worker.exited).catch(() => undefined)
      execFileSync('dropdb', [...serverArgs, '--if-exists', '--force', name], { stdio: 'pipe' })
    }
  })
})
