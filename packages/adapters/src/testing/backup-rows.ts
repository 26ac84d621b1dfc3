import { sql } from 'kysely'
import { backupRowsQuery, backupTables, type AnyDb } from '../postgres/backup-catalog.js'
import type { OpenDatabase } from '../postgres/database.js'

/** Rows by table: each row as a backup reads it (`backupRowsQuery`). */
export type TableRows = Readonly<Record<string, readonly string[]>>

/** Every row of every table a backup holds (`backupTables`), as `db` sees them. */
export const everyRow = async (db: AnyDb): Promise<TableRows> => {
  const rows: Record<string, readonly string[]> = {}
  for (const table of await backupTables(db)) {
    const found = await backupRowsQuery(table).execute(db)
    rows[table.name] = found.rows.map((r) => r.row)
  }
  return rows
}

/** Every sequence the database's `pg_sequences` shows, by name, and its last value as text. */
export const everySequence = async (db: AnyDb): Promise<readonly { readonly name: string; readonly value: string | null }[]> =>
  (await sql<{ name: string; value: string | null }>`select sequencename::text as name, last_value::text as value from pg_sequences order by 1`.execute(db)).rows

/**
 * Runs `work` with the id of a snapshot that a REPEATABLE READ transaction of its own holds open
 * (`pg_export_snapshot()`), then reads every row that snapshot sees (`everyRow`): what a backup
 * given that snapshot must hold, whatever was written since.
 */
export const inExportedSnapshot = async <A>(database: Pick<OpenDatabase, 'withSession'>, work: (snapshot: string) => Promise<A>): Promise<{ readonly result: A; readonly rows: TableRows }> =>
  database.withSession((session) =>
    session.connection().execute(async (connection) => {
      await sql`begin isolation level repeatable read`.execute(connection)
      try {
        const { rows } = await sql<{ id: string }>`select pg_export_snapshot() as id`.execute(connection)
        const result = await work(rows[0]!.id)
        return { result, rows: await everyRow(connection) }
      } finally {
        await sql`rollback`.execute(connection)
      }
    }),
  )
