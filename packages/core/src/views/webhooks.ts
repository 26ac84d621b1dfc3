import type { WebhookEndpoint } from '../domain/webhooks/webhook.js'
import type { WebhookDelivery, WebhookEvent } from '../domain/webhooks/webhook-event.js'
import { instantText } from '../domain/foundations/instant.js'

/** `webhook_secret` only when the server generated it, in that answer only. */
export type WebhookEndpointView = {
  readonly session_id: string
  readonly webhook_url: string
  readonly webhook_secret?: string
  readonly created_at: string
  readonly updated_at: string
}

/** `generatedSecret` is shown only in the registration that made it. */
export const webhookEndpointView = (endpoint: WebhookEndpoint, generatedSecret: string | undefined): WebhookEndpointView => ({
  session_id: endpoint.sessionId,
  webhook_url: endpoint.url,
  ...(generatedSecret === undefined ? {} : { webhook_secret: generatedSecret }),
  created_at: instantText(endpoint.createdAt),
  updated_at: instantText(endpoint.updatedAt),
})

/** An event as the API returns it. */
export type WebhookEventView = {
  readonly event_id: string
  readonly type: string
  readonly status: WebhookEvent['status']
  readonly attempts: number
  /** Null once delivered or failed. */
  readonly next_attempt_at: string | null
  readonly created_at: string
}

/** The API's view of an event. */
export const webhookEventView = (e: WebhookEvent): WebhookEventView => ({
  event_id: e.id,
  type: e.type,
  status: e.status,
  attempts: e.attempts,
  next_attempt_at: e.status === 'pending' ? instantText(e.nextAttemptAt) : null,
  created_at: instantText(e.createdAt),
})

/** An event with its attempt log. */
export type WebhookDeliveryView = WebhookEventView & {
  readonly attempt_log: readonly {
    readonly attempt_number: number
    readonly started_at: string
    readonly duration_ms: number
    readonly status_code: number | null
    readonly error: string | null
  }[]
}

/** An event and every attempt to deliver it. */
export const webhookDeliveryView = (d: WebhookDelivery): WebhookDeliveryView => ({
  ...webhookEventView(d),
  attempt_log: d.attemptLog.map((a) => ({
    attempt_number: a.attemptNumber,
    started_at: instantText(a.startedAt),
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    error: a.error,
  })),
})
