import * as TE from 'fp-ts/lib/TaskEither.js'
import type { RequestCommand } from '../http/command.js'
import type { AppContext } from '../http/context.js'
import { livemodeOf, withLivemode } from '../http/livemode.js'
import type { Problem } from '../http/problems.js'
import { operation, type OperationId } from './operations.js'

/** The real handler of an operation of the table in operations.ts. */
export type Route = {
  /**
   * The operation's work on the request's command (`requestCommand`): a Right is the success body,
   * answered with the operation's status; a Left the problem.
   */
  readonly run: (ctx: AppContext, command: RequestCommand) => TE.TaskEither<Problem, unknown>
  /** See IdempotencyOptions.forReplay. */
  readonly forReplay?: (body: unknown) => unknown
}

/** Handlers by operationId: `Routes` names every operation, so a missing or misspelt one does not compile. */
export type Routes<Id extends OperationId = OperationId> = { readonly [K in Id]: Route }

/**
 * A group of handlers, its operationIds checked against the table and kept for `Routes`. Each
 * success body gets `livemode` on its resources where its operation places them
 * (`Operation.livemode`, `withLivemode`) from the request's world, so that an idempotent replay,
 * which keeps the body as answered, says it too.
 */
export const routes = <Id extends OperationId>(handlers: Routes<Id>): Routes<Id> =>
  Object.fromEntries(
    Object.entries<Route>(handlers).map(([id, route]) => {
      const placement = operation(id as OperationId).livemode ?? 'body'
      const run: Route['run'] = (ctx, command) => TE.map((body) => withLivemode(placement, livemodeOf(ctx.state), body))(route.run(ctx, command))
      return [id, { ...route, run }]
    }),
  ) as Routes<Id>

/** The caller set by partner authentication; routes of partner operations always have one. */
export const callerOf = (ctx: AppContext) => {
  const caller = ctx.state.caller
  if (caller === undefined) throw new Error('partner route without an authenticated caller')
  return caller
}
