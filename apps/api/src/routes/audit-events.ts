import { auditEventView, envelope, listAuditEvents } from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { routes } from './route.js'

/** The audit log, for operators (INTERNAL_API_TOKEN only; docs/api.md "Audit log"). */
export const auditEventRoutes = (deps: AppDeps) =>
  routes({
  listAuditEvents: {
    run: (_ctx, command) => pipe(listAuditEvents(deps)(command), TE.map(envelope(auditEventView))),
  },
})
