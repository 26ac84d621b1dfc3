import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql, type Transaction } from 'kysely'
import { backupTables, foreignKeys, type AnyDb, type BackupTable, type ForeignKey } from './backup-catalog.js'
import { parseHeader, parseLine, type BackupHeader } from './backup-format.js'
import { appliedMigrations, migrateTo, migrateToLatest, MIGRATION_NAMES } from './migrate.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a restore reads any schema from the catalog
type AnyTrx = Transaction<any>

/** The file is no Lendgate backup this build reads (another file, another format version, a damaged header). */
export type NotLendgateBackup = { readonly _tag: 'NotLendgateBackup'; readonly detail: string }
/** The file cannot be read (it is missing, or not a file this process may read). */
export type BackupUnreadable = { readonly _tag: 'BackupUnreadable'; readonly detail: string }
/** The file ends before its end line, or holds other rows than its end line counts: cut short or damaged. */
export type BackupIncomplete = { readonly _tag: 'BackupIncomplete'; readonly detail: string }
/** The backup names migrations this build does not have: a newer build made it. */
export type BackupFromNewerBuild = { readonly _tag: 'BackupFromNewerBuild'; readonly detail: string; readonly migrations: readonly string[] }
/** The database holds rows, or a schema the backup predates: a restore goes into an empty database only. */
export type DatabaseNotEmpty = { readonly _tag: 'DatabaseNotEmpty'; readonly detail: string; readonly tables: readonly string[] }
/** The rows do not load into the backup's own schema (a table or column the file names is not there, or PostgreSQL refused a value). */
export type BackupDoesNotLoad = { readonly _tag: 'BackupDoesNotLoad'; readonly detail: string }

/** The restore failed for another reason (the connection was lost, the server stopped): its message, never a statement's parameters. */
export type RestoreFailed = { readonly _tag: 'RestoreFailed'; readonly detail: string }

export type RestoreRefusal = BackupUnreadable | NotLendgateBackup | BackupIncomplete | BackupFromNewerBuild | DatabaseNotEmpty | BackupDoesNotLoad | RestoreFailed

/** What a restore did: the backup's migrations, those it applied after loading, the rows of each table and the tables it left out. */
export type RestoreSummary = {
  readonly migrations: readonly string[]
  readonly migratedForward: readonly string[]
  /** The rows of each table in the backup (those of skipped tables were not loaded). */
  readonly tables: Readonly<Record<string, number>>
  /** The backup's tables that the migrations do not create, left out. */
  readonly skipped: readonly string[]
}

export type RestoreOptions = {
  /** Rows inserted by one statement, at most. */
  readonly batchRows?: number
}

const DEFAULT_BATCH_ROWS = 1_000
/** The JSON text one insert carries, at most (a batch ends early at it). */
const BATCH_CHARS = 4_000_000

/** A refusal on its way out of the restore's transaction, which it rolls back. */
class Refused extends Error {
  constructor(readonly refusal: RestoreRefusal) {
    super(refusal.detail)
  }
}

const refuse = (refusal: RestoreRefusal): never => {
  throw new Refused(refusal)
}

/** The lines of `input`, without their line ends; a read error (a gzip stream cut short) is thrown where it happens. */
async function* linesOf(input: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8')
  let pending = ''
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer)
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    yield* lines
  }
  pending += decoder.end()
  if (pending !== '') yield pending
}

/** The header of the backup, checked against this build's migrations before the database is touched. */
const checkedHeader = (line: string | undefined): BackupHeader => {
  const parsed = parseHeader(line)
  if ('problem' in parsed) return refuse({ _tag: 'NotLendgateBackup', detail: parsed.problem })
  const { header } = parsed
  const unknown = header.migrations.filter((m) => !MIGRATION_NAMES.includes(m))
  if (unknown.length > 0) {
    return refuse({ _tag: 'BackupFromNewerBuild', detail: `the backup was made by a newer build: this build does not have the migrations ${unknown.join(', ')}`, migrations: unknown })
  }
  if (header.migrations.some((m, i) => MIGRATION_NAMES[i] !== m)) return refuse({ _tag: 'NotLendgateBackup', detail: 'the backup header is damaged: its migrations are not in order' })
  return header
}

/** Refuses a database that holds rows, or migrations the backup does not have. */
const checkEmpty = async (trx: AnyTrx, header: BackupHeader): Promise<void> => {
  const applied = await appliedMigrations(trx)
  const ahead = applied.filter((m) => !header.migrations.includes(m))
  if (ahead.length > 0) {
    refuse({
      _tag: 'DatabaseNotEmpty',
      detail: `the database has migrations the backup predates (${ahead.join(', ')}): restore into a fresh database, before the API first starts on it`,
      tables: [],
    })
  }
  const holding = await tablesHoldingRows(trx, await backupTables(trx))
  if (holding.length > 0) {
    refuse({
      _tag: 'DatabaseNotEmpty',
      detail: `the database holds rows (in ${holding.join(', ')}): a backup is restored into a fresh database only, before the API first starts on it`,
      tables: holding,
    })
  }
}

/** Those of `tables` that hold a row. */
const tablesHoldingRows = async (trx: AnyTrx, tables: readonly Pick<BackupTable, 'name'>[]): Promise<readonly string[]> => {
  const holding: string[] = []
  for (const table of tables) {
    const { rows } = await sql<{ rows: boolean }>`select exists (select from ${sql.table(table.name)}) as rows`.execute(trx)
    if (rows[0]?.rows === true) holding.push(table.name)
  }
  return holding
}

/**
 * The backup's tables that this build's migrations (up to the backup's) do not create: a table an
 * operator or a test added, which a restore leaves out. Refuses a table whose columns differ, and
 * a backup that lacks a table its migrations create (one read from another schema than the one
 * its migrations ran in holds none of them).
 */
const tablesToSkip = (header: BackupHeader, schema: readonly BackupTable[]): readonly string[] => {
  const lacking = schema.filter((t) => !header.tables.some((h) => h.name === t.name)).map((t) => t.name)
  if (lacking.length > 0) refuse({ _tag: 'BackupDoesNotLoad', detail: `the backup lacks tables its migrations create (${lacking.join(', ')}): it was not read from its database's schema` })
  const columns = new Map(schema.map((t) => [t.name, [...t.columns].sort().join(',')]))
  const skipped = header.tables.filter((t) => !columns.has(t.name)).map((t) => t.name)
  for (const table of header.tables.filter((t) => columns.has(t.name))) {
    if (columns.get(table.name) !== [...table.columns].sort().join(',')) refuse({ _tag: 'BackupDoesNotLoad', detail: `the columns of ${table.name} in the backup are not those its migrations create` })
  }
  return skipped
}

/** Inserts `rows` (JSON objects as text) into `table`; PostgreSQL converts every value from the JSON text. */
const insertRows = async (trx: AnyTrx, table: string, rows: readonly string[]): Promise<void> => {
  if (rows.length === 0) return
  await sql`insert into ${sql.table(table)} overriding system value
    select * from json_populate_recordset(null::${sql.table(table)}, ${`[${rows.join(',')}]`}::json)`.execute(trx)
}

/** Adds `key` again as it was; PostgreSQL checks every row against it. */
const addForeignKey = (trx: AnyTrx, key: ForeignKey) =>
  sql`alter table ${sql.table(key.table)} add constraint ${sql.id(key.name)} ${sql.raw(key.definition)}`.execute(trx)

/** Loads the rows that follow the header, table by table (not those of `skipped`), and checks them against the end line. */
const loadRows = async (
  trx: AnyTrx,
  header: BackupHeader,
  lines: AsyncGenerator<string>,
  { batchRows, skipped }: { readonly batchRows: number; readonly skipped: readonly string[] },
): Promise<Readonly<Record<string, number>>> => {
  const counts: Record<string, number> = {}
  let table: string | undefined
  let batch: string[] = []
  let chars = 0
  const flush = async (): Promise<void> => {
    if (table !== undefined && !skipped.includes(table)) await insertRows(trx, table, batch)
    batch = []
    chars = 0
  }
  for await (const text of lines) {
    const line = parseLine(text)
    if (line === undefined) return refuse({ _tag: 'BackupIncomplete', detail: 'the backup holds a line that is none of a backup\'s: it is damaged' })
    if (line._tag === 'Row') {
      if (table === undefined) return refuse({ _tag: 'BackupIncomplete', detail: 'the backup holds a row before its first table: it is damaged' })
      batch.push(line.json)
      chars += line.json.length
      counts[table] = (counts[table] ?? 0) + 1
      if (batch.length >= batchRows || chars >= BATCH_CHARS) await flush()
    } else if (line._tag === 'Table') {
      await flush()
      if (!header.tables.some((t) => t.name === line.name) || line.name in counts) return refuse({ _tag: 'BackupIncomplete', detail: `the backup's rows of ${line.name} are not in its header: it is damaged` })
      table = line.name
      counts[table] = 0
    } else {
      await flush()
      const differ = header.tables.filter((t) => counts[t.name] === undefined || line.trailer.rows[t.name] !== counts[t.name])
      if (differ.length > 0) return refuse({ _tag: 'BackupIncomplete', detail: `the backup's rows of ${differ.map((t) => t.name).join(', ')} are not the ones its end line counts: it is damaged` })
      if (!(await lines.next()).done) return refuse({ _tag: 'BackupIncomplete', detail: 'the backup goes on after its end line: it is damaged' })
      return counts
    }
  }
  return refuse({ _tag: 'BackupIncomplete', detail: 'the backup ends before its end line: it was cut short' })
}

/** The refusal of a load PostgreSQL or the file's stream gave up on; anything else is `RestoreFailed`. */
const failureOf = (error: unknown): RestoreRefusal => {
  if (error instanceof Refused) return error.refusal
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR') return { _tag: 'BackupIncomplete', detail: `the backup's gzip stream is cut short or damaged (${message})` }
  if (typeof code === 'string' && /^(22|23|42)/.test(code)) return { _tag: 'BackupDoesNotLoad', detail: `PostgreSQL refused the backup's rows: ${message}` }
  return { _tag: 'RestoreFailed', detail: `the restore failed, and changed nothing: ${message}` }
}

/**
 * Restores the backup `input` holds (decision 114) into `db`, an empty database: refused, with
 * nothing changed, when the file is not a whole backup this build can read or the database holds
 * rows. In ONE transaction: migrates to the backup's last migration, empties the tables its
 * migrations seeded (the backup holds those rows as they were), drops the foreign keys
 * (tables reference each other both ways, and rows of a table each other), loads every table
 * the migrations create (leaving out, and naming, any other)
 * with PostgreSQL converting the JSON text, adds the foreign keys again (checking every row),
 * sets the sequences, then migrates forward to this build's latest. A restore that fails leaves
 * the database as it found it.
 */
export const restoreDatabase = (db: AnyDb, input: Readable, options: RestoreOptions = {}): TE.TaskEither<RestoreRefusal, RestoreSummary> =>
  TE.tryCatch(
    async () => {
      const lines = linesOf(input)
      try {
        const header = checkedHeader((await lines.next()).value)
        return await db.transaction().execute(async (trx) => {
          await checkEmpty(trx, header)
          const last = header.migrations.at(-1)
          if (last !== undefined) await migrateTo(trx, last)
          const skipped = tablesToSkip(header, await backupTables(trx))
          const loading = header.tables.filter((t) => !skipped.includes(t.name))
          const keys = (await foreignKeys(trx)).filter((key) => loading.some((t) => t.name === key.table))
          for (const key of keys) await sql`alter table ${sql.table(key.table)} drop constraint ${sql.id(key.name)}`.execute(trx)
          for (const table of await tablesHoldingRows(trx, loading)) await sql`delete from ${sql.table(table)}`.execute(trx)
          const tables = await loadRows(trx, header, lines, { batchRows: options.batchRows ?? DEFAULT_BATCH_ROWS, skipped })
          for (const key of keys) await addForeignKey(trx, key)
          // A sequence of a skipped table is not there: `to_regclass` answers null, and `setval` of null does nothing.
          for (const sequence of header.sequences) await sql`select setval(to_regclass(format('%I.%I', current_schema(), ${sequence.name}::text)), ${sequence.value}::int8)`.execute(trx)
          const migratedForward = await migrateToLatest(trx)
          return { migrations: header.migrations, migratedForward, tables, skipped }
        })
      } finally {
        await lines.return(undefined)
        input.destroy()
      }
    },
    failureOf,
  )

/** The file's stream, through gunzip when it starts with gzip's magic bytes (whatever its name). */
const openBackup = async (path: string): Promise<Readable> => {
  const handle = await open(path, 'r')
  const magic = Buffer.alloc(2)
  try {
    await handle.read(magic, 0, 2, 0)
  } finally {
    await handle.close()
  }
  const file = createReadStream(path)
  if (magic[0] !== 0x1f || magic[1] !== 0x8b) return file
  const gunzip = createGunzip()
  file.on('error', (error) => gunzip.destroy(error))
  return file.pipe(gunzip)
}

/** Restores the backup in the file `path` (gzipped or not) into `db`; see `restoreDatabase`. */
export const restoreFromFile = (db: AnyDb, path: string, options: RestoreOptions = {}): TE.TaskEither<RestoreRefusal, RestoreSummary> =>
  TE.flatten(
    TE.tryCatch(
      async () => restoreDatabase(db, await openBackup(path), options),
      (error): RestoreRefusal => ({ _tag: 'BackupUnreadable', detail: `the backup cannot be read: ${error instanceof Error ? error.message : String(error)}` }),
    ),
  )
