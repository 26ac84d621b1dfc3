import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ParameterizedContext } from 'koa'
import type { AppContext } from './context.js'
import type { Problem } from './problems.js'
import { fail } from './problems.js'

/** The `Content-Type` Koa gives a JSON body. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** Answers `status` with `body` as JSON. */
export const sendJson = (ctx: ParameterizedContext, status: number, body: unknown): void => {
  ctx.status = status
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE)
  ctx.body = body
}

/**
 * Runs a use case and answers: its Right, through `view`, with `status`; its Left as the
 * problem, mapped by the error handler.
 */
export const answer = async <A>(ctx: AppContext, status: number, task: TE.TaskEither<Problem, A>, view: (value: A) => unknown): Promise<void> => {
  const result = await task()
  if (E.isLeft(result)) return fail(result.left)
  sendJson(ctx, status, view(result.right))
}
