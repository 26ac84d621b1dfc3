import { randomBytes } from 'node:crypto'
import { MEMORY_URL, migrateToLatest, openDatabase, postgresCoreDeps } from '@lendgate/adapters'
import { codeInbox } from './code-inbox.js'
import { runJourney } from './journey.js'
import { runAndReport } from './report.js'

/**
 * The journey on the adapters over the embedded PostgreSQL server: a throwaway one, or the one
 * under `EMBEDDED_DATA_DIR` when set (kept between runs, owner-only). The database is migrated
 * first, as the API does at start. A real service loads its webhook sealing key from its secret store;
 * this one seals with a key of the run's own, which no one else needs to open.
 */
const dataDir = process.env['EMBEDDED_DATA_DIR']
const database = await openDatabase({ url: dataDir === undefined ? MEMORY_URL : undefined, dataDir: dataDir ?? '' })
try {
  await migrateToLatest(database.db)
  const inbox = codeInbox()
  const deps = postgresCoreDeps(database, { webhookSecretKey: randomBytes(32), sender: inbox })
  process.exitCode = await runAndReport(runJourney(deps, inbox))
  // Key uses are buffered: write them before the database closes.
  await deps.usage.flush()
} finally {
  await database.close()
}
