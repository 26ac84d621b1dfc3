import type { EventDraft } from '../events/event.js'
import type { EventId, SessionId } from '../foundations/ids.js'

/**
 * An outbox event, written in the transaction of the change it reports (CONTRACT.md "Webhooks").
 * `body` is signed and sent as is on every attempt; `id` is the `webhook-id` across retries.
 */
export type WebhookEvent = {
  readonly id: EventId
  readonly sessionId: SessionId
  readonly type: 'party.ready'
  readonly body: string
  readonly status: 'pending' | 'delivered' | 'failed'
  readonly attempts: number
  /** Meaningful while `pending`. */
  readonly nextAttemptAt: Date
  readonly createdAt: Date
}

/** `party.ready` twice over, with one id: in the event log (`logged`) and queued for the session's own endpoint (`queued`, its body the event as the log shows it). */
export type PartyReady = { readonly logged: EventDraft; readonly queued: WebhookEvent }

/** One recorded delivery attempt. */
export type WebhookAttempt = {
  readonly attemptNumber: number
  readonly url: string
  readonly startedAt: Date
  readonly durationMs: number
  readonly statusCode: number | null
  readonly error: string | null
}

/** An event with its attempts. */
export type WebhookDelivery = WebhookEvent & { readonly attemptLog: readonly WebhookAttempt[] }
