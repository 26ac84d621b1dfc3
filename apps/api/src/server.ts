import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { createApp } from './app.js'
import { compose } from './compose.js'
import type { Config } from './config.js'
import type { OpenDatabase } from '@lendgate/adapters'
import type { AppDeps } from './deps.js'

export type RunningServer = {
  readonly url: string
  readonly deps: AppDeps
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then releases everything. */
  readonly stop: (graceMs?: number) => Promise<void>
}

/** Composes the service and listens on `config.host:config.port` (port 0: any free port). */
export const startServer = async (config: Config, logger: Logger, database?: OpenDatabase): Promise<RunningServer> => {
  const composition = await compose(config, logger, database)
  const app = createApp(composition.deps, config, logger)
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s))
    s.once('error', reject)
  })
  server.keepAliveTimeout = 5_000
  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  let stopping: Promise<void> | undefined
  return {
    url: `http://${host}:${port}`,
    deps: composition.deps,
    stop: (graceMs = 5_000) =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        const force = setTimeout(() => server.closeAllConnections(), graceMs)
        await closed
        clearTimeout(force)
        await composition.close()
      })()),
  }
}
