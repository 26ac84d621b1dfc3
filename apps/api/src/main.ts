import { DEV_SECRETS_FILE, discardGeneratedSecrets, withDevelopmentSecrets } from './development-secrets.js'
import { createLogger } from './logger.js'
import { configOrExit, exitOnDatabaseLost, stopOnSignals } from './process-lifecycle.js'
import { startServer } from './server.js'

// Files this process creates are its owner's only, as PostgreSQL's own server makes them: the
// embedded database and the development secrets hold applicant data, key hashes and secrets.
process.umask(0o077)
const { config, generated } = withDevelopmentSecrets(configOrExit('Lendgate'))
const logger = createLogger('lendgate-api', config.logLevel)

for (const [setting, value] of [
  ['PARTNER_MINT_SECRET', config.partnerMintSecret],
  ['INTERNAL_API_TOKEN', config.internalApiToken],
  ['WEBHOOK_SECRET_KEY', config.webhookSecretKey],
] as const) {
  if (value === undefined) logger.warn({ setting }, 'setting missing: the routes that need it answer 500 server_misconfigured')
}

try {
  const server = await startServer(config, logger, undefined, { processMetrics: true, onDatabaseLost: exitOnDatabaseLost(logger) })
  stopOnSignals(logger, () => server.stop())
  if (generated !== undefined) {
    // Shown once, on the terminal only (never through the logger), once the server that holds them serves.
    process.stderr.write(
      [
        '',
        `Development secrets were generated and saved in ${config.dataDir}/${DEV_SECRETS_FILE} (mode 0600):`,
        `  PARTNER_MINT_SECRET=${generated.partner_mint_secret}`,
        `  INTERNAL_API_TOKEN=${generated.internal_api_token}`,
        'They are not shown again. Set these variables yourself in production.',
        '',
      ].join('\n') + '\n',
    )
  }
  logger.info({ url: server.url, production: config.production }, 'Lendgate API listening')
} catch (err) {
  if (generated !== undefined) discardGeneratedSecrets(config.dataDir)
  logger.fatal({ err }, 'could not start')
  process.exit(1)
}
