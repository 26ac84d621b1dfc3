import { instantText } from '../domain/foundations/instant.js'
import type { DeliveryRecord, DeliveryWithAttempts, EndpointDelivery, EndpointStatus, EventEndpoint } from '../domain/webhooks/event-endpoint.js'

/** A webhook endpoint as the API returns it: never a secret, but the one an answer made (`secret`, that answer only). */
export type EventEndpointView = {
  readonly webhook_endpoint_id: string
  readonly url: string
  readonly description: string | null
  readonly enabled_events: readonly string[]
  readonly status: EndpointStatus
  readonly secret?: string
  /** Until when the secret a rotation replaced still signs; null when none does. */
  readonly previous_secret_expires_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

/** `secret` is shown only in the answer that made it (creation, rotation). */
export const eventEndpointView = (e: EventEndpoint, secret?: string): EventEndpointView => ({
  webhook_endpoint_id: e.id,
  url: e.url,
  description: e.description,
  enabled_events: e.enabledEvents,
  status: e.status,
  ...(secret === undefined ? {} : { secret }),
  previous_secret_expires_at: e.previousSecretExpiresAt === null ? null : instantText(e.previousSecretExpiresAt),
  created_at: instantText(e.createdAt),
  updated_at: instantText(e.updatedAt),
})

/** A delivery of an event to an endpoint, as the API returns it. */
export const endpointDeliveryView = (d: EndpointDelivery) => ({
  webhook_endpoint_id: d.endpointId,
  event_id: d.eventId,
  type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.status === 'pending' ? instantText(d.nextAttemptAt) : null,
  last_error: d.lastError,
  created_at: instantText(d.createdAt),
})

/** What a delivery shows (`endpointDeliveryView`). */
export type EndpointDeliveryView = ReturnType<typeof endpointDeliveryView>

/** A delivery as operators read it: whose endpoint it went to (URL, API client, party). */
export const deliveryRecordView = (d: DeliveryRecord) => ({
  ...endpointDeliveryView(d),
  url: d.url,
  api_client_id: d.clientId,
  party_id: d.partyId,
})

/** What an operator's list of deliveries shows (`deliveryRecordView`). */
export type DeliveryRecordView = ReturnType<typeof deliveryRecordView>

/** A delivery with every attempt, oldest first: when, to which URL, how long, and what came back. */
export const deliveryWithAttemptsView = (d: DeliveryWithAttempts) => ({
  ...deliveryRecordView(d),
  attempt_log: d.attemptLog.map((a) => ({
    attempt_number: a.attemptNumber,
    url: a.url,
    started_at: instantText(a.startedAt),
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    error: a.error,
  })),
})

/** What one delivery shows an operator (`deliveryWithAttemptsView`). */
export type DeliveryWithAttemptsView = ReturnType<typeof deliveryWithAttemptsView>
