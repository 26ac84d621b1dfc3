import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Kysely, PGliteDialect, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely'
import pg from 'pg'
import { preparedNameOf, runPreparedOn } from './precompiled.js'
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
  readonly close: () => Promise<void>
}

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

type RowDescription = { readonly fields: pg.FieldDef[] }

/** `pg`'s own handling of a row description, which its types leave out. */
const describeRow = ((): ((this: pg.Query, message: RowDescription) => void) => {
  const own = (pg.Query.prototype as unknown as { readonly handleRowDescription?: (this: pg.Query, message: RowDescription) => void }).handleRowDescription
  if (typeof own !== 'function') throw new Error('pg.Query no longer handles row descriptions as handleRowDescription')
  return own
})()

/**
 * A statement compiled once (`preparedNameOf`), as a `pg` query object that runs it by name.
 * Handed a config object (`{ name, text, values }`), `pg` first copies it through its property
 * descriptors, so as not to change the caller's object (`cloneQueryConfig`): 1.6 µs a statement
 * on the benchmark machine, more than a percent of an authenticated read (docs/benchmarks-history.md,
 * "Fifteenth pass"). A query object it runs as it is. The name is set as `pg`'s own constructor
 * sets it from a config's `name` (its type leaves the field out); were `pg` to stop honouring
 * it, the statements would run unnamed and the prepared-statement tests (precompiled.test.ts)
 * would fail.
 */
class NamedStatement extends pg.Query {
  constructor(name: string, text: string, values: unknown[], callback?: (error: Error | undefined, result: pg.QueryResult) => void) {
    super(text, values, callback)
    ;(this as unknown as { name: string }).name = name
  }

  /**
   * The server describes a named statement's row on every run, and `pg` builds the row's
   * parsers and its empty row again from it each time (`Result.addFields`: a dictionary-mode
   * object spread, one type lookup a column; 5 to 6% of a payment's CPU, decision 64). A
   * statement's description is the same on every run, so what `addFields` built is kept per
   * statement name and per client's type parsers (`describedRows`) and reused while the
   * description matches it column by column; anything else goes through `pg` itself.
   */
  handleRowDescription(message: RowDescription): void {
    const query = this as unknown as PgQueryInternals
    const result = query._result
    // A result that already has a command is a second statement's, which `pg` handles itself.
    const described = result.command === null ? describedRowsOf(result._types) : undefined
    const known = described?.get(query.name)
    if (known === undefined || !sameRow(known.fields, message.fields)) {
      describeRow.call(this, message)
      described?.set(query.name, { fields: result.fields, parsers: result._parsers, emptyRow: result._prebuiltEmptyResultObject })
      return
    }
    result.fields = message.fields
    result._parsers = known.parsers
    result._prebuiltEmptyResultObject = known.emptyRow
    query._accumulateRows = Boolean(query.callback) || this.listeners('row').length === 0
  }
}

/** The parts of `pg` 8's query and result a named statement's row description touches (query.js, result.js). */
type PgResultInternals = {
  command: string | null
  fields: pg.FieldDef[]
  _types: object | undefined
  _parsers: unknown[]
  _prebuiltEmptyResultObject: object
}
type PgQueryInternals = {
  readonly name: string
  readonly callback: unknown
  readonly _result: PgResultInternals
  _accumulateRows: boolean
}

type DescribedRow = { readonly fields: readonly pg.FieldDef[]; readonly parsers: unknown[]; readonly emptyRow: object }

/** What `addFields` built for each statement, by the client's type parsers (one object a connection) and the statement's name. */
const describedRows = new WeakMap<object, Map<string, DescribedRow>>()

/** The statements described on the connection whose type parsers are `types`; none without them. */
const describedRowsOf = (types: object | undefined): Map<string, DescribedRow> | undefined => {
  if (types === undefined) return undefined
  let byName = describedRows.get(types)
  if (byName === undefined) describedRows.set(types, (byName = new Map()))
  return byName
}

/** The same columns, in order, of the same types and formats: the same parsers and empty row. */
const sameRow = (known: readonly pg.FieldDef[], fields: readonly pg.FieldDef[]): boolean => {
  if (known.length !== fields.length) return false
  for (let i = 0; i < fields.length; i++) {
    const a = known[i] as pg.FieldDef
    const b = fields[i] as pg.FieldDef
    if (a.name !== b.name || a.dataTypeID !== b.dataTypeID || a.format !== b.format) return false
  }
  return true
}

/**
 * Runs a named statement on a pool client, answering as `client.query(config)` does. A query
 * object makes `pg` answer through its callback (its promise is made only for a config), which
 * is also one promise fewer a statement.
 */
const runNamedOn = (client: pg.PoolClient, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> =>
  new Promise((resolve, reject) => {
    client.query(new NamedStatement(name, text, values, (error, result) => (error ? reject(error) : resolve(result))))
  })

/**
 * Runs a named statement straight on `pool`. `pg-pool` answers every query with a promise of its
 * result, a query object too (it takes a client, runs the query and releases the client in one
 * callback); `pg`'s types give the query object back instead. The query must carry no callback
 * of its own: the pool's callback is what releases the client. Exported for the benchmark's
 * baseline and reference servers, which run the session read as the API runs it.
 */
export const runNamedOnPool = (pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> =>
  pool.query(new NamedStatement(name, text, values)) as unknown as Promise<pg.QueryResult>

/**
 * `pool` as Kysely takes it, except that a statement compiled once at start (`preparedNameOf`)
 * runs by name, on whichever connection runs it: inside a transaction as well as outside. A
 * payment's reads and its posting run under the loan's row lock, which every other payment on
 * the loan waits for; parsed and planned on every run, they held it longer (decision 56). Each
 * `pg` client gets one wrapper, so Kysely keeps one connection object per client as before.
 */
const preparingPool = (pool: pg.Pool): PostgresPool => {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let kyselyClient = wrapped.get(client)
    if (kyselyClient === undefined) {
      const query = (text: string | pg.Submittable, values?: readonly unknown[]) => {
        // Kysely hands over a cursor only when streaming with one configured (it is not here).
        if (typeof text !== 'string') return client.query(text)
        const name = preparedNameOf(text)
        return name === undefined ? client.query(text, values as unknown[]) : runNamedOn(client, name, text, values as unknown[])
      }
      // pg's overloads and Kysely's describe the same calls, but not in a form TypeScript can match.
      kyselyClient = { query: query as unknown as PostgresPoolClient['query'], release: (destroy) => client.release(destroy) }
      wrapped.set(client, kyselyClient)
    }
    return kyselyClient
  }
  return { Client: pg.Client, options: pool.options, connect: async () => wrap(await pool.connect()), end: () => pool.end() }
}

const describeUrl = (url: string): string => {
  const parsed = new URL(url)
  return `postgres ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
}

/**
 * Opens the database named by `url` (CONTRACT.md "Running"): a `postgres://` or `postgresql://`
 * URL is a real server through a `pg` pool; `pglite://memory` is embedded and in memory;
 * no URL is embedded and stored under `dataDir/pgdata`.
 */
export const openDatabase = async (options: {
  readonly url: string | undefined
  readonly dataDir: string
  readonly poolSize?: number
}): Promise<OpenDatabase> => {
  const { url, dataDir } = options
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? parseInt8 : oid === DATE_OID ? keepDate : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    })
    // An idle client that loses its connection emits here; without a listener it would crash the process.
    pool.on('error', () => undefined)
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) })
    // The queries compiled once at start run by name on the pool itself (decisions 51 and 53).
    runPreparedOn(db, async ({ name, text, values }) => (await runNamedOnPool(pool, name, text, values)).rows)
    return {
      db,
      kind: 'postgres',
      description: describeUrl(url),
      listen: (channel, onPayload, onReset) => pgListener(url, channel, onPayload, onReset),
      close: () => db.destroy(),
    }
  }
  if (url !== undefined && url !== MEMORY_URL) throw new Error(`DATABASE_URL must be postgres://, postgresql:// or ${MEMORY_URL}`)
  const path = url === MEMORY_URL ? undefined : join(dataDir, 'pgdata')
  if (path !== undefined) mkdirSync(path, { recursive: true })
  // Loaded only here: a service on a real server never holds the embedded engine's code (about
  // 11 MB of resident memory; docs/benchmarks.md).
  const { PGlite, types: pgliteTypes } = await import('@electric-sql/pglite')
  const pglite = await PGlite.create({ ...(path === undefined ? {} : { dataDir: path }), parsers: { [pgliteTypes.INT8]: parseInt8, [DATE_OID]: keepDate } })
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
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
    close: async () => {
      await db.destroy()
      if (!pglite.closed) await pglite.close()
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
