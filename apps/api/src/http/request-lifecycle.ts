import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { Caller } from '@lendgate/core'
import type { Middleware } from 'koa'
import type { Logger } from 'pino'
import type { Metrics } from '../metrics.js'
import type { AppContext, AppState } from './context.js'
import { METRICS_PATH } from './probes.js'
import { answerProblem } from './respond.js'

/**
 * Headers every API response carries (OWASP's REST guidance): no sniffing, no framing, no
 * referrer, no caching of account data, no active content in a JSON answer, HTTPS only once a
 * browser has seen the API over TLS. The reference page (`/docs`) replaces the content policy.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
}

const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS)

const stampSecurityHeaders = (res: ServerResponse): void => {
  for (const [name, value] of SECURITY_HEADER_ENTRIES) res.setHeader(name, value)
}

/** An incoming request id is kept only if it is short and plain; otherwise a new one is made. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * `ctx.state` of one request. `log` is a pino child bound to the request id, made only when
 * something logs on the request's behalf (most requests log only their access line, which binds
 * the id itself).
 */
class RequestState implements AppState {
  caller?: Caller
  idempotencyKey?: string
  #log: Logger | undefined

  constructor(
    private readonly logger: Logger,
    public requestId: string,
  ) {}

  get log(): Logger {
    return (this.#log ??= this.logger.child({ request_id: this.requestId }))
  }
}

/** The id of a request that sent `incoming` as its `X-Request-Id` ('' if none). */
export const requestIdFor = (incoming: string): string => (SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID())

/** One request's access line: what was asked, how it ended, by whom (docs/configuration.md). */
export type AccessRecord = {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly status: number
  /** `process.hrtime.bigint()` when the request came in. */
  readonly started: bigint
  readonly operationId: string | undefined
  readonly caller: Caller | undefined
  /** The named operator of a console session's request (decision 149). */
  readonly operatorId: string | undefined
}

/**
 * The writer of access lines on `logger`. The line holds only fields chosen here (no header,
 * body or query string), so it needs no redaction pass.
 */
export const accessLogOn = (logger: Logger): ((record: AccessRecord) => void) => {
  const accessLog = logger.child({}, { redact: [] })
  return (record) => {
    const durationMs = Number(process.hrtime.bigint() - record.started) / 1e6
    accessLog.info(
      {
        request_id: record.requestId,
        method: record.method,
        path: record.path,
        status: record.status,
        duration_ms: Math.round(durationMs * 100) / 100,
        // The matched operation's id, set by the route table (undefined when nothing matched).
        operation_id: record.operationId,
        client_id: record.caller?.clientId,
        key_id: record.caller?.keyId,
        operator_id: record.operatorId,
      },
      'request',
    )
  }
}

/** Spec §1/§9: `/public/v1/...` is `/public/...`. */
const withoutVersionPrefix = (path: string): string =>
  path === '/public/v1' || path.startsWith('/public/v1/') ? `/public${path.slice('/public/v1'.length)}` : path

/**
 * The outermost middleware, the frame of every request: assigns the request id and the request's
 * logger, sets the security headers, rewrites `/public/v1/...` to `/public/...` (spec §1/§9), turns
 * a thrown exception (a bug) into a logged 500 `internal_error`, and at the end writes the access
 * line and counts the request in the metrics (not `/metrics` itself).
 */
export const requestLifecycle = (logger: Logger, metrics: Pick<Metrics, 'requestServed'>): Middleware<AppState> => {
  const accessLog = accessLogOn(logger)
  return async (ctx, next) => {
    const started = process.hrtime.bigint()
    const requestId = requestIdFor(ctx.get('X-Request-Id'))
    ctx.state = new RequestState(logger, requestId)
    ctx.res.setHeader('X-Request-Id', requestId)
    stampSecurityHeaders(ctx.res)
    const path = ctx.path
    const normal = withoutVersionPrefix(path)
    if (normal !== path) ctx.path = normal
    try {
      await next()
    } catch (error) {
      ctx.state.log.error({ err: error }, 'unhandled error')
      answerProblem(ctx, { _tag: 'InternalError' })
    } finally {
      if (ctx.path !== METRICS_PATH) metrics.requestServed((ctx as AppContext).routerName, ctx.status, Number(process.hrtime.bigint() - started) / 1e9)
      accessLog({
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        started,
        operationId: (ctx as AppContext).routerName,
        caller: ctx.state.caller,
        operatorId: ctx.state.operator?.operator.id,
      })
    }
  }
}
