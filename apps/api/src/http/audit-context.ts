import { apiKeyActor, namedOperatorActor, OPERATOR, type AuditContext } from '@lendgate/core'
import type { AppContext } from './context.js'

/**
 * Who is acting in this request, for the audit log: on operator routes, the named operator of a
 * console session (decision 149), else whoever holds the mint secret or the internal token; the
 * calling key on partner routes; with the request id, so an audit event leads to the request's log lines.
 */
export const operatorContext = (ctx: AppContext): AuditContext => {
  const named = ctx.state.operator
  return { actor: named === undefined ? OPERATOR : namedOperatorActor(named.operator), requestId: ctx.state.requestId }
}

export const partnerContext = (ctx: AppContext): AuditContext => {
  const caller = ctx.state.caller
  if (caller === undefined) throw new Error('partner route without an authenticated caller')
  return { actor: apiKeyActor(caller), requestId: ctx.state.requestId }
}
