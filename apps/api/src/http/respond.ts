import { storeFailureKind } from '@lendgate/adapters'
import { concurrentUpdate, invalidRequest, type StoreUnavailable } from '@lendgate/core'
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
 * A store failure as what it says about the request (`storeFailureKind`), logged for operators
 * either way: a value the store cannot hold is the request's fault (400; a codec should have
 * refused it first, hence the warning), a statement beaten by a concurrent one that nothing
 * more specific caught is a 409 to retry, and anything else stays a 500 `store_unavailable`.
 */
const judgedStoreFailure = (ctx: ParameterizedContext<AppState>, problem: StoreUnavailable): Problem => {
  switch (storeFailureKind(problem.cause)) {
    case 'refused_value':
      ctx.state.log.warn({ err: problem.cause }, 'the store refused a value the codecs accepted')
      return invalidRequest('A value in the request cannot be stored (too long, out of range, or not of its type).')
    case 'lost_race':
      ctx.state.log.warn({ err: problem.cause }, 'a statement lost to a concurrent one')
      return concurrentUpdate('record')
    case 'failure':
      ctx.state.log.error({ err: problem.cause }, 'store unavailable')
      return problem
  }
}

/**
 * Ends the request with `problem`'s status, body and headers (`toHttpError`), logging what
 * operators must see (a store failure, a failed code delivery). Every expected outcome that is
 * not a success is answered through here: handlers (`answer`), guards and the body, idempotency
 * and routing middleware alike. An exception is a bug (the request lifecycle answers it 500).
 */
export const answerProblem = (ctx: ParameterizedContext<AppState>, given: Problem): void => {
  const problem = given._tag === 'StoreUnavailable' ? judgedStoreFailure(ctx, given) : given
  if (problem._tag === 'VerificationDeliveryFailed') ctx.state.log.warn({ reason: problem.reason }, 'verification delivery failed')
  if (problem._tag === 'ServerMisconfigured') ctx.state.log.error({ setting: problem.setting }, `${problem.setting} is not set: the request cannot be served`)
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
