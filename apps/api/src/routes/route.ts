import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { RequestCommand } from '../http/command.js'
import type { AppContext } from '../http/context.js'
import type { Problem } from '../http/problems.js'
import type { OperationId } from './operations.js'

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

/** A group of handlers, its operationIds checked against the table and kept for `Routes`. */
export const routes = <Id extends OperationId>(handlers: Routes<Id>): Routes<Id> => handlers

/** The caller set by partner authentication; routes of partner operations always have one. */
export const callerOf = (ctx: AppContext) => {
  const caller = ctx.state.caller
  if (caller === undefined) throw new Error('partner route without an authenticated caller')
  return caller
}
