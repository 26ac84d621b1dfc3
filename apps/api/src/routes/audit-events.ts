import { auditEventView, envelope, listAuditEvents } from '@lendgate/core'
import type { AppDeps } from '../deps.js'
import { answer } from '../http/respond.js'
import type { Routes } from './route.js'

/** The audit log, for operators (INTERNAL_API_TOKEN only; docs/api.md "Audit log"). */
export const auditEventRoutes = (deps: AppDeps): Routes => ({
  listAuditEvents: {
    handle: (ctx) => answer(ctx, 200, listAuditEvents(deps)(ctx.query), envelope(auditEventView)),
  },
})
