import { actorId, type AuditAction, type AuditActor, type AuditDetails, type AuditEvent, type AuditLog, type AuditSubjectType, type OperatorId } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely'
import type { AuditEventsTable, Database } from './schema.js'
import { query } from './store-errors.js'

const toActor = (row: Selectable<AuditEventsTable>): AuditActor => {
  switch (row.actor_type) {
    case 'api_key':
      return { type: 'api_key', id: row.actor_id ?? '' }
    case 'operator':
      return row.actor_id === null ? { type: 'operator' } : { type: 'operator', id: row.actor_id as OperatorId }
    case 'system':
      return { type: 'system' }
  }
}

const toAuditEvent = (row: Selectable<AuditEventsTable>): AuditEvent => ({
  id: row.id,
  occurredAt: row.occurred_at,
  actor: toActor(row),
  action: row.action as AuditAction,
  subject: { type: row.subject_type as AuditSubjectType, id: row.subject_id },
  apiClientId: row.api_client_id,
  partyId: row.party_id,
  requestId: row.request_id,
  details: (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as AuditDetails,
})

/** The row of `event` in `audit_events`, to insert alone (`auditEventInsert`) or as part of a larger statement. */
export const auditEventColumns = (event: AuditEvent) => ({
  id: event.id,
  occurred_at: event.occurredAt,
  actor_type: event.actor.type,
  actor_id: actorId(event.actor),
  action: event.action,
  subject_type: event.subject.type,
  subject_id: event.subject.id,
  api_client_id: event.apiClientId,
  party_id: event.partyId,
  request_id: event.requestId,
  details: JSON.stringify(event.details),
})

/** The insert of `event`. */
export const auditEventInsert = (db: Kysely<Database>, event: AuditEvent) => db.insertInto('audit_events').values(auditEventColumns(event))

/**
 * Writes `event` on `db`, which is the transaction of the change it records wherever there is
 * one (repositories call this inside their transactions): the event exists if and only if the
 * change does. No event (a write the use case does not audit) writes nothing.
 */
export const insertAuditEvent = async (db: Kysely<Database>, event: AuditEvent | null): Promise<void> => {
  if (event !== null) await auditEventInsert(db, event).execute()
}

/** The audit log on PostgreSQL (migration 0012: append-only, indexed for the listing's filters). */
export const postgresAuditLog = (db: Kysely<Database>): AuditLog => ({
  record: (event) => query(() => insertAuditEvent(db, event)),

  list: (filter, page) =>
    query(async () => {
      let q = db.selectFrom('audit_events').selectAll()
      if (filter.action !== undefined) q = q.where('action', '=', filter.action)
      if (filter.subjectId !== undefined) q = q.where('subject_id', '=', filter.subjectId)
      if (filter.apiClientId !== undefined) q = q.where('api_client_id', '=', filter.apiClientId)
      if (filter.partyId !== undefined) q = q.where('party_id', '=', filter.partyId)
      // Newest first: the next page holds the rows strictly before the cursor's position.
      if (O.isSome(page.after)) q = q.where(sql<SqlBool>`(occurred_at, id) < (${page.after.value.createdAt}, ${page.after.value.id})`)
      const rows = await q
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute()
      return rows.map(toAuditEvent)
    }),
})
