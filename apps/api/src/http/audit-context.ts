import { apiKeyActor, OPERATOR, type AuditContext } from '@lendgate/core'
import type { AppContext } from './context.js'

/**
 * Who is acting in this request, for the audit log: the operator on routes authenticated by
 * the mint secret or the internal token (whoever holds them), the calling key on partner
 * routes; with the request id, so an audit event leads to the request's log lines.
 */
export const operatorContext = (ctx: AppContext): AuditContext => ({ actor: OPERATOR, requestId: ctx.state.requestId })

export const partnerContext = (ctx: AppContext): AuditContext => {
  const caller = ctx.state.caller
  if (caller === undefined) throw new Error('partner route without an authenticated caller')
  return { actor: apiKeyActor(caller), requestId: ctx.state.requestId }
}
