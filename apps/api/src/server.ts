import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { OpenDatabase } from '@lendgate/adapters'
import type { Logger } from 'pino'
import { createApp } from './app.js'
import { compose, type ComposeOptions, type Composition } from './compose.js'
import type { Config, ConnectionLimits } from './config.js'
import type { AppDeps } from './deps.js'
import { toHttpError } from './http/error-mapper.js'
import { declaresBody } from './http/body.js'
import { clientAddress } from './http/client-address.js'
import { HEALTH_PROBES } from './http/probes.js'
import type { TooManyConnections, UnreadableRequest } from './http/problems.js'
import { SECURITY_HEADERS } from './http/request-lifecycle.js'
import { JSON_CONTENT_TYPE } from './http/respond.js'

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

/** Where a server listens (port 0: any free port) and what it allows each connection. */
export type ListenOptions = { readonly host: string; readonly port: number; readonly limits: ConnectionLimits }

/** Why Node's parser refused what arrived on a connection, by its error code. */
const unreadable = (code: string | undefined): UnreadableRequest => ({
  _tag: 'UnreadableRequest',
  reason: code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'timeout' : 'malformed',
})

/** The headers of a refusal the server answers itself: the problem's own, JSON, the security headers, and the end of the connection. */
const refusalHeaders = (headers: Readonly<Record<string, string>> | undefined, payload: string): Record<string, string> => ({
  'Content-Type': JSON_CONTENT_TYPE,
  'Content-Length': String(Buffer.byteLength(payload)),
  ...SECURITY_HEADERS,
  ...headers,
  Connection: 'close',
})

/** A whole HTTP/1.1 answer to a request Node's parser refused, as bytes for the socket. */
const rawAnswer = (problem: UnreadableRequest): string => {
  const { status, body, headers } = toHttpError(problem)
  const payload = JSON.stringify(body)
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(refusalHeaders(headers, payload)).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${payload}`
}

/** Answers `res` with `problem` without running the application. */
const refuse = (res: ServerResponse, problem: TooManyConnections): void => {
  const { status, body, headers } = toHttpError(problem)
  const payload = JSON.stringify(body)
  res.writeHead(status, refusalHeaders(headers, payload)).end(payload)
}

/**
 * A health probe (`HEALTH_PROBES`, without a body): answered, and its connection closed, even on
 * a connection refused for its address, since the balancer or orchestrator polling it often
 * shares its address with the clients it forwards.
 */
const isHealthProbe = (req: IncomingMessage): boolean =>
  (req.method === 'GET' || req.method === 'HEAD') && HEALTH_PROBES.has(new URL(req.url ?? '/', 'http://probe').pathname) && !declaresBody(req.headers)

/**
 * How long a connection the server is done with (its last answer sent, or refused) may wait for
 * its peer to close before it is destroyed: a peer that never closes its side keeps no slot.
 */
const CLOSING_GRACE_MS = 1_000

const destroySoon = (socket: Socket): void => {
  const timer = setTimeout(() => socket.destroy(), CLOSING_GRACE_MS)
  socket.once('close', () => clearTimeout(timer))
}

/**
 * The open connections of each client address (`clientAddress` of the peer): `admit` counts a new
 * connection unless its address already holds `limit`, and the count drops when it closes.
 */
const connectionsPerAddress = (limit: number) => {
  const open = new Map<string, number>()
  return {
    admit: (socket: Socket): boolean => {
      const address = clientAddress(socket.remoteAddress ?? '')
      const held = open.get(address) ?? 0
      if (held >= limit) return false
      open.set(address, held + 1)
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1
        if (left === 0) open.delete(address)
        else open.set(address, left)
      })
      return true
    },
  }
}

/**
 * Listens with `handle` (an application's `handle`) on `options.host:options.port`, holding each
 * connection to `options.limits`: headers and whole requests must arrive in time, idle
 * keep-alive connections close, past `maxConnections` new connections are closed as they
 * arrive, and a connection its address opens past `maxConnectionsPerAddress` is refused (a
 * request on it answered 429, a health probe served, and closed; closed soon if it sends none), so one client holding
 * connections open cannot take every slot. What Node's parser refuses before a request exists (oversized headers, an unknown
 * method, a request that timed out) is answered like every other refusal, a JSON problem with
 * the security headers, unless an answer has already started on that connection.
 */
export const listen = async (handle: RequestListener, options: ListenOptions, release: () => Promise<void>): Promise<Listening> => {
  const { host, port, limits } = options
  // The latest answer on each connection, so a refusal never cuts into one still being written.
  const answering = new WeakMap<Socket, ServerResponse>()
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often the timeouts above are enforced: a tenth of the shorter one, at most every second.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 10)),
    },
    (req, res) => {
      answering.set(req.socket, res)
      if (!refused.has(req.socket)) handle(req, res)
      else if (isHealthProbe(req)) handle(req, res.setHeader('Connection', 'close'))
      else refuse(res, { _tag: 'TooManyConnections', limit: limits.maxConnectionsPerAddress })
    },
  )
  server.maxConnections = limits.maxConnections
  const perAddress = connectionsPerAddress(limits.maxConnectionsPerAddress)
  const refused = new WeakSet<Socket>()
  server.on('connection', (socket: Socket) => {
    if (perAddress.admit(socket)) return
    refused.add(socket)
    destroySoon(socket)
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const current = answering.get(socket)
    // An answer started and not finished on this connection must not be cut into.
    const midAnswer = current !== undefined && current.headersSent && !current.writableFinished
    if (error.code !== 'ECONNRESET' && socket.writable && !midAnswer) {
      socket.end(rawAnswer(unreadable(error.code)))
      destroySoon(socket)
    } else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
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

/**
 * Listens with `handle` at once (liveness answers, readiness answers 503 while the migrations
 * run, and other requests wait for them at the schema gate), then starts `composition`: the schema brought up to date and the background work started
 * (`Composition.start`). If either fails, the composition is closed (its database left, the
 * embedded server stopped if nothing else uses it) and the error is thrown.
 */
export const listenAndStart = async (composition: Composition, handle: RequestListener, options: ListenOptions): Promise<Listening> => {
  let listening: Listening
  try {
    listening = await listen(handle, options, composition.close)
  } catch (err) {
    await composition.close()
    throw err
  }
  try {
    await composition.start()
  } catch (err) {
    await listening.stop()
    throw err
  }
  return listening
}

/** Composes the service and serves the API on `config.host:config.port` (`listenAndStart`). */
export const startServer = async (config: Config, logger: Logger, database?: OpenDatabase, options: ComposeOptions = {}): Promise<RunningServer> => {
  const composition = await compose(config, logger, database, options)
  const listening = await listenAndStart(composition, createApp(composition.deps, config, logger).handle, { host: config.host, port: config.port, limits: config.connections })
  return { ...listening, deps: composition.deps }
}
