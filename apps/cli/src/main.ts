import {
  migrateToLatest,
  nodeApiKeyMaterial,
  openDatabase,
  postgresApiKeyRepository,
  postgresLoanApplicationRepository,
  postgresLoanProductRepository,
  postgresOnboardingSessionRepository,
  postgresWebhookEventRepository,
  randomIds,
  type OpenDatabase,
} from '@lendgate/adapters'
import { databaseBackups } from './backups.js'
import { runCli } from './cli.js'

/**
 * `pnpm lendgate …`: opens the configured database (migrating it like the server, on a session of
 * `DATABASE_DIRECT_URL` when set, unless the command works on the schema as it finds it), runs
 * one command.
 */
let database: OpenDatabase | undefined
const status = await runCli(
  process.argv.slice(2),
  async (command) => {
    database = await openDatabase({
      url: process.env['DATABASE_URL'],
      directUrl: process.env['DATABASE_DIRECT_URL'] || undefined,
      dataDir: process.env['DATA_DIR'] ?? './.data',
    })
    if (command.schemaAsFound !== true) await database.withSession(migrateToLatest)
    return {
      backups: databaseBackups(database),
      apiKeys: postgresApiKeyRepository(database.db),
      keyMaterial: nodeApiKeyMaterial(),
      sessions: postgresOnboardingSessionRepository(database.db),
      world: 'live',
      events: postgresWebhookEventRepository(database.db),
      applications: postgresLoanApplicationRepository(database.db),
      products: postgresLoanProductRepository(database.db),
      ids: randomIds(),
      clock: { now: () => new Date() },
    }
  },
  { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
)
await database?.close()
process.exitCode = status
