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
import { runCli } from './cli.js'

/** `pnpm lendgate …`: opens the configured database (migrating it, like the server), runs one command. */
let database: OpenDatabase | undefined
const status = await runCli(
  process.argv.slice(2),
  async () => {
    database = await openDatabase({ url: process.env['DATABASE_URL'], dataDir: process.env['DATA_DIR'] ?? './.data' })
    await migrateToLatest(database.db)
    return {
      apiKeys: postgresApiKeyRepository(database.db),
      keyMaterial: nodeApiKeyMaterial(),
      sessions: postgresOnboardingSessionRepository(database.db),
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
