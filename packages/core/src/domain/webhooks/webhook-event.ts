import type { PartyView } from '../../views/onboarding.js'
import { instantText } from '../foundations/instant.js'
import type { EventId, SessionId } from '../foundations/ids.js'

/**
 * An outbound event in the outbox (CONTRACT.md "Webhooks"). Written in the same transaction as
 * the change it reports, so it can never be lost or sent for a change that did not happen.
 * `body` is the exact JSON text that is signed and sent on every attempt; `id` is the
 * `webhook-id`, the same across retries.
 */
export type WebhookEvent = {
  readonly id: EventId
  /** The onboarding session whose endpoint receives it. */
  readonly sessionId: SessionId
  readonly type: 'party.ready'
  readonly body: string
  readonly status: 'pending' | 'delivered' | 'failed'
  /** Delivery attempts made so far. */
  readonly attempts: number
  /** When the next attempt is due (meaningful while `pending`). */
  readonly nextAttemptAt: Date
  readonly createdAt: Date
}

/** `evt_` and 32 hex digits from a UUID. */
const webhookEventId = (uuid: string): EventId => `evt_${uuid.replace(/-/g, '')}` as EventId

/** The party.ready event for an approved party: the getPartyBySessionId body as of approval. */
export const partyReadyEvent = (eventUuid: string, sessionId: SessionId, party: PartyView, now: Date): WebhookEvent => ({
  id: webhookEventId(eventUuid),
  sessionId,
  type: 'party.ready',
  body: JSON.stringify({ type: 'party.ready', timestamp: instantText(now), data: party }),
  status: 'pending',
  attempts: 0,
  nextAttemptAt: now,
  createdAt: now,
})

/** One recorded delivery attempt. */
export type WebhookAttempt = {
  readonly attemptNumber: number
  readonly url: string
  readonly startedAt: Date
  readonly durationMs: number
  readonly statusCode: number | null
  readonly error: string | null
}

/** An event with its attempts, for the delivery log. */
export type WebhookDelivery = WebhookEvent & { readonly attemptLog: readonly WebhookAttempt[] }
