import * as E from 'fp-ts/lib/Either.js'
import { compose } from './compose.js'
import { loadConfig } from './config.js'
import { withDevelopmentSecrets } from './development-secrets.js'
import { createLogger } from './logger.js'

/**
 * `pnpm worker`: the webhook delivery worker alone, without the HTTP server, on the configured
 * database. Any number may run beside the API processes; each event is claimed by one of them.
 */
const loaded = loadConfig(process.env)
if (E.isLeft(loaded)) {
  process.stderr.write(`Lendgate worker cannot start; fix these settings:\n${loaded.left.map((p) => `  - ${p}`).join('\n')}\n`)
  process.exit(1)
}
const { config } = withDevelopmentSecrets(loaded.right)
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
const shutdown = (signal: string): void => {
  logger.info({ signal }, 'worker shutting down')
  composition.close().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'worker shutdown failed')
      process.exit(1)
    },
  )
}
process.once('SIGTERM', () => shutdown('SIGTERM'))
process.once('SIGINT', () => shutdown('SIGINT'))
