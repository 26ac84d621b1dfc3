import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { Kysely, PGliteDialect, PostgresDialect, sql, type KyselyConfig } from 'kysely'
import pg from 'pg'
import { ownerOnlyDirectory, restrictToOwner } from './data-directory.js'
import type { Database } from './schema.js'

export type DatabaseKind = 'postgres' | 'embedded'

export type OpenDatabase = {
  readonly db: Kysely<Database>
  readonly kind: DatabaseKind
  /** Where it is, for logs: the host and database name, or the embedded data path. Never a password. */
  readonly description: string
  /**
   * Listens on a NOTIFY channel: `onPayload` for each notification; `onReset` when
   * notifications may have been lost (the listening connection dropped; it reconnects).
   * Resolves once listening; the returned function stops.
   */
  readonly listen: (channel: string, onPayload: (payload: string) => void, onReset: () => void) => Promise<() => Promise<void>>
  /**
   * Runs `work` on a session of its own: a connection to the server itself (the direct URL, not
   * a pooler), closed afterwards. For what needs session state, such as the migrations and their
   * lock. The embedded database runs it on its one connection.
   */
  readonly withSession: <T>(work: (db: Kysely<Database>) => Promise<T>) => Promise<T>
  /** The pool's connections now, for metrics; undefined for the embedded database (one connection, no pool). */
  readonly connections: () => PoolConnections | undefined
  readonly close: () => Promise<void>
}

/** A pool's connections: open and busy, open and idle, and requests waiting for one. */
export type PoolConnections = { readonly inUse: number; readonly idle: number; readonly waiting: number }

const RECONNECT_MS = 1_000

/** A dedicated `pg` connection that LISTENs on `channel`, reconnecting (and saying so) when it drops. */
const pgListener = async (
  connectionString: string,
  channel: string,
  onPayload: (payload: string) => void,
  onReset: () => void,
): Promise<() => Promise<void>> => {
  let stopped = false
  let client: pg.Client | undefined
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 })
    c.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload)
    })
    const dropped = () => {
      if (stopped || client !== c) return
      client = undefined
      onReset()
      setTimeout(() => void retry(), RECONNECT_MS).unref()
    }
    c.on('error', dropped)
    c.on('end', dropped)
    await c.connect()
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    client = c
  }
  const retry = async (): Promise<void> => {
    if (stopped) return
    try {
      await connect()
    } catch {
      setTimeout(() => void retry(), RECONNECT_MS).unref()
    }
  }
  await connect()
  return async () => {
    stopped = true
    const c = client
    client = undefined
    await c?.end().catch(() => undefined)
  }
}

export const MEMORY_URL = 'pglite://memory'

const INT8_OID = 20
const DATE_OID = 1082
const TIMESTAMPTZ_OID = 1184

/**
 * `timestamptz` is parsed by `pg`'s own parser on both drivers: PGlite's reads a year below 100
 * as a year of the twentieth or twenty-first century (0001 as 2001), where `pg`'s keeps it.
 */
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text')

/** `date` columns stay `YYYY-MM-DD` strings: a calendar date has no time zone to shift it. */
const keepDate = (text: string): string => text

/**
 * `int8` (money in minor units, counts) is parsed to a JavaScript number by both drivers: `pg`
 * would return a string and PGlite a BigInt. Values outside the safe-integer range (beyond
 * ±9,007,199,254,740,991 minor units) are refused rather than rounded.
 */
export const parseInt8 = (text: string): number => {
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value out of the safe integer range: ${text}`)
  return value
}

/** How `pg` turns column types into values: int8 to numbers (refused beyond the safe range), dates kept as text. */
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? parseInt8 : oid === DATE_OID ? keepDate : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/** Kysely's query log: told of every statement run, with its parameters and duration. */
export type QueryLog = NonNullable<KyselyConfig['log']>

/** A Kysely on a `pg` pool of at most `max` connections to `url`. */
const pgKysely = (url: string, max: number, log?: QueryLog): { readonly db: Kysely<Database>; readonly pool: pg.Pool } => {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000, types: typeParsers })
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => undefined)
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...(log === undefined ? {} : { log }) }), pool }
}

const describeUrl = (url: string): string => {
  const parsed = new URL(url)
  return `postgres ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
}

/** Connections `openDatabase` pools on a PostgreSQL server when not told otherwise (`poolSize`). */
export const DEFAULT_POOL_SIZE = 10

/**
 * Opens the database named by `url` (CONTRACT.md "Running"): a `postgres://` or `postgresql://`
 * URL is a real server through a `pg` pool (it may be a pooler such as PgBouncer in transaction
 * mode: requests hold no session state), with `directUrl` (default `url`) reaching the server
 * itself for LISTEN and `withSession`; `pglite://memory` is embedded and in memory;
 * no URL is embedded and stored under `dataDir/pgdata`, owner-only: `dataDir` must not be
 * reachable by group or others (the open is refused otherwise), and every file under it is
 * made 0600 when the database opens and closes (`data-directory.ts`).
 */
export const openDatabase = async (options: {
  readonly url: string | undefined
  readonly directUrl?: string | undefined
  readonly dataDir: string
  readonly poolSize?: number
  /** Told of every statement `db` runs (the query-plan test reads what each route runs); none by default. */
  readonly log?: QueryLog
}): Promise<OpenDatabase> => {
  const { url, dataDir } = options
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) {
    const directUrl = options.directUrl ?? url
    const { db, pool } = pgKysely(url, options.poolSize ?? DEFAULT_POOL_SIZE, options.log)
    return {
      db,
      kind: 'postgres',
      description: directUrl === url ? describeUrl(url) : `${describeUrl(url)} (direct: ${describeUrl(directUrl)})`,
      listen: (channel, onPayload, onReset) => pgListener(directUrl, channel, onPayload, onReset),
      withSession: async (work) => {
        const session = pgKysely(directUrl, 1).db
        try {
          return await work(session)
        } finally {
          await session.destroy()
        }
      },
      connections: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => db.destroy(),
    }
  }
  if (url !== undefined && url !== MEMORY_URL) throw new Error(`DATABASE_URL must be postgres://, postgresql:// or ${MEMORY_URL}`)
  const path = url === MEMORY_URL ? undefined : join(dataDir, 'pgdata')
  if (path !== undefined) {
    ownerOnlyDirectory(dataDir)
    ownerOnlyDirectory(path)
  }
  // Loaded only here: a service on a real server never holds the embedded engine's code.
  const { PGlite, types: pgliteTypes } = await import('@electric-sql/pglite')
  const pglite = await PGlite.create({ ...(path === undefined ? {} : { dataDir: path }), parsers: { [pgliteTypes.INT8]: parseInt8, [DATE_OID]: keepDate, [TIMESTAMPTZ_OID]: parseTimestamptz } })
  if (path !== undefined) restrictToOwner(path)
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }), ...(options.log === undefined ? {} : { log: options.log }) })
  return {
    db,
    kind: 'embedded',
    description: path === undefined ? 'embedded PostgreSQL in memory' : `embedded PostgreSQL at ${path}`,
    // One process, one connection: nothing can be missed, so there is never a reset.
    listen: async (channel, onPayload) => {
      const stop = await pglite.listen(channel, onPayload)
      return async () => {
        if (!pglite.closed) await stop()
      }
    },
    withSession: (work) => work(db),
    connections: () => undefined,
    close: async () => {
      await db.destroy()
      if (!pglite.closed) await pglite.close()
      if (path !== undefined) restrictToOwner(path)
    },
  }
}

/** Whether the database answers a trivial query. */
export const ping = async (db: Kysely<Database>): Promise<boolean> => {
  try {
    await sql`select 1`.execute(db)
    return true
  } catch {
    return false
  }
}

/** The channel of `notificationsArrive`'s probe. */
const PROBE_CHANNEL = 'lendgate_notification_probe'

/**
 * Whether a NOTIFY sent through the pool (`db`: `DATABASE_URL`, perhaps a pooler) reaches a LISTEN
 * connection (`listen`: the direct URL) within `timeoutMs`. False behind PgBouncer in transaction
 * mode without a direct URL: LISTEN then registers on a server connection nobody holds, and key
 * revocations would silently stop reaching the other instances.
 */
export const notificationsArrive = async (database: Pick<OpenDatabase, 'db' | 'listen'>, timeoutMs = 3_000): Promise<boolean> => {
  const token = randomUUID()
  let heard = (): void => undefined
  const arrived = new Promise<boolean>((resolve) => {
    heard = () => resolve(true)
  })
  const stop = await database.listen(PROBE_CHANNEL, (payload) => payload === token && heard(), () => undefined)
  let timer: NodeJS.Timeout | undefined
  try {
    await sql`select pg_notify(${PROBE_CHANNEL}, ${token})`.execute(database.db)
    return await Promise.race([arrived, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))])
  } finally {
    clearTimeout(timer)
    await stop()
  }
}
