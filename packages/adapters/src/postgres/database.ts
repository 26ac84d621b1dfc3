import { randomUUID } from 'node:crypto'
import { Kysely, PostgresDialect, sql, type KyselyConfig } from 'kysely'
import pg from 'pg'
import { ensureDatabase, useEmbeddedServer, type EmbeddedServer } from './embedded-server.js'
import { discardThrowawayDataDir, THROWAWAY_SETTINGS, throwawayDataDir } from './throwaway-data-dir.js'
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
   * lock.
   */
  readonly withSession: <T>(work: (db: Kysely<Database>) => Promise<T>) => Promise<T>
  /** The pool's connections now, for metrics. */
  readonly connections: () => PoolConnections
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

const INT8_OID = 20
const DATE_OID = 1082
/** `date` columns stay `YYYY-MM-DD` strings: a calendar date has no time zone to shift it. */
const keepDate = (text: string): string => text

/**
 * `int8` (money in minor units, counts) is parsed to a JavaScript number, where `pg` would return
 * a string. Values outside the safe-integer range (beyond ±9,007,199,254,740,991 minor units) are
 * refused rather than rounded.
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

/**
 * What bounds a query where the caller would rather have an error than wait (a read replica's
 * pool): `queryTimeoutMs` ends a query that has not answered (a server stopped or cut off
 * mid-query), and TCP keepalive notices a peer gone silent.
 */
export type PoolBounds = { readonly queryTimeoutMs: number }

/** A Kysely on a `pg` pool of at most `max` connections to `url`. */
export const pgKysely = (url: string, max: number, log?: QueryLog, bounds?: PoolBounds): { readonly db: Kysely<Database>; readonly pool: pg.Pool } => {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    types: typeParsers,
    ...(bounds === undefined ? {} : { query_timeout: bounds.queryTimeoutMs, keepAlive: true }),
  })
  // A client that loses its connection (a failover, a restart, `pg_terminate_backend`) emits
  // 'error': on the pool while idle, on itself while checked out. Unheard, either would end the
  // process. Each client is heard for its whole life; the query in flight fails with the error
  // (the request answers 500 `store_unavailable`), and the pool drops the client when it is released.
  pool.on('error', () => undefined)
  pool.on('connect', (client) => client.on('error', () => undefined))
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...(log === undefined ? {} : { log }) }), pool }
}

/** A server URL as logs show it: host, port and database, never the user or password. */
export const describeUrl = (url: string): string => {
  const parsed = new URL(url)
  return `postgres ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
}

/** Connections `openDatabase` pools on a PostgreSQL server when not told otherwise (`poolSize`). */
export const DEFAULT_POOL_SIZE = 10

/**
 * `DATABASE_URL` for a throwaway embedded database (CONTRACT.md "Running": "embedded, in memory,
 * gone at exit"): an embedded server on a cluster of its own in the system's temporary directory,
 * durability off, removed when the database closes.
 */
export const MEMORY_URL = 'pglite://memory'

/** The database Lendgate uses on its embedded server, and the role it connects as, which owns it (not a superuser). */
const EMBEDDED_DATABASE = 'lendgate'
const EMBEDDED_ROLE = 'lendgate'

type OpenOptions = {
  readonly url: string | undefined
  readonly directUrl?: string | undefined
  readonly dataDir: string
  readonly poolSize?: number
  /** Told of every statement `db` runs (the query-plan test reads what each route runs); none by default. */
  readonly log?: QueryLog
  /** Told when the embedded server stopped under this process and could not be started again (`useEmbeddedServer`'s `onLost`); unused with a URL of a server. */
  readonly onServerLost?: (error: Error) => void
}

/** A `pg` pool on a server: `url` for requests (perhaps a pooler), `directUrl` (default `url`) for LISTEN and sessions. */
const onServer = (url: string, options: Pick<OpenOptions, 'directUrl' | 'poolSize' | 'log'>): Omit<OpenDatabase, 'kind' | 'description'> => {
  const directUrl = options.directUrl ?? url
  const { db, pool } = pgKysely(url, options.poolSize ?? DEFAULT_POOL_SIZE, options.log)
  return {
    db,
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

/**
 * Opens the database named by `url` (CONTRACT.md "Running"): a `postgres://` or `postgresql://`
 * URL is a server reached through a `pg` pool (it may be a pooler such as PgBouncer in
 * transaction mode: requests hold no session state), with `directUrl` (default `url`) reaching
 * the server itself for LISTEN and `withSession`. No URL is the embedded PostgreSQL server of
 * `dataDir` (`embedded-server.ts`), started or joined, through the same kind of pool; closing
 * leaves it (stopping it when no other process uses it). `MEMORY_URL` is a throwaway one.
 */
export const openDatabase = async (options: OpenOptions): Promise<OpenDatabase> => {
  const { url } = options
  if (url === undefined || url === MEMORY_URL) {
    const throwaway = url === MEMORY_URL ? await throwawayDataDir() : undefined
    const removeThrowaway = async () => throwaway !== undefined && (await discardThrowawayDataDir(throwaway))
    const onLost = options.onServerLost === undefined ? {} : { onLost: options.onServerLost }
    let server: EmbeddedServer | undefined
    try {
      server = await useEmbeddedServer(throwaway ?? options.dataDir, throwaway === undefined ? onLost : { ...onLost, settings: THROWAWAY_SETTINGS })
      await ensureDatabase(server.url('postgres'), EMBEDDED_DATABASE, EMBEDDED_ROLE)
    } catch (error) {
      // The error that stopped the open is the one to tell, not one from leaving.
      await server?.release().catch(() => undefined)
      await removeThrowaway()
      throw error
    }
    const opened = onServer(server.url(EMBEDDED_DATABASE, EMBEDDED_ROLE), { ...options, directUrl: undefined })
    const joined = server.started ? 'started by this process' : 'already running: joined'
    return {
      ...opened,
      kind: 'embedded',
      description: `embedded PostgreSQL at ${server.path} (${[throwaway === undefined ? joined : 'throwaway, removed at exit', ...server.notes].join('; ')})`,
      close: async () => {
        try {
          await opened.close()
          await server.release()
        } finally {
          await removeThrowaway()
        }
      },
    }
  }
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`DATABASE_URL must be a postgres:// or postgresql:// URL, or ${MEMORY_URL}`)
  const directUrl = options.directUrl ?? url
  return {
    ...onServer(url, options),
    kind: 'postgres',
    description: directUrl === url ? describeUrl(url) : `${describeUrl(url)} (direct: ${describeUrl(directUrl)})`,
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
