import type { World } from '../../core-deps.js'
import type { PartyView } from '../../views/onboarding.js'
import { instantText } from '../foundations/instant.js'
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

/** `evt_` and 32 hex digits from a UUID. */
const webhookEventId = (uuid: string): EventId => `evt_${uuid.replace(/-/g, '')}` as EventId

/** The body is the getPartyBySessionId answer as of approval. */
export const partyReadyEvent = (eventUuid: string, sessionId: SessionId, party: PartyView, now: Date, world: World): WebhookEvent => ({
  id: webhookEventId(eventUuid),
  sessionId,
  type: 'party.ready',
  body: JSON.stringify({ type: 'party.ready', livemode: world === 'live', timestamp: instantText(now), data: party }),
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

/** An event with its attempts. */
export type WebhookDelivery = WebhookEvent & { readonly attemptLog: readonly WebhookAttempt[] }
