import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type * as O from 'fp-ts/lib/Option.js'
import type { WebhookDelivery, WebhookEvent } from '../domain/webhooks/webhook-event.js'
import type { EventId, SessionId } from '../domain/foundations/ids.js'

/** The webhook outbox; approval writes its events (`saveApproved`). */
export type WebhookEventRepository = {
  /** In `(createdAt, id)` order, at most `page.limit + 1`. */
  readonly listForSession: (sessionId: SessionId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly WebhookEvent[]>
  /** For an endpoint registered after approval. */
  readonly hurryPending: (sessionId: SessionId, at: Date) => TE.TaskEither<StoreUnavailable, void>
  /** Events with their attempt logs. */
  readonly listDeliveries: (sessionId: SessionId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly WebhookDelivery[]>
  /** Manual retry; none if not the session's. */
  readonly retryNow: (sessionId: SessionId, eventId: EventId, at: Date) => TE.TaskEither<StoreUnavailable, O.Option<WebhookEvent>>
}
