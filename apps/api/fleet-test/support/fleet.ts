import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiClient, type ApiClient } from './api-client.js'
import { freePort } from '@lendgate/adapters/testing'
import { startFleetProcess, tail, type FleetProcess } from './fleet-process.js'
import type { Operators } from './journeys.js'
import { startPartnerReceiver, type PartnerReceiver } from './partner-receiver.js'
import { createScratchDatabase, startPgBouncer, type PgBouncer, type ScratchDatabase } from './pgbouncer.js'

/**
 * What a run holds, registered as it is acquired: `teardown` releases all of it, newest first,
 * whatever state a failed start left it in.
 */
export type Resources = {
  /** The run's temporary folder: PgBouncer's files and every process's log. */
  readonly dir: string
  readonly onTeardown: (release: () => unknown) => void
  /** Log files to show when something fails, by name. */
  readonly logs: Map<string, string>
  /** The last lines of every log. */
  readonly logTails: (lines?: number) => string
  /** Releases everything; returns what could not be released. The folder is removed only with `removeDir`. */
  readonly teardown: (removeDir: boolean) => Promise<string[]>
}

export const acquireResources = (): Resources => {
  const dir = mkdtempSync(join(tmpdir(), 'lendgate-fleet-'))
  const releases: (() => unknown)[] = []
  const logs = new Map<string, string>()
  return {
    dir,
    onTeardown: (release) => releases.push(release),
    logs,
    logTails: (lines = 30) => [...logs].map(([name, file]) => `----- ${name} (${file})\n${tail(file, lines)}`).join('\n'),
    teardown: async (removeDir) => {
      const problems: string[] = []
      for (const release of releases.reverse()) {
        try {
          await release()
        } catch (error) {
          problems.push(String(error))
        }
      }
      if (removeDir) rmSync(dir, { recursive: true, force: true })
      return problems
    },
  }
}

/** The general rate limit of the APIs: high enough that no key of the journeys comes near it, low enough to reach on purpose. */
export const RATE_LIMIT = { requests: 2_000, windowSeconds: 60, syncMs: 200 } as const

/** Every other limit, far above what the test sends: being throttled there is another suite's subject. */
const UNLIMITED = '1000000000'

export type Fleet = {
  /** API A and API B. */
  readonly apis: readonly [ApiClient, ApiClient]
  readonly workers: readonly [FleetProcess, FleetProcess]
  readonly ops: Operators
  readonly receiver: PartnerReceiver
  readonly database: ScratchDatabase
  readonly pgbouncer: PgBouncer
}

/** `n` distinct free ports. */
const freePorts = async (n: number): Promise<number[]> => {
  const ports = new Set<number>()
  while (ports.size < n) ports.add(await freePort())
  return [...ports]
}

/**
 * What every process of a fleet is set with but its database: production, the run's secrets
 * (a new WEBHOOK_SECRET_KEY each call: call it once per fleet), the partner's receiver, quiet
 * logs, and the limits (`RATE_LIMIT`, everything else far above what the tests send).
 */
export const fleetSettings = (ops: Operators, dataDir: string): Record<string, string> => ({
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://api.lendgate.example',
  DATA_DIR: dataDir,
  PARTNER_MINT_SECRET: ops.mintSecret,
  INTERNAL_API_TOKEN: ops.internalToken,
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  VERIFICATION_DELIVERY_URL: ops.receiver.codesUrl,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  RATE_LIMIT_REQUESTS: String(RATE_LIMIT.requests),
  RATE_LIMIT_WINDOW_SECONDS: String(RATE_LIMIT.windowSeconds),
  RATE_LIMIT_SYNC_MS: String(RATE_LIMIT.syncMs),
  RATE_LIMIT_VERIFICATION_REQUESTS: UNLIMITED,
  RATE_LIMIT_MINT_REQUESTS: UNLIMITED,
  RATE_LIMIT_KEY_LOOKUPS: UNLIMITED,
  RATE_LIMIT_KEYLESS_REQUESTS: UNLIMITED,
  RATE_LIMIT_WEBHOOK_RETRIES: UNLIMITED,
})

/**
 * The fleet: a scratch database, PgBouncer (transaction mode) in front of it, the partner's
 * receiver, two API processes (`pnpm start`) and two workers (`pnpm worker`), all ready.
 * Requests go through PgBouncer (`DATABASE_URL`); LISTEN/NOTIFY and migrations go straight to
 * the server (`DATABASE_DIRECT_URL`). Jobs run in the workers only (`RUN_JOBS=false` on the APIs).
 */
export const startFleet = async (run: Resources): Promise<Fleet> => {
  const [bouncerPort, apiPortA, apiPortB, workerPortA, workerPortB] = (await freePorts(5)) as [number, number, number, number, number]
  const database = createScratchDatabase(`lendgate_fleet_${randomBytes(4).toString('hex')}`)
  run.onTeardown(database.drop)
  const pgbouncer = await startPgBouncer(join(run.dir, 'pgbouncer'), bouncerPort)
  run.logs.set('pgbouncer', pgbouncer.logFile)
  run.onTeardown(pgbouncer.stop)
  const receiver = await startPartnerReceiver()
  run.onTeardown(receiver.close)

  const ops: Operators = {
    mintSecret: `fleet-mint-${randomBytes(16).toString('hex')}`,
    internalToken: `fleet-internal-${randomBytes(16).toString('hex')}`,
    receiver,
  }
  const shared = {
    ...fleetSettings(ops, join(run.dir, 'data')),
    DATABASE_URL: pgbouncer.urlOf(database.name),
    DATABASE_DIRECT_URL: database.directUrl,
  }
  // The jobs run in the workers only.
  const apiEnv = { RUN_JOBS: 'false' }
  const api = (name: string, port: number) => ({ name, script: 'start' as const, port, env: { ...shared, ...apiEnv, PORT: String(port) } })
  const worker = (name: string, port: number) => ({ name, script: 'worker' as const, port, env: { ...shared, WORKER_PORT: String(port), SERVICING_JOB_AT: '00:00' } })
  const specs = [api('API A', apiPortA), api('API B', apiPortB), worker('worker 1', workerPortA), worker('worker 2', workerPortB)]
  const started = await Promise.allSettled(
    specs.map(async (spec) => {
      const logFile = join(run.dir, `${spec.name.replace(' ', '-').toLowerCase()}.log`)
      run.logs.set(spec.name, logFile)
      const process = await startFleetProcess({ ...spec, logFile })
      run.onTeardown(process.stop)
      return process
    }),
  )
  const failed = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []))
  if (failed.length > 0) throw new Error(`the fleet did not start:\n${failed.join('\n')}`)
  const [apiA, apiB, worker1, worker2] = started.map((s) => (s as PromiseFulfilledResult<FleetProcess>).value) as [FleetProcess, FleetProcess, FleetProcess, FleetProcess]
  return { apis: [apiClient(apiA), apiClient(apiB)], workers: [worker1, worker2], ops, receiver, database, pgbouncer }
}
