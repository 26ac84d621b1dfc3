import type { AuditAction, AuditActor, AuditDetails, AuditEvent, AuditSubjectType } from '../domain/audit/audit-event.js'
import { instantText } from '../domain/foundations/instant.js'

/** An audit event as the API returns it. */
export type AuditEventView = {
  readonly audit_event_id: string
  readonly occurred_at: string
  readonly actor: AuditActor
  readonly action: AuditAction
  readonly subject: { readonly type: AuditSubjectType; readonly id: string }
  readonly api_client_id: string | null
  readonly party_id: string | null
  readonly request_id: string | null
  readonly details: AuditDetails
}

/** The API's view of an audit event. */
export const auditEventView = (e: AuditEvent): AuditEventView => ({
  audit_event_id: e.id,
  occurred_at: instantText(e.occurredAt),
  actor: e.actor,
  action: e.action,
  subject: e.subject,
  api_client_id: e.apiClientId,
  party_id: e.partyId,
  request_id: e.requestId,
  details: e.details,
})
