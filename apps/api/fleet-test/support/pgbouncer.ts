import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { groupGone, signalGroup, spawnGroup, tail } from './fleet-process.js'
import { sleep } from './waiting.js'

/** The local PostgreSQL server (trust authentication) the fleet's databases live on. */
const POSTGRES = { host: '127.0.0.1', port: 5432, user: 'postgres' } as const

const PGBOUNCER = process.env['PGBOUNCER_PATH'] ?? '/usr/sbin/pgbouncer'

const postgresUrl = (port: number, database: string): string => `postgres://${POSTGRES.user}@${POSTGRES.host}:${port}/${database}`

/** A database of the run's own on the local server, created with `createdb` and dropped with `dropdb --force`. */
export type ScratchDatabase = {
  readonly name: string
  /** Straight to the server, bypassing PgBouncer. */
  readonly directUrl: string
  /**
   * `pg_terminate_backend` of every connection to the database on the server (PgBouncer's, the
   * LISTEN clients', the workers'), as a failover or an operator does; returns how many ended.
   * It runs from the `postgres` database, so its own connection is not among them.
   */
  readonly terminateBackends: () => number
  readonly drop: () => void
}

const serverArgs = ['-h', POSTGRES.host, '-p', String(POSTGRES.port), '-U', POSTGRES.user]

export const createScratchDatabase = (name: string): ScratchDatabase => {
  execFileSync('createdb', [...serverArgs, name], { stdio: 'pipe' })
  return {
    name,
    directUrl: postgresUrl(POSTGRES.port, name),
    terminateBackends: () => {
      const sql = `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`
      return Number(execFileSync('psql', [...serverArgs, '-d', 'postgres', '-Atqc', sql], { encoding: 'utf8' }).trim())
    },
    drop: () => execFileSync('dropdb', [...serverArgs, '--if-exists', '--force', name], { stdio: 'pipe' }),
  }
}

export type PgBouncer = {
  readonly port: number
  readonly logFile: string
  /** The URL of `database` through the pooler. */
  readonly urlOf: (database: string) => string
  readonly stop: () => Promise<void>
  /** Stops it (a safe shutdown, as `stop`) and starts it again on the same port; resolves once it listens. */
  readonly restart: () => Promise<void>
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

/** The `postgres` system user's ids, when this process runs as root (PgBouncer refuses to run as root). */
const postgresUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string): number => Number(execFileSync('id', [flag, POSTGRES.user], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

/**
 * Starts PgBouncer in transaction mode on `port`, in front of the local server, with its
 * configuration, pid file and log in `dir`. As root it runs as the `postgres` system user, which
 * then owns `dir` (and may traverse, not list, the folder above it).
 */
export const startPgBouncer = async (dir: string, port: number): Promise<PgBouncer> => {
  mkdirSync(dir, { recursive: true })
  const ini = join(dir, 'pgbouncer.ini')
  const logFile = join(dir, 'pgbouncer.log')
  writeFileSync(join(dir, 'userlist.txt'), `"${POSTGRES.user}" ""\n`)
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${POSTGRES.host} port=${POSTGRES.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'pool_mode = transaction',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'max_client_conn = 500',
      'default_pool_size = 20',
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      `logfile = ${logFile}`,
      '',
    ].join('\n'),
  )
  const user = postgresUser()
  if (user !== undefined) {
    for (const file of [dir, ini, join(dir, 'userlist.txt')]) chownSync(file, user.uid, user.gid)
    // The postgres user must get through the folder that holds `dir` (a temporary folder is 0700).
    chmodSync(dirname(dir), 0o711)
  }
  const launch = async (): Promise<number> => {
    const groupId =
      user === undefined
        ? spawnGroup(PGBOUNCER, [ini], {}, join(dir, 'pgbouncer.out'))
        : // setpriv execs PgBouncer itself: no parent left behind (su would hold a stop for two seconds after PgBouncer has gone).
          spawnGroup('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', PGBOUNCER, ini], {}, join(dir, 'pgbouncer.out'))
    const deadline = Date.now() + 10_000
    while (!(await accepts(port))) {
      if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port}:\n${tail(join(dir, 'pgbouncer.out'))}\n${tail(logFile)}`)
      await sleep(50)
    }
    return groupId
  }
  let groupId = await launch()
  const stop = async (): Promise<void> => {
    // SIGINT: PgBouncer's safe shutdown; SIGKILL if it lingers.
    signalGroup(groupId, 'SIGINT')
    if (!(await groupGone(groupId, 5_000))) {
      signalGroup(groupId, 'SIGKILL')
      await groupGone(groupId, 5_000)
    }
  }
  return {
    port,
    logFile,
    urlOf: (database) => postgresUrl(port, database),
    stop,
    restart: async () => {
      await stop()
      groupId = await launch()
    },
  }
}
