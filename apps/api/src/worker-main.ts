import { compose } from './compose.js'
import { withDevelopmentSecrets } from './development-secrets.js'
import { createLogger } from './logger.js'
import { configOrExit, stopOnSignals } from './process-lifecycle.js'

/**
 * `pnpm worker`: the webhook delivery worker alone, without the HTTP server, on the configured
 * database. Any number may run beside the API processes; each event is claimed by one of them.
 */
const { config } = withDevelopmentSecrets(configOrExit('Lendgate worker'))
const logger = createLogger(config.logLevel)
if (config.databaseUrl === undefined || !config.databaseUrl.startsWith('postgres')) {
  // The embedded database belongs to one process: the API process, which runs the worker itself.
  logger.fatal({ setting: 'DATABASE_URL' }, 'pnpm worker needs a PostgreSQL server (DATABASE_URL=postgres://…); with the embedded database the API process runs the worker')
  process.exit(1)
}
if (config.webhookSecretKey === undefined) {
  logger.fatal({ setting: 'WEBHOOK_SECRET_KEY' }, 'the worker cannot unseal signing secrets without WEBHOOK_SECRET_KEY')
  process.exit(1)
}
const composition = await compose({ ...config, webhookWorker: true }, logger)
logger.info({ database: composition.database.description }, 'Lendgate webhook worker running')
stopOnSignals(logger, () => composition.close())
