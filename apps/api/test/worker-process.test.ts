import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { realDatabaseUrl } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { startFromSource, within, type SourceProcess } from './support/api-process.js'
import { INTERNAL_TOKEN } from './support/test-server.js'

/**
 * `pnpm worker` as its own process (issue 38): on a PostgreSQL server (`TEST_DATABASE_URL`, a
 * database of its own; beside an API on the embedded server: embedded-server-process.test.ts) it migrates, runs the day's
 * servicing job once, answers its probes and metrics on `WORKER_PORT`, and on SIGTERM stops
 * with status 0 and no lease held.
 */

/** Starts `src/worker-main.ts` as its own process, the way `pnpm worker` does, on any free port. */
const startWorker = (env: Record<string, string>): SourceProcess => startFromSource('src/worker-main.ts', { WORKER_PORT: '0', ...env })

describe('the worker process (worker-main.ts)', function () {
  this.timeout(60_000)

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
      worker.child.kill('SIGTERM')
      expect(await within(10_000, worker.exited)).to.equal(0)
      expect(worker.stdout()).to.contain('"msg":"shutting down"')
      expect(psql('select count(*) from job_leases where holder is not null')).to.equal('0')
    } finally {
      worker.child.kill('SIGTERM')
      await within(10_000, worker.exited).catch(() => undefined)
      execFileSync('dropdb', [...serverArgs, '--if-exists', '--force', name], { stdio: 'pipe' })
    }
  })
})
