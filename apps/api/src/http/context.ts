import type { Caller, Operator, OperatorSession, World } from '@lendgate/core'
import type { RouterContext } from '@koa/router'
import type { Logger } from 'pino'

/** What middleware puts on `ctx.state` for the rest of the request. */
export type AppState = {
  requestId: string
  log: Logger
  /** Set by partner authentication. */
  caller?: Caller
  /** Set by a console session's authentication (decision 149): the named operator, its session and the cookie's token. */
  operator?: { readonly operator: Operator; readonly session: OperatorSession; readonly token: string }
  /** The request's `Idempotency-Key`, set by the idempotency middleware when it carries one. */
  idempotencyKey?: string
  /** The world the request acts on: the caller key's environment on partner routes, live (or the operator's choice) on internal ones; set by the router. */
  world?: World
  /** The time of the caller's party's test clock (decision 131), which the request reads as now; set by the router. */
  frozenAt?: Date
}

export type AppContext = RouterContext<AppState>
