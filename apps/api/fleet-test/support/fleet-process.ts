import { spawn } from 'node:child_process'
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sleep } from './waiting.js'

/** The repository root: where `pnpm start` and `pnpm worker` run from. */
const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url))

const READY_TIMEOUT_MS = 90_000
const STOP_TIMEOUT_MS = 15_000

/**
 * The processes of a process group that have not exited (zombies excluded: a killed process
 * whose parent is gone may wait a while for init to reap it, holding nothing). Linux `/proc`.
 */
const livingMembers = (groupId: number): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        // After the `)` that ends the command name (which may hold spaces): state, ppid, pgrp.
        const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return Number(group) === groupId && state !== 'Z' ? [Number(pid)] : []
      } catch {
        return []
      }
    })

/**
 * The local ports of the group's TCP connections to `remotePort` on 127.0.0.1 (Linux `/proc`).
 * A local port alone names no process: Linux gives one ephemeral port to several connections
 * when their destinations differ, so another process's connection to the receiver may use a port
 * this group holds for PgBouncer. The whole connection (both ends) is unique.
 */
const tcpPortsTo = (groupId: number, remotePort: number): Set<number> => {
  const inodes = new Set(
    livingMembers(groupId).flatMap((pid) => {
      try {
        return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? [])
      } catch {
        return []
      }
    }),
  )
  // /proc/net/tcp: "sl local_address rem_address st … uid timeout inode …", addresses as hex "ADDR:PORT" (127.0.0.1 is 0100007F).
  const remote = `0100007F:${remotePort.toString(16).toUpperCase().padStart(4, '0')}`
  const rows = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1)
  return new Set(
    rows.flatMap((row) => {
      const fields = row.trim().split(/\s+/)
      return fields[2] === remote && inodes.has(fields[9] ?? '') ? [parseInt((fields[1] ?? '').split(':')[1] ?? '', 16)] : []
    }),
  )
}

/** Signals every process of a group (a spawned child started `detached` leads its own group). */
export const signalGroup = (groupId: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-groupId, signal)
  } catch {
    // The group is already gone.
  }
}

/** Waits until no process of the group is alive; false if some still are after `ms`. */
export const groupGone = async (groupId: number, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (livingMembers(groupId).length > 0) {
    if (Date.now() > deadline) return false
    await sleep(50)
  }
  return true
}

/** Starts a command in a process group of its own, its standard output and error appended to `logFile`. */
export const spawnGroup = (command: string, args: readonly string[], env: Readonly<Record<string, string>>, logFile: string): number => {
  const log = openSync(logFile, 'a')
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', log, log] })
  closeSync(log)
  child.on('error', () => undefined)
  if (child.pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`)
  return child.pid
}

/** The last `lines` lines of a file, or a note that it cannot be read. */
export const tail = (file: string, lines = 40): string => {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch (error) {
    return `(cannot read ${file}: ${String(error)})`
  }
}

/**
 * How to run pnpm: the pnpm running this suite (`npm_execpath` under `pnpm test:fleet`, also when
 * pnpm itself came from `npx`), else the one on PATH.
 */
const pnpm = (script: string): [string, string[]] => {
  const execPath = process.env['npm_execpath']
  return execPath !== undefined && /pnpm\.c?js$/.test(execPath) ? [process.execPath, [execPath, script]] : ['pnpm', [script]]
}

export type FleetProcessSpec = {
  readonly name: string
  /** The root package.json script that starts it: `start` (an API) or `worker`. */
  readonly script: 'start' | 'worker'
  readonly env: Readonly<Record<string, string>>
  /** Where it answers `GET /health/ready` (and `/metrics`): `PORT` of an API, `WORKER_PORT` of a worker. */
  readonly port: number
  readonly logFile: string
}

export type FleetProcess = {
  readonly name: string
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** 1 once started, one more on each restart: counters served by the process start again at each. */
  readonly incarnation: () => number
  /** Whether a process of its group (pnpm, tsx, node) is alive: the node process ends them all when it exits. */
  readonly alive: () => boolean
  /** SIGKILL to the whole group (pnpm, tsx and node): no shutdown code runs. Resolves once all are dead. */
  readonly kill9: () => Promise<void>
  /** Starts it again with the same environment and port; resolves once it is ready. */
  readonly restart: () => Promise<void>
  /** SIGTERM to the group, then waits for every process to exit (SIGKILL after a while). */
  readonly stop: () => Promise<void>
  /** The local ports of its open TCP connections to 127.0.0.1:`remotePort`. */
  readonly tcpPortsTo: (remotePort: number) => ReadonlySet<number>
}

/**
 * Whether `url` is ready: `GET /health/ready` answers 200. Every process of the fleet, workers
 * included, answers it on its own port.
 */
const isReady = async (url: string): Promise<boolean> => {
  try {
    const reply = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) })
    await reply.arrayBuffer()
    return reply.status === 200
  } catch {
    return false
  }
}

/**
 * Starts one process of the fleet with the project's own start command (`pnpm start` or
 * `pnpm worker`) from the repository root, and resolves once it is ready.
 */
export const startFleetProcess = async (spec: FleetProcessSpec): Promise<FleetProcess> => {
  const url = `http://127.0.0.1:${spec.port}`
  let groupId = 0
  let incarnation = 0

  const launch = async (): Promise<void> => {
    const [command, args] = pnpm(spec.script)
    groupId = spawnGroup(command, args, spec.env, spec.logFile)
    incarnation += 1
    const deadline = Date.now() + READY_TIMEOUT_MS
    while (!(await isReady(url))) {
      if (livingMembers(groupId).length === 0) throw new Error(`${spec.name} exited before it was ready:\n${tail(spec.logFile)}`)
      if (Date.now() > deadline) {
        signalGroup(groupId, 'SIGKILL')
        throw new Error(`${spec.name} was not ready within ${READY_TIMEOUT_MS} ms:\n${tail(spec.logFile)}`)
      }
      await sleep(100)
    }
  }

  const kill9 = async (): Promise<void> => {
    signalGroup(groupId, 'SIGKILL')
    if (!(await groupGone(groupId, STOP_TIMEOUT_MS))) throw new Error(`${spec.name} survived SIGKILL`)
  }

  await launch()
  return {
    name: spec.name,
    url,
    incarnation: () => incarnation,
    alive: () => livingMembers(groupId).length > 0,
    kill9,
    restart: launch,
    stop: async () => {
      signalGroup(groupId, 'SIGTERM')
      if (!(await groupGone(groupId, STOP_TIMEOUT_MS))) await kill9()
    },
    tcpPortsTo: (remotePort) => tcpPortsTo(groupId, remotePort),
  }
}
