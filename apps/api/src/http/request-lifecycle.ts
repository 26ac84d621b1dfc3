import { randomUUID } from 'node:crypto'
import type { Caller } from '@lendgate/core'
import type { Middleware } from 'koa'
import type { Logger } from 'pino'
import type { Metrics } from '../metrics.js'
import type { AppContext, AppState } from './context.js'
import { METRICS_PATH } from './probes.js'
import { answerProblem } from './respond.js'

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
      },
      'request',
    )
  }
}

/**
 * The outermost middleware: assigns the request id, gives the request its logger, turns a
 * thrown exception (a bug: expected outcomes are answered, not thrown) into a logged 500
 * `internal_error`, writes one access log line per request and counts it in the metrics.
 */
export const requestLifecycle = (logger: Logger, metrics: Pick<Metrics, 'requestServed'>): Middleware<AppState> => {
  const accessLog = accessLogOn(logger)
  return async (ctx, next) => {
    const started = process.hrtime.bigint()
    const requestId = requestIdFor(ctx.get('X-Request-Id'))
    ctx.state = new RequestState(logger, requestId)
    ctx.res.setHeader('X-Request-Id', requestId)
    try {
      await next()
    } catch (error) {
      ctx.state.log.error({ err: error }, 'unhandled error')
      answerProblem(ctx, { _tag: 'InternalError' })
    } finally {
      // Prometheus's scrapes are not traffic: counting them would only count the counting.
      if (ctx.path !== METRICS_PATH) metrics.requestServed((ctx as AppContext).routerName, ctx.status, Number(process.hrtime.bigint() - started) / 1e9)
      accessLog({
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        started,
        operationId: (ctx as AppContext).routerName,
        caller: ctx.state.caller,
      })
    }
  }
}

/** Spec §1/§9: `/public/v1/...` is `/public/...`. */
export const withoutVersionPrefix = (path: string): string =>
  path === '/public/v1' || path.startsWith('/public/v1/') ? `/public${path.slice('/public/v1'.length)}` : path

/** Rewrites the version prefix away (`withoutVersionPrefix`) before routing and authentication. */
export const normalizeVersionPrefix: Middleware<AppState> = (ctx, next) => {
  const path = ctx.path
  const normal = withoutVersionPrefix(path)
  if (normal !== path) ctx.path = normal
  return next()
}
