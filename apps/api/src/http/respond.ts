import * as E from 'fp-ts/lib/Either.js'
import type { AppContext } from './context.js'
import type { Problem } from './problems.js'
import { fail } from './problems.js'

/** Right: `status` with the body. Left: the problem, mapped by the error handler. */
export const respond = <A>(ctx: AppContext, status: number, result: E.Either<Problem, A>): void => {
  if (E.isLeft(result)) return fail(result.left)
  ctx.status = status
  ctx.body = result.right
}
