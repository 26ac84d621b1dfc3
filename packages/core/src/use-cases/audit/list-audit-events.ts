import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { AUDIT_ACTIONS, type AuditEvent } from '../../domain/audit/audit-event.js'
import { oneOf, Uuid } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { decodeFilteredPageRequest, pageBy, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import type { AuditLog } from '../../ports/audit-log.js'
import { ClientId, PartyId } from '../../domain/foundations/ids.js'

/** Each optional: `action`, `subject_id`, `api_client_id`, `party_id`. */
export const AuditEventFilters = queryFilters('AuditEventFilters', {
  action: oneOf('AuditAction', AUDIT_ACTIONS),
  subject_id: Uuid,
  api_client_id: ClientId,
  party_id: PartyId,
})

export const auditPosition = (e: AuditEvent) => ({ createdAt: e.occurredAt, id: e.id })

/** The audit log for operators, newest first, optionally narrowed by action, subject, client and party. */
export const listAuditEvents =
  (deps: { readonly audit: Pick<AuditLog, 'list'> }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<AuditEvent>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(AuditEventFilters, command)),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.audit.list(
            {
              ...(filter.action === undefined ? {} : { action: filter.action }),
              ...(filter.subject_id === undefined ? {} : { subjectId: filter.subject_id }),
              ...(filter.api_client_id === undefined ? {} : { apiClientId: filter.api_client_id }),
              ...(filter.party_id === undefined ? {} : { partyId: filter.party_id }),
            },
            page,
          ),
          TE.map((rows) => pageBy(rows, page.limit, auditPosition)),
        ),
      ),
    )
