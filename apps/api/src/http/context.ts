import type { Caller } from '@lendgate/core'
import type { RouterContext } from '@koa/router'
import type { Logger } from 'pino'

/** What middleware puts on `ctx.state` for the rest of the request. */
export type AppState = {
  requestId: string
  log: Logger
  /** Set by partner authentication. */
  caller?: Caller
  /** The operation the request was routed to, for logs. */
  operationId?: string
}

export type AppContext = RouterContext<AppState>
