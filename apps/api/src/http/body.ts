import bodyParser from 'koa-bodyparser'
import type { Middleware } from 'koa'
import type { AppState } from './context.js'
import { fail } from './problems.js'

export const BODY_LIMIT_BYTES = 1024 * 1024

/**
 * Refuses a declared body over the limit before reading it, then parses JSON bodies (objects
 * and arrays only) up to the same limit; a chunked body that grows past it is cut off with 413.
 * Parse failures reach the error handler, which answers 400 `invalid_request`.
 */
export const parseBody = (): Middleware<AppState> => {
  const parser = bodyParser({ enableTypes: ['json'], jsonLimit: `${BODY_LIMIT_BYTES}b`, strict: true }) as unknown as Middleware<AppState>
  return async (ctx, next) => {
    const declared = Number(ctx.get('Content-Length') || '0')
    if (declared > BODY_LIMIT_BYTES) fail({ _tag: 'PayloadTooLarge', limitBytes: BODY_LIMIT_BYTES })
    await parser(ctx, next)
  }
}

/** For routes that take a JSON body (spec §4): anything but `application/json` is a 400. */
export const requireJsonBody: Middleware<AppState> = async (ctx, next) => {
  const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== ''
  if (!hasBody) fail({ _tag: 'InvalidRequest', detail: 'A JSON body is required (Content-Type: application/json).' })
  if (ctx.is('application/json') !== 'application/json') {
    fail({ _tag: 'InvalidRequest', detail: 'Content-Type must be application/json.' })
  }
  await next()
}

/** The parsed JSON body (`{}` when the request had none). */
export const bodyOf = (ctx: { request: unknown }): unknown => (ctx.request as { body?: unknown }).body
