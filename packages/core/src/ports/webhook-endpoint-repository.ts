import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { WebhookEndpoint } from '../domain/webhooks/webhook.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** One webhook endpoint per onboarding session. */
export type WebhookEndpointRepository = {
  /** Creates or replaces the session's endpoint; a replacement keeps the original `createdAt`. Returns what is stored. */
  readonly upsert: (endpoint: WebhookEndpoint) => TE.TaskEither<StoreUnavailable, WebhookEndpoint>
  /** The endpoint of the session `sessionId`, if one is registered. */
  readonly findBySession: (sessionId: SessionId) => TE.TaskEither<StoreUnavailable, O.Option<WebhookEndpoint>>
}
