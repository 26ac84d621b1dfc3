import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ParameterizedContext } from 'koa'
import type { AppContext, AppState } from './context.js'
import { toHttpError } from './error-mapper.js'
import type { Problem } from './problems.js'

/** The `Content-Type` Koa gives a JSON body. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** Answers `status` with `body` as JSON. */
export const sendJson = (ctx: ParameterizedContext, status: number, body: unknown): void => {
  ctx.status = status
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE)
  ctx.body = body
}

/**
 * Ends the request with `problem`'s status, body and headers (`toHttpError`), logging what
 * operators must see (a store outage, a failed code delivery). Every expected outcome that is
 * not a success is answered through here: handlers (`answer`), guards and the body, idempotency
 * and routing middleware alike. An exception is a bug (the request lifecycle answers it 500).
 */
export const answerProblem = (ctx: ParameterizedContext<AppState>, problem: Problem): void => {
  if (problem._tag === 'StoreUnavailable') ctx.state.log.error({ err: problem.cause }, 'store unavailable')
  else if (problem._tag === 'VerificationDeliveryFailed') ctx.state.log.warn({ reason: problem.reason }, 'verification delivery failed')
  const { status, body, headers } = toHttpError(problem)
  sendJson(ctx, status, body)
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) ctx.set(name, value)
}

/** Runs an operation's work and answers: its Right as the body, with `status`; its Left as the problem. */
export const answer = async (ctx: AppContext, status: number, task: TE.TaskEither<Problem, unknown>): Promise<void> => {
  const result = await task()
  if (E.isLeft(result)) answerProblem(ctx, result.left)
  else sendJson(ctx, status, result.right)
}
