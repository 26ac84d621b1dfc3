import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { OpenDatabase } from '@lendgate/adapters'
import type { Logger } from 'pino'
import { createApp } from './app.js'
import { compose } from './compose.js'
import type { Config } from './config.js'
import type { AppDeps } from './deps.js'

export type Listening = {
  readonly url: string
  /**
   * Stops accepting connections, closes idle keep-alive connections, lets in-flight requests
   * finish (connections still open after `graceMs` are closed), then runs `release`.
   * Calling it again returns the same promise.
   */
  readonly stop: (graceMs?: number) => Promise<void>
}

export const DEFAULT_GRACE_MS = 5_000

/** Listens with `handle` (an application's `handle`) on `host:port` (port 0: any free port). */
export const listen = async (handle: RequestListener, host: string, port: number, release: () => Promise<void>): Promise<Listening> => {
  const server: Server = await new Promise((resolve, reject) => {
    const s = createServer(handle).listen(port, host, () => resolve(s))
    s.once('error', reject)
  })
  server.keepAliveTimeout = 5_000
  const address = server.address() as AddressInfo
  const shownHost = host.includes(':') ? `[${host}]` : host
  let stopping: Promise<void> | undefined
  return {
    url: `http://${shownHost}:${address.port}`,
    stop: (graceMs = DEFAULT_GRACE_MS) =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        // Keep-alive connections become idle as their in-flight response completes: close them then.
        server.closeIdleConnections()
        const sweep = setInterval(() => server.closeIdleConnections(), 25)
        const force = setTimeout(() => server.closeAllConnections(), graceMs)
        await closed
        clearInterval(sweep)
        clearTimeout(force)
        await release()
      })()),
  }
}

export type RunningServer = Listening & { readonly deps: AppDeps }

/** Composes the service and listens on `config.host:config.port`. */
export const startServer = async (config: Config, logger: Logger, database?: OpenDatabase): Promise<RunningServer> => {
  const composition = await compose(config, logger, database)
  const listening = await listen(createApp(composition.deps, config, logger).handle, config.host, config.port, composition.close)
  return { ...listening, deps: composition.deps }
}
