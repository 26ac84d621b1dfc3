import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId, EndpointId, EventId } from '../domain/foundations/ids.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { EndpointDelivery, EventEndpoint } from '../domain/webhooks/event-endpoint.js'

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
  /** Writes the endpoint as given (the last write wins); none when it is gone. */
  readonly update: (endpoint: EventEndpoint) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /** Deletes the endpoint with its deliveries; none when missing or another client's. */
  readonly remove: (clientId: ClientId, id: EndpointId) => TE.TaskEither<StoreUnavailable, O.Option<EventEndpoint>>
  /**
   * Queues event `eventId` for `endpoint` again, due at `now`, whatever its type, if the
   * endpoint's owner sees the event; none if not. A delivery already under way finishes first.
   */
  readonly resend: (endpoint: EventEndpoint, eventId: EventId, now: Date) => TE.TaskEither<StoreUnavailable, O.Option<EndpointDelivery>>
  /** Queues, due at `now`, every event written in `[since, until)` that the endpoint takes and has not been delivered; how many. */
  readonly recover: (endpoint: EventEndpoint, since: Date, until: Date, now: Date) => TE.TaskEither<StoreUnavailable, number>
}
