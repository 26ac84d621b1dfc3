import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { EventDraft, EventType, LoggedEvent } from '../domain/events/event.js'
import type { ApplicationId, ClientId, LoanId, PartyId } from '../domain/foundations/ids.js'
import { enables, type DeliveryRecord, type EndpointDelivery, type EventEndpoint } from '../domain/webhooks/event-endpoint.js'
import type { EventEndpointRepository } from '../ports/event-endpoint-repository.js'
import type { EventLog } from '../ports/event-log.js'
import { eventPosition } from '../use-cases/events/list-events.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryPage } from './in-memory-paging.js'

/** The in-memory event log, with what the stores that write to it call. */
export type InMemoryEventLog = EventLog & {
  /** Writes `events` as the database does: each loan's numbered after its last. */
  readonly append: (events: readonly EventDraft[]) => void
  /** Every event, in the log's order. */
  readonly all: () => readonly LoggedEvent[]
  /** Deletes the events of parties `partyIds`, loans `loanIds` and applications `applicationIds`, and client `clientId`'s endpoints (a wipe of the test world); how many events went. */
  readonly forget: (clientId: ClientId, partyIds: ReadonlySet<PartyId>, loanIds: ReadonlySet<LoanId>, applicationIds: ReadonlySet<ApplicationId>) => number
  /** The partners' endpoints, whose deliveries `append` queues. */
  readonly endpoints: EventEndpointRepository & {
    /** Every delivery queued, in order. */
    readonly deliveries: () => readonly EndpointDelivery[]
  }
}

/**
 * The event log in memory, the PostgreSQL adapter's semantics; `onboarderOf` names the API client
 * that onboarded a party (who sees its events); an operator's retry is audited in `audit`. It has
 * no delivery worker, so deliveries record no attempts.
 */
export const inMemoryEventLog = (onboarderOf: (partyId: PartyId) => ClientId | null = () => null, audit: InMemoryAuditLog = inMemoryAuditLog()): InMemoryEventLog => {
  type Stored = LoggedEvent & { readonly clientId: ClientId | null }
  let events: Stored[] = []
  let seq = 0
  /** Each loan's count of events, which pruning does not lower (the database keeps it on the loan). */
  const counts = new Map<LoanId, number>()
  let endpoints: EventEndpoint[] = []
  let deliveries: EndpointDelivery[] = []
  /** Each delivery's row number, by `endpointId/eventId`, as the table's identity numbers its rows. */
  const rowIds = new Map<string, bigint>()
  const rowKey = (d: Pick<EndpointDelivery, 'endpointId' | 'eventId'>): string => `${d.endpointId}/${d.eventId}`
  /** `delivery` with its endpoint and row number, as operators read it. */
  const recordOf = (delivery: EndpointDelivery): DeliveryRecord | undefined => {
    const endpoint = endpoints.find((e) => e.id === delivery.endpointId)
    const rowId = rowIds.get(rowKey(delivery))
    return endpoint === undefined || rowId === undefined ? undefined : { ...delivery, rowId: String(rowId), url: endpoint.url, clientId: endpoint.clientId, partyId: endpoint.partyId }
  }
  const seenBy = (endpoint: EventEndpoint) => (e: Stored) => e.clientId === endpoint.clientId || e.partyId === endpoint.partyId
  /** Queues `event` for `endpoint` at `now`, or queues again one that was not delivered. */
  const queue = (endpoint: EventEndpoint, event: Stored, now: Date, again: boolean): EndpointDelivery | undefined => {
    const at = deliveries.findIndex((d) => d.endpointId === endpoint.id && d.eventId === event.id)
    const fresh: EndpointDelivery = { endpointId: endpoint.id, eventId: event.id, eventType: event.type as EventType, status: 'pending', attempts: 0, nextAttemptAt: now, lastError: null, createdAt: now }
    if (at === -1) {
      deliveries.push(fresh)
      rowIds.set(rowKey(fresh), BigInt(rowIds.size + 1))
      return fresh
    }
    const existing = deliveries[at]!
    if (!again) return undefined
    deliveries[at] = { ...existing, status: 'pending', nextAttemptAt: now }
    return deliveries[at]
  }
  return {
    append: (drafts) => {
      for (const draft of drafts) {
        const sequence = draft.loanId === null ? null : (counts.get(draft.loanId) ?? 0) + 1
        if (draft.loanId !== null && sequence !== null) counts.set(draft.loanId, sequence)
        const event: Stored = { ...draft, sequence, seq: (seq += 1), clientId: onboarderOf(draft.partyId) }
        events.push(event)
        for (const endpoint of endpoints) {
          if (endpoint.status === 'enabled' && enables(endpoint, event.type) && seenBy(endpoint)(event)) queue(endpoint, event, event.occurredAt, false)
        }
      }
    },
    all: () => events.map(({ clientId: _c, ...e }) => e),
    forget: (clientId, partyIds, loanIds, applicationIds) => {
      const before = events.length
      events = events.filter((e) => !partyIds.has(e.partyId) && (e.loanId === null || !loanIds.has(e.loanId)) && !applicationIds.has(e.resourceId as ApplicationId))
      for (const loanId of loanIds) counts.delete(loanId)
      endpoints = endpoints.filter((e) => e.clientId !== clientId)
      deliveries = deliveries.filter((d) => endpoints.some((e) => e.id === d.endpointId) && events.some((e) => e.id === d.eventId))
      return before - events.length
    },
    endpoints: {
      deliveries: () => [...deliveries],
      insert: (endpoint) => TE.fromIO(() => void endpoints.push(endpoint)),
      findForClient: (clientId, id) => TE.right(O.fromNullable(endpoints.find((e) => e.id === id && e.clientId === clientId))),
      listForClient: (clientId, page) => TE.right(inMemoryPage(endpoints.filter((e) => e.clientId === clientId), page)),
      update: (endpoint) =>
        TE.fromIO(() => {
          const at = endpoints.findIndex((e) => e.id === endpoint.id)
          if (at === -1) return O.none
          const { url, description, enabledEvents, status, updatedAt } = endpoint
          endpoints[at] = { ...endpoints[at]!, url, description, enabledEvents, status, updatedAt }
          return O.some(endpoints[at]!)
        }),
      rotateSecret: (clientId, id, sealedSecret, previousExpiresAt, now) =>
        TE.fromIO(() => {
          const at = endpoints.findIndex((e) => e.id === id && e.clientId === clientId)
          if (at === -1) return O.none
          const current = endpoints[at]!
          endpoints[at] = {
            ...current,
            sealedSecret,
            previousSealedSecret: previousExpiresAt === null ? null : current.sealedSecret,
            previousSecretExpiresAt: previousExpiresAt,
            updatedAt: now,
          }
          return O.some(endpoints[at]!)
        }),
      remove: (clientId, id) =>
        TE.fromIO(() => {
          const gone = endpoints.find((e) => e.id === id && e.clientId === clientId)
          if (gone === undefined) return O.none
          endpoints = endpoints.filter((e) => e !== gone)
          deliveries = deliveries.filter((d) => d.endpointId !== id)
          return O.some(gone)
        }),
      resend: (endpoint, eventId, now, audited) =>
        TE.fromIO(() => {
          const event = events.find((e) => e.id === eventId && seenBy(endpoint)(e))
          const queued = event === undefined ? undefined : queue(endpoint, event, now, true)
          if (queued !== undefined && audited !== null) audit.append(audited)
          return O.fromNullable(queued)
        }),
      find: (id) => TE.right(O.fromNullable(endpoints.find((e) => e.id === id))),
      listDeliveries: (filter, page) =>
        TE.fromIO(() => {
          const after = O.toUndefined(page.after)
          return deliveries
            .filter((d) => (filter.status === undefined || d.status === filter.status) && (filter.endpointId === undefined || d.endpointId === filter.endpointId) && (filter.eventId === undefined || d.eventId === filter.eventId))
            .flatMap((d) => recordOf(d) ?? [])
            .filter((r) => after === undefined || BigInt(r.rowId) > BigInt(after.id))
            .sort((a, b) => (BigInt(a.rowId) < BigInt(b.rowId) ? -1 : 1))
            .slice(0, page.limit + 1)
        }),
      findDelivery: (endpointId, eventId) =>
        TE.fromIO(() => {
          const delivery = deliveries.find((d) => d.endpointId === endpointId && d.eventId === eventId)
          const record = delivery === undefined ? undefined : recordOf(delivery)
          return record === undefined ? O.none : O.some({ ...record, attemptLog: [] })
        }),
      recover: (endpoint, since, until, now) =>
        TE.fromIO(() => {
          const missed = events.filter((e) => seenBy(endpoint)(e) && enables(endpoint, e.type) && e.occurredAt >= since && e.occurredAt < until)
          const undelivered = missed.filter((e) => !deliveries.some((d) => d.endpointId === endpoint.id && d.eventId === e.id && d.status === 'delivered'))
          for (const event of undelivered) queue(endpoint, event, now, true)
          return undelivered.length
        }),
    },
    list: (audience, filter, page) =>
      TE.right(
        inMemoryPage(
          events
            .filter((e) => e.clientId === audience.clientId || e.partyId === audience.partyId)
            .filter((e) => filter.type === undefined || e.type === filter.type)
            .filter((e) => filter.resourceId === undefined || e.resourceId === filter.resourceId)
            .filter((e) => filter.from === undefined || e.occurredAt >= filter.from)
            .filter((e) => filter.to === undefined || e.occurredAt < filter.to),
          page,
          eventPosition,
        ).map(({ clientId: _c, ...e }) => e),
      ),
    prune: (before, limit) =>
      TE.fromIO(() => {
        const doomed = new Set(events.filter((e) => e.occurredAt < before).sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime()).slice(0, limit).map((e) => e.seq))
        events = events.filter((e) => !doomed.has(e.seq))
        return { deleted: doomed.size, more: events.some((e) => e.occurredAt < before), deferred: false }
      }),
    prepare: () => TE.right(0),
  }
}
