import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type * as O from 'fp-ts/lib/Option.js'
import type { WebhookDelivery, WebhookEvent } from '../domain/webhooks/webhook-event.js'
import type { EventId, SessionId } from '../domain/foundations/ids.js'

/** The webhook outbox. Events are written by the approval (OnboardingSessionRepository.saveApproved). */
export type WebhookEventRepository = {
  /** The session's events in `(createdAt, id)` order, at most `page.limit + 1` after `page.after`. */
  readonly listForSession: (sessionId: SessionId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly WebhookEvent[]>
  /** Makes the session's pending events due at `at` (used when an endpoint is registered after approval). */
  readonly hurryPending: (sessionId: SessionId, at: Date) => TE.TaskEither<StoreUnavailable, void>
  /** The session's events with their attempt logs, in `(createdAt, id)` order, at most `page.limit + 1`. */
  readonly listDeliveries: (sessionId: SessionId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly WebhookDelivery[]>
  /** Makes the session's event pending and due at `at` again (manual retry); returns it, none if not the session's. */
  readonly retryNow: (sessionId: SessionId, eventId: EventId, at: Date) => TE.TaskEither<StoreUnavailable, O.Option<WebhookEvent>>
}
