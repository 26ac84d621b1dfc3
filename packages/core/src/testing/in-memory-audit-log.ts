import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import { isAfter } from '../domain/foundations/pagination.js'
import type { AuditLog } from '../ports/audit-log.js'
import type { ClientId, PartyId } from '../domain/foundations/ids.js'
import { auditPosition } from '../use-cases/audit/list-audit-events.js'

/** An `AuditLog` in-memory repositories append to. */
export type InMemoryAuditLog = AuditLog & {
  /** Every event, in the order written. */
  readonly all: () => readonly AuditEvent[]
  /** Records an event inside an in-memory repository's write. */
  readonly append: (event: AuditEvent) => void
  /** Deletes the events of client `clientId` and of parties `partyIds` (a wipe of the test world: only its trail is not append-only). */
  readonly forget: (clientId: ClientId, partyIds: ReadonlySet<PartyId>) => void
}

/** The audit log in memory; in-memory repositories given it append to it with their changes. */
export const inMemoryAuditLog = (): InMemoryAuditLog => {
  const events: AuditEvent[] = []
  const append = (event: AuditEvent): void => {
    events.push(event)
  }
  return {
    all: () => [...events],
    append,
    forget: (clientId, partyIds) => {
      events.splice(0, events.length, ...events.filter((e) => e.apiClientId !== clientId && (e.partyId === null || !partyIds.has(e.partyId))))
    },
    record: (event) => TE.fromIO(() => append(event)),
    list: (filter, page) =>
      TE.right(
        events
          .filter(
            (e) =>
              (filter.action === undefined || e.action === filter.action) &&
              (filter.subjectId === undefined || e.subject.id === filter.subjectId) &&
              (filter.apiClientId === undefined || e.apiClientId === filter.apiClientId) &&
              (filter.partyId === undefined || e.partyId === filter.partyId),
          )
          .filter((e) => O.isNone(page.after) || isAfter(page.after.value, auditPosition(e)))
          .sort((a, b) => (isAfter(auditPosition(a), auditPosition(b)) ? -1 : isAfter(auditPosition(b), auditPosition(a)) ? 1 : 0))
          .slice(0, page.limit + 1),
      ),
  }
}
