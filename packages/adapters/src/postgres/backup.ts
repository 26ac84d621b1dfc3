import { randomBytes } from 'node:crypto'
import { createWriteStream, type WriteStream } from 'node:fs'
import { open, rename, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { sql, type Transaction } from 'kysely'
import { backupRowsQuery, backupSequences, backupTables, holdsMigrations, type AnyDb, type BackupTable } from './backup-catalog.js'
import { BACKUP_FORMAT, BACKUP_VERSION, endLine, headerLine, tableLine } from './backup-format.js'
import { appliedMigrations } from './migrate.js'

export type BackupOptions = {
  /**
   * A snapshot another transaction exported (`pg_export_snapshot()`): the backup sees exactly
   * what that transaction sees. Without it, the snapshot of the backup's own start.
   */
  readonly snapshot?: string
  /** Compress the output with gzip. */
  readonly gzip?: boolean
  /** Rows fetched from the cursor at a time. */
  readonly batchRows?: number
  readonly clock?: { readonly now: () => Date }
}

/** What a backup wrote: the migrations it names and the rows of each table. */
export type BackupSummary = { readonly migrations: readonly string[]; readonly tables: Readonly<Record<string, number>> }

const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+(-[0-9]+)?$/i
const DEFAULT_BATCH_ROWS = 1_000

/** The rows of `table` as `backupRowsQuery` reads them, one a line, fetched from a cursor `batch` at a time. */
async function* rowLines(trx: Transaction<unknown>, table: BackupTable, batch: number, counted: (n: number) => void): AsyncGenerator<string> {
  await sql`declare backup_rows no scroll cursor for ${backupRowsQuery(table)}`.execute(trx)
  for (;;) {
    const { rows } = await sql<{ row: string }>`fetch ${sql.lit(batch)} from backup_rows`.execute(trx)
    if (rows.length === 0) break
    counted(rows.length)
    yield rows.map((r) => `${r.row}\n`).join('')
  }
  await sql`close backup_rows`.execute(trx)
}

/**
 * Writes a backup of `db` to `out` (decision 114; the format is `backup-format.ts`): every table
 * `backupTables` names, read in ONE transaction, REPEATABLE READ and READ ONLY, so the file is
 * one consistent moment of a database the API goes on writing. Rows stay PostgreSQL's JSON text
 * from end to end: no value becomes a JavaScript number on the way. Ends `out`.
 */
export const backupDatabase = async (db: AnyDb, out: Writable, options: BackupOptions = {}): Promise<BackupSummary> => {
  if (options.snapshot !== undefined && !SNAPSHOT_ID.test(options.snapshot)) throw new Error(`backup: not a snapshot id: ${options.snapshot}`)
  const batch = options.batchRows ?? DEFAULT_BATCH_ROWS
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      if (options.snapshot !== undefined) await sql`set transaction snapshot ${sql.lit(options.snapshot)}`.execute(trx)
      const { schema, migrated } = await holdsMigrations(trx)
      if (!migrated) throw new Error(`backup: the schema ${schema} (the session's current schema) holds no kysely_migration: it is not a Lendgate database's schema`)
      const migrations = await appliedMigrations(trx)
      const tables = await backupTables(trx)
      const { rows } = await sql<{ version: string }>`select current_setting('server_version') as version`.execute(trx)
      const header = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        created_at: (options.clock?.now() ?? new Date()).toISOString(),
        server_version: rows[0]?.version ?? 'unknown',
        migrations,
        tables,
        sequences: await backupSequences(trx),
      } as const
      const counts: Record<string, number> = {}
      async function* lines(): AsyncGenerator<string> {
        yield headerLine(header)
        for (const table of tables) {
          counts[table.name] = 0
          yield tableLine(table.name)
          yield* rowLines(trx, table, batch, (n) => (counts[table.name] = (counts[table.name] ?? 0) + n))
        }
        yield endLine({ rows: counts })
      }
      await (options.gzip === true ? pipeline(Readable.from(lines()), createGzip(), out) : pipeline(Readable.from(lines()), out))
      return { migrations, tables: counts }
    })
}

/** What `backupToFile` wrote: the file, its size and the backup's summary. */
export type BackupFile = BackupSummary & { readonly file: string; readonly bytes: number }

/**
 * Writes a backup of `db` to the file `path`, gzipped when its name ends `.gz`. The file is
 * readable by its owner alone (it holds applicants' data and key hashes), and is written under
 * a temporary name, flushed to disk, then renamed, and the rename flushed (its folder synced):
 * a backup that fails leaves no file, not even the temporary one.
 */
export const backupToFile = async (db: AnyDb, path: string, options: Omit<BackupOptions, 'gzip'> = {}): Promise<BackupFile> => {
  const partial = `${path}.${randomBytes(6).toString('hex')}.partial`
  let stream: WriteStream | undefined
  try {
    stream = createWriteStream(partial, { mode: 0o600, flags: 'wx', flush: true })
    const summary = await backupDatabase(db, stream, { ...options, gzip: path.endsWith('.gz') })
    await rename(partial, path)
    const dir = await open(dirname(path), 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
    return { ...summary, file: path, bytes: (await stat(path)).size }
  } catch (error) {
    // A failure can come before the stream has opened its file: the file is removed once the
    // stream has closed, else an open still under way would create it after the removal.
    if (stream !== undefined) await destroyed(stream)
    await rm(partial, { force: true })
    throw error
  }
}

/** Destroys `stream` and resolves once it has closed (its file, if it opened one, closed too). */
const destroyed = (stream: WriteStream): Promise<void> =>
  new Promise((resolve) => {
    if (stream.closed) return resolve()
    stream.once('close', () => resolve())
    stream.destroy()
  })
