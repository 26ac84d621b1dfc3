import { auditEventView, envelope, listAuditEvents } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { respond } from '../http/respond.js'
import type { Routes } from './route.js'

/** The audit log, for operators (INTERNAL_API_TOKEN only; docs/api.md "Audit log"). */
export const auditEventRoutes = (deps: AppDeps): Routes => ({
  listAuditEvents: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listAuditEvents(deps)(ctx.query), TE.map(envelope(auditEventView)))()),
  },
})
