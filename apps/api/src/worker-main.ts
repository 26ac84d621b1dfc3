import { compose } from './compose.js'
import { discardGeneratedSecrets, withDevelopmentSecrets } from './development-secrets.js'
import { createLogger } from './logger.js'
import { configOrExit, exitOnDatabaseLost, stopOnSignals } from './process-lifecycle.js'
import { listenAndStart } from './server.js'
import { createWorkerApp } from './worker-app.js'

/**
 * `pnpm worker`: the background jobs alone (webhook delivery and the daily servicing job),
 * without the partner API, on the configured database (the embedded server of `DATA_DIR` too),
 * with its probes and metrics on `WORKER_PORT`. Any number may run beside the API processes:
 * each webhook event is claimed by one of them, and each run of a scheduled job is leased to one
 * (docs/deployment.md).
 */
process.umask(0o077)
const { config, generated } = withDevelopmentSecrets(configOrExit('Lendgate worker'))
const logger = createLogger('lendgate-worker', config.logLevel)
if (config.webhookSecretKey === undefined) {
  logger.fatal({ setting: 'WEBHOOK_SECRET_KEY' }, 'the worker cannot unseal signing secrets without WEBHOOK_SECRET_KEY')
  process.exit(1)
}
if (config.internalApiToken === undefined) logger.warn({ setting: 'INTERNAL_API_TOKEN' }, 'setting missing: /metrics answers 500 server_misconfigured')
try {
  const composition = await compose({ ...config, runJobs: true }, logger, undefined, { processMetrics: true, onDatabaseLost: exitOnDatabaseLost(logger) })
  const listening = await listenAndStart(composition, createWorkerApp(composition.deps, config, logger), {
    host: config.host,
    port: config.workerPort,
    limits: config.connections,
  })
  logger.info({ database: composition.database.description, url: listening.url }, 'Lendgate worker running')
  stopOnSignals(logger, () => listening.stop())
} catch (err) {
  if (generated !== undefined) discardGeneratedSecrets(config.dataDir)
  logger.fatal({ err }, 'could not start')
  process.exit(1)
}
