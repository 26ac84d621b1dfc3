import { backupToFile, restoreFromFile, type OpenDatabase, type RestoreRefusal } from '@lendgate/adapters'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Backups } from './commands.js'

/** The rows of every table, added up. */
const total = (tables: Readonly<Record<string, number>>): number => Object.values(tables).reduce((a, b) => a + b, 0)

/**
 * Backups of `database` (decision 114), each on a session of its own: the backup's transaction
 * and the restore's (with its migrations) need one connection throughout, not a pooler's.
 */
export const databaseBackups = (database: Pick<OpenDatabase, 'withSession'>): Backups => ({
  backup: (file) =>
    pipe(
      TE.tryCatch(
        () => database.withSession((db) => backupToFile(db, file)),
        (error) => ({ _tag: 'BackupFailed', detail: error instanceof Error ? error.message : String(error) }),
      ),
      TE.map((written) => ({ file: written.file, bytes: written.bytes, migration: written.migrations.at(-1) ?? null, rows: total(written.tables), tables: written.tables })),
    ),
  restore: (file) =>
    pipe(
      TE.tryCatch(
        () => database.withSession((db) => restoreFromFile(db, file)()),
        (error): RestoreRefusal => ({ _tag: 'RestoreFailed', detail: error instanceof Error ? error.message : String(error) }),
      ),
      TE.chainEitherKW((restored) => restored),
      TE.map((restored) => ({
        file,
        migration: restored.migrations.at(-1) ?? null,
        migrated_forward: restored.migratedForward,
        rows: total(restored.tables),
        tables: restored.tables,
        skipped_tables: restored.skipped,
      })),
    ),
})
