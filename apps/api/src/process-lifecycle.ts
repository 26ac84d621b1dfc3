import * as E from 'fp-ts/lib/Either.js'
import type { Logger } from 'pino'
import { loadConfig, type Config } from './config.js'

/** The configuration from the environment, or exit 1 listing every problem (nothing is guessed). */
export const configOrExit = (processName: string): Config => {
  const loaded = loadConfig(process.env)
  if (E.isRight(loaded)) return loaded.right
  process.stderr.write(`${processName} cannot start; fix these settings:\n${loaded.left.map((p) => `  - ${p}`).join('\n')}\n`)
  return process.exit(1)
}

/** On SIGTERM or SIGINT: run `stop` once, then exit 0 (1 if stopping failed). */
export const stopOnSignals = (logger: Logger, stop: () => Promise<void>): void => {
  const shutdown = (signal: string): void => {
    logger.info({ signal }, 'shutting down')
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
}
