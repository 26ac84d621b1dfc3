import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { MEMORY_URL, openDatabase, type DatabaseKind, type OpenDatabase, type QueryLog } from '../postgres/database.js'
import { migrateToLatest } from '../postgres/migrate.js'

/**
 * Databases for tests. The embedded one is a single in-memory PGlite instance shared by the
 * whole run (starting one costs seconds and hundreds of MB). With `TEST_DATABASE_URL` set,
 * a database of its own is created on that server for this run and dropped at the end, so a
 * run never depends on what an earlier one left behind. Tests use fresh random ids, so they can
 * share a database.
 */

export type TestDatabase = { readonly name: string; readonly kind: DatabaseKind; readonly open: () => Promise<OpenDatabase> }

const TEST_DB_PREFIX = 'lendgate_test_'
/** Databases left by runs that died more than this long ago are dropped at the next start. */
const STALE_AFTER_SECONDS = 3600

let embedded: Promise<OpenDatabase> | undefined
let real: Promise<ScratchDatabase> | undefined

const openEmbedded = (): Promise<OpenDatabase> =>
  (embedded ??= (async () => {
    const database = await openDatabase({ url: MEMORY_URL, dataDir: '' })
    await migrateToLatest(database.db)
    return database
  })())

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

/** A database of its own on the server at `baseUrl`, migrated; dropped by `drop`. Named so that a run that dies is cleaned up by the next. */
const createReal = async (baseUrl: string, log?: QueryLog): Promise<ScratchDatabase> => {
  const now = Math.floor(Date.now() / 1000)
  const name = `${TEST_DB_PREFIX}${now}_${randomBytes(4).toString('hex')}`
  await onDatabase(baseUrl, async (client) => {
    const stale = await client.query<{ datname: string }>(`select datname from pg_database where datname like '${TEST_DB_PREFIX}%'`)
    for (const { datname } of stale.rows) {
      const createdAt = Number(datname.slice(TEST_DB_PREFIX.length).split('_')[0])
      if (Number.isFinite(createdAt) && now - createdAt > STALE_AFTER_SECONDS) {
        await client.query(`drop database if exists "${datname}" with (force)`)
      }
    }
    await client.query(`create database "${name}"`)
  })
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const database = await openDatabase({ url: url.toString(), dataDir: '', ...(log === undefined ? {} : { log }) })
  await migrateToLatest(database.db)
  return {
    database,
    drop: async () => {
      await database.close()
      await onDatabase(baseUrl, (client) => client.query(`drop database if exists "${name}" with (force)`))
    },
  }
}

const openReal = (baseUrl: string) => (real ??= createReal(baseUrl))

/** A migrated database that one test file has to itself, and how to drop it. */
export type ScratchDatabase = { readonly database: OpenDatabase; readonly drop: () => Promise<void> }

/**
 * A database of `kind` for one test file alone (one that fills tables with data of its own, which
 * the shared database must not carry for the other suites): a new in-memory embedded database, or
 * a new database on `TEST_DATABASE_URL`'s server. `log` is told of every statement it runs.
 */
export const scratchDatabase = async (kind: DatabaseKind, log?: QueryLog): Promise<ScratchDatabase> => {
  const url = realDatabaseUrl()
  if (kind === 'postgres') {
    if (url === undefined) throw new Error('a scratch server database needs TEST_DATABASE_URL')
    return createReal(url, log)
  }
  const database = await openDatabase({ url: MEMORY_URL, dataDir: '', ...(log === undefined ? {} : { log }) })
  await migrateToLatest(database.db)
  return { database, drop: () => database.close() }
}

/** The real server's URL when configured for tests. */
export const realDatabaseUrl = (): string | undefined => {
  const url = process.env['TEST_DATABASE_URL']
  return url === undefined || url === '' ? undefined : url
}

/** Every database the tests should run against: embedded always, the real server when configured. */
export const testDatabases = (): readonly TestDatabase[] => {
  const url = realDatabaseUrl()
  return [
    { name: 'embedded PostgreSQL (PGlite)', kind: 'embedded', open: openEmbedded },
    ...(url === undefined ? [] : [{ name: 'PostgreSQL server', kind: 'postgres' as const, open: async () => (await openReal(url)).database }]),
  ]
}

/** Closes the shared databases and drops the real one; called once after the whole run. */
export const closeTestDatabases = async (): Promise<void> => {
  const e = embedded
  const r = real
  embedded = undefined
  real = undefined
  if (e !== undefined) await (await e).close()
  if (r !== undefined) await (await r).drop()
}
