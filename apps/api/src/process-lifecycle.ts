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

/**
 * On SIGTERM or SIGINT: run `stop` once, then exit 0 (1 if stopping failed). Further signals
 * while it stops are ignored: Ctrl-C reaches every process of the terminal's group, and the
 * wrappers between it and this process (npx, pnpm, tsx) relay it again, so one Ctrl-C arrives
 * two or three times, and a second one must not cut the stop short (its log lines lost, the
 * wrapper reporting a process killed by a signal).
 */
export const stopOnSignals = (logger: Logger, stop: () => Promise<void>): void => {
  let stopping = false
  const shutdown = (signal: string): void => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

/**
 * What a process does when its embedded database server stopped and could not be started again
 * (`ComposeOptions.onDatabaseLost`): log it and exit 1, for its supervisor to start it afresh.
 */
export const exitOnDatabaseLost =
  (logger: Logger) =>
  (err: Error): never => {
    logger.fatal({ err }, 'the embedded PostgreSQL server stopped and could not be started again: exiting')
    return process.exit(1)
  }
