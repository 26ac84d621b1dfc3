import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { openSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { cpus } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { freePort } from '@lendgate/adapters/testing'
import type { Secrets } from './seed.js'

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

const hasTaskset = spawnSync('taskset', ['--version']).status === 0

/**
 * CPU pinning: on a machine with two or more cores the servers run on the last core and the
 * load generator (this process, with autocannon) on the others, so they do not take turns on
 * one core; so does PostgreSQL when it can be pinned (`pinPostgres`). Without `taskset`, nothing
 * is pinned.
 */
export const pinning = ((): { readonly server: string; readonly load: string } | undefined => {
  const n = cpus().length
  if (!hasTaskset || n < 2) return undefined
  return { server: String(n - 1), load: n === 2 ? '0' : `0-${n - 2}` }
})()

/** Pins this process (every thread) to the load generator's cores. */
export const pinLoadGenerator = (): void => {
  if (pinning !== undefined) spawnSync('taskset', ['-a', '-p', '-c', pinning.load, String(process.pid)], { stdio: 'ignore' })
}

const procField = (pid: number, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** The CPU list a process may run on (`taskset -c -p`), or undefined when it cannot be read. */
const affinityOf = (pid: number): string | undefined => {
  const out = spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' })
  return out.status === 0 ? out.stdout.trim().split(': ').at(-1) : undefined
}

const setAffinity = (pid: number, cpuList: string): boolean => spawnSync('taskset', ['-c', '-p', cpuList, String(pid)], { stdio: 'ignore' }).status === 0

/**
 * Moves PostgreSQL to the load generator's cores, so that no backend takes turns with the
 * server being measured on its core (measured: both the Koa + pg baseline and the API served
 * about half as much again with PostgreSQL pinned; their ratio did not move). Possible only when
 * the server runs on this machine and this process may pin it (root, or its owner): `backendPid`
 * (`pg_backend_pid()`) must be a local `postgres` process whose parent, the postmaster, is one
 * too. The postmaster and its current processes are pinned; backends forked later inherit it.
 * Returns what puts every one of them back as it was (also run on SIGINT and SIGTERM, before
 * exiting), or undefined when nothing was pinned.
 */
export const pinPostgres = (backendPid: number): (() => void) | undefined => {
  if (pinning === undefined || procField(backendPid, 'comm') !== 'postgres') return undefined
  const postmaster = Number(procField(backendPid, 'stat')?.split(') ')[1]?.split(' ')[1])
  if (!Number.isInteger(postmaster) || procField(postmaster, 'comm') !== 'postgres') return undefined
  const children = (procField(postmaster, `task/${postmaster}/children`) ?? '').split(/\s+/).filter((pid) => pid !== '').map(Number)
  const before = [postmaster, ...children].flatMap((pid) => {
    const cpuList = affinityOf(pid)
    return cpuList === undefined ? [] : [{ pid, cpuList }]
  })
  const restore = (): void => {
    for (const { pid, cpuList } of before) setAffinity(pid, cpuList)
  }
  if (!before.every(({ pid }) => setAffinity(pid, pinning.load))) {
    restore()
    return undefined
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      restore()
      process.exit(130)
    })
  }
  return restore
}

/**
 * Pins the PostgreSQL backends that serve `database` to the load generator's cores as they
 * appear (`pg_stat_activity`, polled every 100 ms until stopped), and nothing else: what
 * `pinPostgres` does for a server a run has to itself, for a server shared with other work (the
 * postmaster and every other database's backends are left as they are). Only backends on this
 * machine are pinned: a pid whose command line (`postgres: … <database> …`) does not name the
 * database is left alone. Backends end with their connections, so nothing is put back. `stop`
 * resolves with how many backends were pinned.
 */
export const pinDatabaseBackends = (pool: pg.Pool, database: string): { readonly stop: () => Promise<number> } => {
  const pinned = new Set<number>()
  const poll = everyTenthOfASecond(async () => {
    if (pinning === undefined) return
    const { rows } = await pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database])
    for (const { pid } of rows) {
      if (pinned.has(pid) || procField(pid, 'comm') !== 'postgres' || !(procField(pid, 'cmdline') ?? '').includes(` ${database} `)) continue
      if (setAffinity(pid, pinning.load)) pinned.add(pid)
    }
  })
  return {
    stop: async () => {
      await poll.stop()
      return pinned.size
    },
  }
}

/**
 * Runs `step` every 100 ms until `stop`, which waits for the step in progress and rejects with a
 * step's failure (the loop ends at the first one; it is never left unhandled in between).
 */
export const everyTenthOfASecond = (step: () => Promise<void>): { readonly stop: () => Promise<void> } => {
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      await step()
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  loop.catch(() => undefined)
  return {
    stop: async () => {
      stopped = true
      await loop
    },
  }
}


const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

/**
 * Whether a server that accepts connections is ready: anything but 503 on `/health/ready` (the API
 * answers 503 while it migrates; the baselines have no such route and answer 404).
 */
const ready = async (port: number): Promise<boolean> => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health/ready`)).status !== 503
  } catch {
    return false
  }
}

/** `USER_HZ`, the unit of /proc CPU times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100

/** The file a `--profile` run leaves in its log folder: which profile (by pid) is which server's, and its log. */
export const PROFILED_FILE = 'profiled.json'
export type Profiled = { readonly name: string; readonly pid: number; readonly log: string }

export type Child = {
  readonly name: string
  readonly url: string
  readonly pid: number
  /** Resident set size of the process now, in bytes (Linux; 0 elsewhere). */
  readonly rss: () => number
  /** CPU time the process has used so far, user and system, in seconds (Linux; NaN elsewhere). */
  readonly cpuSeconds: () => number
  /**
   * Time the process's main thread has spent so far running on a CPU and waiting for one in the
   * run queue, in seconds (`/proc/<pid>/schedstat`; NaN elsewhere): a long wait means the
   * process was held back by others on its cores, not by its own work.
   */
  readonly schedule: () => { readonly running: number; readonly waiting: number }
  /** Whether the process has exited (on its own, or stopped). */
  readonly exited: () => boolean
  readonly stop: () => Promise<void>
}

/**
 * Starts a compiled entry point (`tsc -b` output; relative to this checkout, or absolute, as production runs it: no TypeScript loader
 * in the process, which alone held about 75 MB) in its own Node process, pinned to the server
 * core, and waits until its port accepts and it is ready (`ready`). Its output goes to `logFile`. Every process gets the
 * allocator setting the API is deployed with (docs/configuration.md, "Memory"). The port is
 * given in `PORT`, or in `portVariable` for a process that listens on another setting (the
 * worker's `WORKER_PORT`). With `pinned: false` the process runs on any core.
 */
export const startChild = async (
  name: string,
  entry: string,
  env: Record<string, string>,
  logFile: string,
  nodeFlags: readonly string[] = [],
  { portVariable = 'PORT', pinned = true }: { readonly portVariable?: string; readonly pinned?: boolean } = {},
): Promise<Child> => {
  const port = await freePort()
  const node = [process.execPath, ...nodeFlags, resolve(REPO_ROOT, entry)]
  const command = pinning === undefined || !pinned ? node : ['taskset', '-c', pinning.server, ...node]
  const out = openSync(logFile, 'a')
  const child: ChildProcess = spawn(command[0] as string, command.slice(1), {
    cwd: REPO_ROOT,
    env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072', ...env, [portVariable]: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', out, out],
  })
  let exited = false
  const gone = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())))
  const deadline = Date.now() + 60_000
  while (!(await accepts(port)) || !(await ready(port))) {
    if (exited) throw new Error(`${name} exited before it was ready; see ${logFile}`)
    if (Date.now() > deadline) throw new Error(`${name} was not ready within 60 s; see ${logFile}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const pid = child.pid as number
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid,
    rss: () => {
      try {
        const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
        return line === null ? 0 : Number(line[1]) * 1024
      } catch {
        return 0
      }
    },
    cpuSeconds: () => {
      try {
        // Fields 14 and 15 (utime, stime), in clock ticks of 1/100 s; counted after the `)` that
        // ends the command name, which may hold spaces.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
        return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
      } catch {
        return Number.NaN
      }
    },
    schedule: () => {
      const [running, waiting] = (procField(pid, 'schedstat') ?? '').split(' ').map((ns) => Number(ns) / 1e9)
      return { running: running ?? Number.NaN, waiting: waiting ?? Number.NaN }
    },
    exited: () => exited,
    stop: async () => {
      if (exited) return
      child.kill('SIGTERM')
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await gone
      clearTimeout(killed)
    },
  }
}

/**
 * The API's environment in a benchmark: production mode on `databaseUrl` (undefined: the embedded
 * default under `DATA_DIR`), the run's secrets, webhooks and verification codes allowed to the
 * local receiver, and rate limits too high to throttle the load (one key makes every request;
 * their cost is measured, not their refusals).
 */
export const apiEnvironment = (databaseUrl: string | undefined, secrets: Secrets, receiverUrl: string): Record<string, string> => ({
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://api.lendgate.example',
  ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  PARTNER_MINT_SECRET: secrets.mint,
  INTERNAL_API_TOKEN: secrets.internal,
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  VERIFICATION_DELIVERY_URL: `${receiverUrl}/codes`,
  LOG_LEVEL: 'info',
  RATE_LIMIT_REQUESTS: '1000000000',
  RATE_LIMIT_VERIFICATION_REQUESTS: '1000000000',
  RATE_LIMIT_MINT_REQUESTS: '1000000000',
  RATE_LIMIT_KEY_LOOKUPS: '1000000000',
  RATE_LIMIT_KEYLESS_REQUESTS: '1000000000',
  RATE_LIMIT_WEBHOOK_RETRIES: '1000000000',
})

/** What a run holds until it ends. */
export type RunResources = {
  readonly children: readonly Child[]
  readonly receiver: { readonly close: () => Promise<void> }
  /** The connection to the benchmark's server that created the run's database. */
  readonly admin: pg.Pool
  readonly databaseName: string
  /** What puts PostgreSQL's CPU pinning back (`pinPostgres`), when it was pinned. */
  readonly unpinPostgres?: (() => void) | undefined
}

/** Ends a run, whatever became of it: stops its processes and receiver, drops its database, unpins PostgreSQL. */
export const endRun = async (run: RunResources): Promise<void> => {
  await Promise.all(run.children.map((c) => c.stop()))
  await run.receiver.close()
  await run.admin.query(`drop database if exists ${run.databaseName} with (force)`)
  await run.admin.end()
  run.unpinPostgres?.()
}

export { freePort }
