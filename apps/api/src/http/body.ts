import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { finished } from 'node:stream/promises'
import bodyParser from 'koa-bodyparser'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Context, Middleware, ParameterizedContext } from 'koa'
import type { AppState } from './context.js'
import { parseJsonBody } from './json-body.js'
import type { Problem } from './problems.js'
import { answerProblem } from './respond.js'

export const BODY_LIMIT_BYTES = 1024 * 1024

/** The media type of a JSON Merge Patch (RFC 7396), which every PATCH also takes. */
const MERGE_PATCH_TYPE = 'application/merge-patch+json'

const JSON_TYPES = ['application/json', MERGE_PATCH_TYPE]

/**
 * How much of a body nobody reads is read off the connection and dropped before the answer,
 * when the caller is not an authenticated partner: enough for any body a client sends by
 * mistake, while a client without credentials cannot make an instance read a mebibyte per
 * request. Past it the answer closes the connection instead.
 */
export const UNREAD_BODY_LIMIT_BYTES = 64 * 1024

const tooLarge: Problem = { _tag: 'PayloadTooLarge', limitBytes: BODY_LIMIT_BYTES }

/**
 * What went wrong with a body that could not be read. Every failure of reading or decoding is
 * the request's fault, never a bug: raw-body marks size and encoding errors with a status and a
 * type, and zlib fails on a body that does not match its Content-Encoding (`Z_…` codes for gzip
 * and deflate, `ERR__ERROR_FORMAT_…` and others for brotli), so anything else falls back to
 * "could not be read".
 */
const bodyProblem = (error: unknown): Problem => {
  const { status, type, code } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  if (status === 413 || type === 'entity.too.large') return tooLarge
  if (status === 415 || type === 'encoding.unsupported') return { _tag: 'InvalidRequest', detail: 'Unsupported Content-Encoding.' }
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_'))) {
    return { _tag: 'InvalidRequest', detail: 'The request body could not be decompressed (Content-Encoding does not match the body).' }
  }
  return { _tag: 'InvalidRequest', detail: 'The request body could not be read.' }
}

/** Whether a request with these headers carries a body (a Content-Length above zero, or chunked). */
export const declaresBody = (headers: IncomingHttpHeaders): boolean => Number(headers['content-length'] ?? 0) > 0 || (headers['transfer-encoding'] ?? '') !== ''

const hasBody = (ctx: Pick<Context, 'req'>): boolean => declaresBody(ctx.req.headers)

/** Ends the connection after this answer: what is left of the request's body is never read. */
const closeAfterAnswer = (ctx: ParameterizedContext<AppState>): void => {
  ctx.set('Connection', 'close')
}

/**
 * Reads and drops what remains of a request's body, up to `limit` bytes, holding none of it:
 * true once the body has ended, false when it went past the limit or the client went away.
 */
const discardBody = async (req: IncomingMessage, limit: number): Promise<boolean> => {
  const tooMuch = new AbortController()
  let received = 0
  const count = (chunk: Buffer): void => {
    received += chunk.length
    if (received > limit) {
      req.pause()
      tooMuch.abort()
    }
  }
  req.on('data', count)
  try {
    await finished(req, { signal: tooMuch.signal })
    return true
  } catch {
    return false
  } finally {
    req.off('data', count)
  }
}

/**
 * The bounds on every request's body, whatever answers it, placed before routing:
 * - a declared `Content-Length` over the limit is answered 413 at once, nothing read, and the
 *   connection closed;
 * - a body the answer did not need (a 401 before authentication, a route that takes none, a
 *   404) is read and dropped before the answer is written, never buffered, decompressed or
 *   parsed: a server that answers and closes while the client is still sending makes the
 *   client's TCP stack reset the connection and drop the answer. An authenticated partner's is
 *   read up to the body limit, anyone else's up to `UNREAD_BODY_LIMIT_BYTES`; past that the
 *   answer closes the connection instead (and the answer may be lost to the reset).
 * Only `readBody`, behind a route's authentication, reads a body for what it says.
 */
export const bodyBounds: Middleware<AppState> = async (ctx, next) => {
  if (Number(ctx.get('Content-Length') || '0') > BODY_LIMIT_BYTES) {
    closeAfterAnswer(ctx)
    return answerProblem(ctx, tooLarge)
  }
  await next()
  if (hasBody(ctx) && !ctx.req.readableEnded && ctx.response.get('Connection') !== 'close') {
    const limit = ctx.state.caller === undefined ? UNREAD_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES
    if (!(await discardBody(ctx.req, limit))) closeAfterAnswer(ctx)
  }
}

/** Reads a JSON body as text, decompressed and held to the limit; `readBody` parses it. */
const textParser = bodyParser({
  enableTypes: ['text'],
  extendTypes: { text: JSON_TYPES },
  textLimit: `${BODY_LIMIT_BYTES}b`,
}) as unknown as Middleware<AppState>

/** The parser runs as a step of its own: nothing follows it. */
const noNext = async (): Promise<void> => undefined

/**
 * Why a route that takes a JSON body (spec §4) refuses this request before reading it: no body, or
 * a `Content-Type` other than `application/json` (a PATCH also takes `application/merge-patch+json`).
 */
const jsonBodyRefusal = (ctx: ParameterizedContext<AppState>): Problem | undefined => {
  if (!hasBody(ctx)) return { _tag: 'InvalidRequest', detail: 'A JSON body is required (Content-Type: application/json).' }
  if (ctx.method === 'PATCH') {
    return ctx.is(JSON_TYPES) === false ? { _tag: 'InvalidRequest', detail: `Content-Type must be application/json or ${MERGE_PATCH_TYPE}.` } : undefined
  }
  return ctx.is('application/json') !== 'application/json' ? { _tag: 'InvalidRequest', detail: 'Content-Type must be application/json.' } : undefined
}

/**
 * The body's text, decompressed and held to the limit (the parser leaves it as `rawBody`); or the
 * problem that stopped reading it, the connection then closed after the answer (the rest was not read).
 */
const bodyText = async (ctx: ParameterizedContext<AppState>): Promise<E.Either<Problem, string>> => {
  try {
    await textParser(ctx, noNext)
  } catch (error) {
    closeAfterAnswer(ctx)
    return E.left(bodyProblem(error))
  }
  const text = ctx.request.rawBody
  return E.right(typeof text === 'string' ? text : '')
}

/** The field of the command a file body is given as (`readFileBody`). */
export const FILE_FIELD = 'file'

/**
 * The body of a route that takes a file (an inbound bank file): required, `Content-Type:
 * text/plain` (a NACHA file is ASCII text), read decompressed and held to the body limit like a
 * JSON body, and given to the command as its `file` field (`FILE_FIELD`), the text as sent.
 */
export const readFileBody: Middleware<AppState> = async (ctx, next) => {
  if (!hasBody(ctx)) return answerProblem(ctx, { _tag: 'InvalidRequest', detail: 'The file is required as the request body (Content-Type: text/plain).' })
  if (ctx.is('text/plain') !== 'text/plain') return answerProblem(ctx, { _tag: 'InvalidRequest', detail: 'Content-Type must be text/plain.' })
  const text = await bodyText(ctx)
  if (E.isLeft(text)) return answerProblem(ctx, text.left)
  ctx.request.body = { [FILE_FIELD]: text.right }
  return next()
}

/**
 * A route's body, read only after its caller is authenticated (`buildRouter`). Where the route
 * `requires` a JSON body, a request without one is refused first (`jsonBodyRefusal`). A JSON body is
 * read by the body parser, then parsed by `parseJsonBody` (nesting depth, integer literals, objects
 * and arrays only); `ctx.request.body` is the result, or `{}` when there is no JSON body. A body
 * that cannot be read answers 400 `invalid_request` (413 when too large) and closes the connection,
 * since the rest of it was not read.
 */
export const readBody =
  (requires: boolean): Middleware<AppState> =>
  async (ctx, next) => {
    const refusal = requires ? jsonBodyRefusal(ctx) : undefined
    if (refusal !== undefined) return answerProblem(ctx, refusal)
    if (!hasBody(ctx) || ctx.is(JSON_TYPES) === false) {
      ctx.request.body = {}
      return next()
    }
    const body = pipe(await bodyText(ctx), E.chainW(parseJsonBody))
    if (E.isLeft(body)) return answerProblem(ctx, body.left)
    ctx.request.body = body.right
    return next()
  }
