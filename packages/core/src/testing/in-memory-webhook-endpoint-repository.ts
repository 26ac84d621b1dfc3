import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { WebhookEndpoint } from '../domain/webhooks/webhook.js'
import type { WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** Webhook endpoints in memory, one per session, with the same semantics as the PostgreSQL repository. */
export const inMemoryWebhookEndpointRepository = (): WebhookEndpointRepository & {
  /** Deletes the endpoints of sessions `sessionIds` (a wipe of the test world). */
  readonly forgetSessions: (sessionIds: ReadonlySet<SessionId>) => void
} => {
  const endpoints = new Map<string, WebhookEndpoint>()
  return {
    forgetSessions: (sessionIds) => {
      for (const id of sessionIds) endpoints.delete(id)
    },
    upsert: (endpoint) =>
      TE.fromIO(() => {
        const existing = endpoints.get(endpoint.sessionId)
        const stored = existing === undefined ? endpoint : { ...endpoint, createdAt: existing.createdAt }
        endpoints.set(endpoint.sessionId, stored)
        return stored
      }),
    findBySession: (sessionId) => TE.fromIO(() => O.fromNullable(endpoints.get(sessionId))),
  }
}
