import { randomUUID } from 'node:crypto'
import type { Middleware } from 'koa'
import type { Logger } from 'pino'
import type { AppState } from './context.js'
import { toHttpError } from './error-mapper.js'
import { ProblemResponse, type Problem } from './problems.js'

/** An incoming request id is kept only if it is short and plain; otherwise a new one is made. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Errors thrown by koa-bodyparser (raw-body) carry a status and a type. */
const bodyParserProblem = (error: unknown): Problem | undefined => {
  if (typeof error !== 'object' || error === null) return undefined
  const { status, type, code } = error as { status?: unknown; type?: unknown; code?: unknown }
  // A Content-Encoding the body does not match (corrupt gzip/deflate) fails inside zlib.
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return { _tag: 'InvalidRequest', detail: 'The request body could not be decompressed (Content-Encoding does not match the body).' }
  }
  if (status === 413 || type === 'entity.too.large') return { _tag: 'PayloadTooLarge', limitBytes: 1024 * 1024 }
  // co-body marks a JSON syntax error (and a non-object in strict mode) with status 400.
  if (status === 400) {
    return { _tag: 'InvalidRequest', detail: 'The request body is not valid JSON (an object or array is expected).' }
  }
  if (status === 415 || type === 'encoding.unsupported') return { _tag: 'InvalidRequest', detail: 'Unsupported Content-Encoding.' }
  return undefined
}

/**
 * The outermost middleware: assigns the request id, gives the request a child logger, turns
 * every failure into the JSON error body (a `ProblemResponse` as mapped; anything else as a
 * logged 500 `internal_error`), and writes one access log line per request.
 */
export const requestLifecycle =
  (logger: Logger): Middleware<AppState> =>
  async (ctx, next) => {
    const started = process.hrtime.bigint()
    const incoming = ctx.get('X-Request-Id')
    const requestId = SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
    ctx.state.requestId = requestId
    ctx.state.log = logger.child({ request_id: requestId })
    ctx.set('X-Request-Id', requestId)
    try {
      await next()
    } catch (error) {
      const problem: Problem | undefined = error instanceof ProblemResponse ? error.problem : bodyParserProblem(error)
      if (problem === undefined) ctx.state.log.error({ err: error }, 'unhandled error')
      else if (problem._tag === 'StoreUnavailable') ctx.state.log.error({ err: problem.cause }, 'store unavailable')
      else if (problem._tag === 'VerificationDeliveryFailed') ctx.state.log.warn({ reason: problem.reason }, 'verification delivery failed')
      const { status, body, headers } = toHttpError(problem ?? { _tag: 'InternalError' })
      ctx.status = status
      ctx.body = body
      for (const [name, value] of Object.entries(headers ?? {})) ctx.set(name, value)
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          duration_ms: Math.round(durationMs * 100) / 100,
          operation_id: ctx.state.operationId,
          client_id: ctx.state.caller?.clientId,
          key_id: ctx.state.caller?.keyId,
        },
        'request',
      )
    }
  }

/** Spec §1/§9: `/public/v1/...` is `/public/...`; rewritten before routing and authentication. */
export const normalizeVersionPrefix: Middleware<AppState> = async (ctx, next) => {
  if (ctx.path === '/public/v1' || ctx.path.startsWith('/public/v1/')) ctx.path = `/public${ctx.path.slice('/public/v1'.length)}`
  await next()
}
