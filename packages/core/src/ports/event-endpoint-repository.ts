import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId, EndpointId, EventId } from '../domain/foundations/ids.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { DeliveryFilter, DeliveryRecord, DeliveryWithAttempts, EndpointDelivery, EventEndpoint } from '../domain/webhooks/event-endpoint.js'

/**
 * Partners' webhook endpoints and their deliveries. Deliveries are written with the events
 * (the stores that write events queue one for each enabled endpoint that takes it); this port
 * manages the endpoints and queues again what an endpoint missed.
 */
export type EventEndpointRepository = {
  /** Stores a new endpoint. */
  readonly insert: (endpoint: EventEndpoint) => TE.TaskEither<StoreUnavailable, void>
  /** None when missing or another client's. */
  readonly findForClient: (clientId: ClientId, id: EndpointId) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /** In `(createdAt, id)` order, at most `page.limit + 1`. */
  readonly listForClient: (clientId: ClientId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly EventEndpoint[]>
  /** Writes the endpoint's settings as given (URL, description, event types, status: the last write wins), never its secrets; none when it is gone. */
  readonly update: (endpoint: EventEndpoint) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /**
   * In one step, makes `sealedSecret` the endpoint's secret and the one it replaces its previous
   * secret until `previousExpiresAt` (none kept when null); none when it is missing or another client's.
   */
  readonly rotateSecret: (clientId: ClientId, id: EndpointId, sealedSecret: string, previousExpiresAt: Date | null, now: Date) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /** Deletes the endpoint with its deliveries; none when missing or another client's. */
  readonly remove: (clientId: ClientId, id: EndpointId) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /**
   * Queues event `eventId` for `endpoint` again, due at `now`, whatever its type, if the
   * endpoint's owner sees the event; none if not. Asked for while an attempt holds the delivery's
   * lease, it is folded into that attempt: the attempt's outcome stands (never two sends at once).
   * `audit` (an operator's retry), when given, is written with it.
   */
  readonly resend: (endpoint: EventEndpoint, eventId: EventId, now: Date, audit: AuditEvent | null) => TE.TaskEither<StoreUnavailable, O.Option<EndpointDelivery>>
  /** Any client's endpoint, for operators; none when missing. */
  readonly find: (id: EndpointId) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /** Every endpoint's deliveries matching `filter`, in the order they were queued (`rowId`), at most `page.limit + 1`; the cursor's id is a row id, its time unused. */
  readonly listDeliveries: (filter: DeliveryFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly DeliveryRecord[]>
  /** One delivery with its attempts; none when there is none of `eventId` to `endpointId`. */
  readonly findDelivery: (endpointId: EndpointId, eventId: EventId) => TE.TaskEither<StoreUnavailable, O.Option<DeliveryWithAttempts>>
  /** Queues, due at `now`, every event written in `[since, until)` that the endpoint takes and has not been delivered; how many. */
  readonly recover: (endpoint: EventEndpoint, since: Date, until: Date, now: Date) => TE.TaskEither<StoreUnavailable, number>
}
