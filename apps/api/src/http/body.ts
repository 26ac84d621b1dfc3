import type { IncomingHttpHeaders } from 'node:http'
import bodyParser from 'koa-bodyparser'
import type { Context, Middleware, Next, ParameterizedContext } from 'koa'
import getRawBody from 'raw-body'
import type { AppState } from './context.js'
import type { Problem } from './problems.js'
import { answerProblem } from './respond.js'

export const BODY_LIMIT_BYTES = 1024 * 1024

/** The media type of a JSON Merge Patch (RFC 7396), which every PATCH also takes. */
const MERGE_PATCH_TYPE = 'application/merge-patch+json'

/**
 * What went wrong with a body the parser could not read. Every failure of reading, decoding or
 * parsing is the request's fault, never a bug: raw-body marks size and encoding errors with a
 * status and a type, co-body marks bad JSON with 400, and zlib fails on a body that does not
 * match its Content-Encoding (`Z_…` codes for gzip and deflate, `ERR__ERROR_FORMAT_…` and
 * others for brotli), so anything else falls back to "could not be read".
 */
const bodyProblem = (error: unknown): Problem => {
  const { status, type, code } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  if (status === 413 || type === 'entity.too.large') return { _tag: 'PayloadTooLarge', limitBytes: BODY_LIMIT_BYTES }
  if (status === 415 || type === 'encoding.unsupported') return { _tag: 'InvalidRequest', detail: 'Unsupported Content-Encoding.' }
  if ((typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_')))) {
    return { _tag: 'InvalidRequest', detail: 'The request body could not be decompressed (Content-Encoding does not match the body).' }
  }
  // co-body marks a JSON syntax error (and a non-object in strict mode) with status 400.
  if (status === 400 && type === undefined) {
    return { _tag: 'InvalidRequest', detail: 'The request body is not valid JSON (an object or array is expected).' }
  }
  return { _tag: 'InvalidRequest', detail: 'The request body could not be read.' }
}

/** Whether a request with these headers carries a body (a Content-Length above zero, or chunked). */
export const declaresBody = (headers: IncomingHttpHeaders): boolean => Number(headers['content-length'] ?? 0) > 0 || (headers['transfer-encoding'] ?? '') !== ''

const hasBody = (ctx: Pick<Context, 'req'>): boolean => declaresBody(ctx.req.headers)

/**
 * Refuses a declared body over the limit before reading it, then parses JSON bodies (objects
 * and arrays only) up to the same limit; a chunked body that grows past it is cut off with 413.
 * A body the parser does not read (another Content-Type, or none, on any route) is read and
 * discarded under the same limit before the route answers: a server that answers and closes
 * while the client is still sending makes the client's TCP stack reset the connection and drop
 * the answer. A body that cannot be read answers 400 `invalid_request` (413 when too large);
 * failures of later middleware pass through untouched.
 */
export const parseBody = (): Middleware<AppState> => {
  const parser = bodyParser({
    enableTypes: ['json'],
    extendTypes: { json: [MERGE_PATCH_TYPE] },
    jsonLimit: `${BODY_LIMIT_BYTES}b`,
    strict: true,
  }) as unknown as Middleware<AppState>
  const parsed = async (): Promise<void> => undefined
  const read = async (ctx: ParameterizedContext<AppState>, next: Next): Promise<void> => {
    try {
      await parser(ctx, parsed)
      if (ctx.request.rawBody === undefined) await getRawBody(ctx.req, { limit: BODY_LIMIT_BYTES })
    } catch (error) {
      return answerProblem(ctx, bodyProblem(error))
    }
    await next()
  }
  return (ctx, next) => {
    const declared = Number(ctx.get('Content-Length') || '0')
    if (declared > BODY_LIMIT_BYTES) return answerProblem(ctx, { _tag: 'PayloadTooLarge', limitBytes: BODY_LIMIT_BYTES })
    if (hasBody(ctx)) return read(ctx, next)
    // Nothing to read (most GETs): the parser would find no body and make it `{}` after asking
    // its type questions; this skips them.
    ctx.request.body = {}
    return next()
  }
}

/**
 * For routes that take a JSON body (spec §4): anything but `application/json` is a 400; a PATCH
 * also takes `application/merge-patch+json`.
 */
export const requireJsonBody: Middleware<AppState> = (ctx, next) => {
  if (!hasBody(ctx)) return answerProblem(ctx, { _tag: 'InvalidRequest', detail: 'A JSON body is required (Content-Type: application/json).' })
  if (ctx.method === 'PATCH') {
    if (ctx.is('application/json', MERGE_PATCH_TYPE) === false) {
      return answerProblem(ctx, { _tag: 'InvalidRequest', detail: `Content-Type must be application/json or ${MERGE_PATCH_TYPE}.` })
    }
  } else if (ctx.is('application/json') !== 'application/json') {
    return answerProblem(ctx, { _tag: 'InvalidRequest', detail: 'Content-Type must be application/json.' })
  }
  return next()
}

/** The parsed JSON body (`{}` when the request had none). */
export const bodyOf = (ctx: { request: unknown }): unknown => (ctx.request as { body?: unknown }).body
