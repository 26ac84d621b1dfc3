import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import pg from 'pg'
import { openDatabase, type DatabaseKind, type OpenDatabase, type QueryLog } from '../postgres/database.js'
import { useEmbeddedServer } from '../postgres/embedded-server.js'
import { THROWAWAY_SETTINGS } from '../postgres/throwaway-data-dir.js'
import { migrateToLatest } from '../postgres/migrate.js'
import type { Kysely } from 'kysely'
import type { World } from '@lendgate/core'
import type { Database } from '../postgres/schema.js'
import { worldDb } from '../postgres/worlds.js'

/**
 * Databases for tests, on two servers: the embedded PostgreSQL server always, and the server at
 * `TEST_DATABASE_URL` when it is set. On each, a run migrates one template database, then copies
 * it: one copy shared by the run's suites (tests use fresh random ids, so they can share it), and
 * one for each suite that fills tables with data of its own (`scratchDatabase`). The run drops
 * them all at its end; a run that dies leaves databases named so that the next run, an hour on,
 * drops them.
 *
 * The embedded server for tests has a cluster of its own in the system's temporary directory (one
 * per user), with durability off: it holds nothing worth a sync. The run that starts it stops it
 * at its end, unless another run still uses it (`embedded-server.ts`).
 */

export type TestDatabase = { readonly name: string; readonly kind: DatabaseKind; readonly open: () => Promise<OpenDatabase> }

/** A migrated database that one test file has to itself, and how to drop it. */
export type ScratchDatabase = { readonly database: OpenDatabase; readonly drop: () => Promise<void> }

const TEST_DB_PREFIX = 'lendgate_test_'
/** Databases left by runs that died more than this long ago are dropped at the next start. */
const STALE_AFTER_SECONDS = 3600

/** Where the tests' embedded server keeps its cluster. */
const TEST_SERVER_DIR = join(tmpdir(), `lendgate-test-server-${process.getuid?.() ?? 'user'}`)

/** `run` on a connection of its own to `url`, closed afterwards whatever `run` did. */
export const onDatabase = async <A>(url: string, run: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** `baseUrl` with its database replaced by `name`. */
const urlOf = (baseUrl: string, name: string): string => {
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** A server the run uses: where to create databases, this run's migrated template there, and how to leave it. */
type TestServer = { readonly baseUrl: string; readonly template: string; readonly leave: () => Promise<void> }

/** A name of this run's, under the prefix the next runs' clean-up recognises. */
const runName = (): string => `${TEST_DB_PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`

/** Drops what dead runs left on the server at `baseUrl`, then makes this run's template there. */
const prepareServer = async (baseUrl: string, leave: () => Promise<void>): Promise<TestServer> => {
  const now = Math.floor(Date.now() / 1000)
  const template = runName()
  await onDatabase(baseUrl, async (client) => {
    const stale = await client.query<{ datname: string }>(`select datname from pg_database where datname like '${TEST_DB_PREFIX}%'`)
    for (const { datname } of stale.rows) {
      const createdAt = Number(datname.slice(TEST_DB_PREFIX.length).split('_')[0])
      if (Number.isFinite(createdAt) && now - createdAt > STALE_AFTER_SECONDS) {
        await client.query(`drop database if exists "${datname}" with (force)`)
      }
    }
    await client.query(`create database "${template}"`)
  })
  // Migrated on a connection closed before any copy: a template in use cannot be copied.
  const database = await openDatabase({ url: urlOf(baseUrl, template), dataDir: '', poolSize: 1 })
  try {
    await migrateToLatest(database.db)
  } finally {
    await database.close()
  }
  return {
    baseUrl,
    template,
    leave: async () => {
      await onDatabase(baseUrl, (client) => client.query(`drop database if exists "${template}" with (force)`))
      await leave()
    },
  }
}

let servers: Partial<Record<DatabaseKind, Promise<TestServer>>> = {}
let shared: Partial<Record<DatabaseKind, Promise<ScratchDatabase>>> = {}

const serverOf = (kind: DatabaseKind): Promise<TestServer> => {
  const url = realDatabaseUrl()
  if (kind === 'postgres' && url === undefined) throw new Error('a server database needs TEST_DATABASE_URL')
  return (servers[kind] ??=
    kind === 'postgres'
      ? prepareServer(url!, async () => undefined)
      : useEmbeddedServer(TEST_SERVER_DIR, { settings: THROWAWAY_SETTINGS }).then((server) => prepareServer(server.url('postgres'), server.release)))
}

/** A copy of the run's migrated template on `server`; `drop` closes and drops it. */
const copyOfTemplate = async (kind: DatabaseKind, log?: QueryLog): Promise<ScratchDatabase> => {
  const server = await serverOf(kind)
  const name = runName()
  await onDatabase(server.baseUrl, (client) => client.query(`create database "${name}" template "${server.template}"`))
  // Reached by URL on both servers; its kind says which server it is on.
  const database = { ...(await openDatabase({ url: urlOf(server.baseUrl, name), dataDir: '', ...(log === undefined ? {} : { log }) })), kind }
  return {
    database,
    drop: async () => {
      await database.close()
      await onDatabase(server.baseUrl, (client) => client.query(`drop database if exists "${name}" with (force)`))
    },
  }
}

/**
 * A migrated database of `kind` for one test file alone (one that fills tables with data of its
 * own, which the shared database must not carry for the other suites). `log` is told of every
 * statement it runs.
 */
export const scratchDatabase = (kind: DatabaseKind, log?: QueryLog): Promise<ScratchDatabase> => copyOfTemplate(kind, log)

/**
 * A database of `kind` with nothing in it, not even the migrations (what a restore goes into),
 * reached by `url`; `drop` closes and drops it.
 */
export const emptyDatabase = async (kind: DatabaseKind): Promise<ScratchDatabase & { readonly url: string }> => {
  const server = await serverOf(kind)
  const name = runName()
  await onDatabase(server.baseUrl, (client) => client.query(`create database "${name}"`))
  const url = urlOf(server.baseUrl, name)
  const database = { ...(await openDatabase({ url, dataDir: '' })), kind }
  return {
    url,
    database,
    drop: async () => {
      await database.close()
      await onDatabase(server.baseUrl, (client) => client.query(`drop database if exists "${name}" with (force)`))
    },
  }
}

/** The real server's URL when configured for tests. */
export const realDatabaseUrl = (): string | undefined => {
  const url = process.env['TEST_DATABASE_URL']
  return url === undefined || url === '' ? undefined : url
}

const openShared = async (kind: DatabaseKind): Promise<OpenDatabase> => (await (shared[kind] ??= copyOfTemplate(kind))).database

/** Every database the tests should run against: the embedded server always, the real server when configured. */
export const testDatabases = (): readonly TestDatabase[] => [
  { name: 'embedded PostgreSQL', kind: 'embedded', open: () => openShared('embedded') },
  ...(realDatabaseUrl() === undefined ? [] : [{ name: 'PostgreSQL server', kind: 'postgres' as const, open: () => openShared('postgres') }]),
]

/** A test database seen from one world (decision 128): `db` reaches the shared tables, `world` the world's own. */
export type WorldDatabase = {
  readonly name: string
  /** `world` is `db` bound to the world named `worldName` (`worldDb`). */
  readonly open: () => Promise<{ readonly db: Kysely<Database>; readonly world: Kysely<Database>; readonly worldName: World }>
}

/**
 * Every test database in the live world, and the last of them (the server, when
 * `TEST_DATABASE_URL` is set) in the test world too: what the repositories' contract suites run on.
 */
export const testWorlds = (): readonly WorldDatabase[] => {
  const databases = testDatabases()
  const inWorld = (database: TestDatabase, world: World): WorldDatabase => ({
    name: `${database.name}, ${world} world`,
    open: async () => {
      const { db } = await database.open()
      return { db, world: worldDb(db, world), worldName: world }
    },
  })
  return [...databases.map((database) => inWorld(database, 'live')), inWorld(databases.at(-1)!, 'test')]
}

/** Drops the run's shared databases and templates, and leaves the servers; called once after the whole run. */
export const closeTestDatabases = async (): Promise<void> => {
  const [sharedNow, serversNow] = [shared, servers]
  shared = {}
  servers = {}
  for (const copy of Object.values(sharedNow)) await (await copy).drop()
  for (const server of Object.values(serversNow)) await (await server).leave()
}

/**
 * The pid its `postmaster.pid` names in `cluster` (a PostgreSQL data directory); undefined when
 * there is no file, when it is not written yet (read empty, it would give pid 0: the reader's
 * process group), or when it goes between a check and the read (a server removes it as it stops,
 * a restart clears a killed server's file).
 */
export const postmasterPidOf = (cluster: string): number | undefined => {
  let text: string
  try {
    text = readFileSync(join(cluster, 'postmaster.pid'), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const pid = Number(text.split('\n')[0])
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

/**
 * Stops the embedded server of `dataDir` when one runs there: one left by a process killed with
 * SIGKILL, which would go on running on deleted files once the directory is removed. Joining it
 * and leaving stops it, as this process is then its last user.
 */
export const stopEmbeddedServerOf = async (dataDir: string): Promise<void> => {
  if (!existsSync(join(dataDir, 'pgdata', 'postmaster.pid'))) return
  await (await useEmbeddedServer(dataDir)).release()
}

/**
 * Ends every connection to the `lendgate` database of the embedded server of `dataDir` but its
 * own (`pg_terminate_backend`), as a failover or an operator would; resolves how many it ended.
 */
export const terminateEmbeddedConnections = async (dataDir: string): Promise<number> => {
  const admin = new pg.Client({ connectionString: `postgresql://postgres@localhost:5432/postgres?host=${encodeURIComponent(join(resolve(dataDir), 'pgdata'))}` })
  admin.on('error', () => undefined)
  await admin.connect()
  try {
    const { rows } = await admin.query<{ ended: boolean }>(`select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = 'lendgate' and pid <> pg_backend_pid()`)
    return rows.filter((row) => row.ended).length
  } finally {
    await admin.end()
  }
}
