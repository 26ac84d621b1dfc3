import type { AppContext } from '../http/context.js'

/** A real handler for an operation of the table in operations.ts. */
export type Route = {
  readonly handle: (ctx: AppContext) => Promise<void>
  /** See IdempotencyOptions.forReplay. */
  readonly forReplay?: (body: unknown) => unknown
}

export type Routes = Readonly<Record<string, Route>>

/** The caller set by partner authentication; routes of partner operations always have one. */
export const callerOf = (ctx: AppContext) => {
  const caller = ctx.state.caller
  if (caller === undefined) throw new Error('partner route without an authenticated caller')
  return caller
}
