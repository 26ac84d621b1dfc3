import * as E from 'fp-ts/lib/Either.js'
import type { ParameterizedContext } from 'koa'
import type { AppContext } from './context.js'
import type { Problem } from './problems.js'
import { fail } from './problems.js'

/** The `Content-Type` Koa gives a JSON body. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/**
 * Answers `status` with `body` as JSON. The type is set on the Node response before the body:
 * handed an object without one, Koa looks `json` up through mime-types and builds the same
 * header again on every response (about 1.5 µs of a GET's CPU; docs/benchmarks.md).
 */
export const sendJson = (ctx: ParameterizedContext, status: number, body: unknown): void => {
  ctx.status = status
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE)
  ctx.body = body
}

/** Right: `status` with the body. Left: the problem, mapped by the error handler. */
export const respond = <A>(ctx: AppContext, status: number, result: E.Either<Problem, A>): void => {
  if (E.isLeft(result)) return fail(result.left)
  sendJson(ctx, status, result.right)
}
