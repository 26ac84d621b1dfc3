import type { PartyView } from './party.js'

/**
 * An outbound event in the outbox (CONTRACT.md "Webhooks"). Written in the same transaction as
 * the change it reports, so it can never be lost or sent for a change that did not happen.
 * `body` is the exact JSON text that is signed and sent on every attempt; `id` is the
 * `webhook-id`, the same across retries.
 */
export type WebhookEvent = {
  readonly id: string
  readonly sessionId: string
  readonly type: 'party.ready'
  readonly body: string
  readonly status: 'pending' | 'delivered' | 'failed'
  readonly attempts: number
  readonly nextAttemptAt: Date
  readonly createdAt: Date
}

/** `evt_` and 32 hex digits from a UUID. */
export const webhookEventId = (uuid: string): string => `evt_${uuid.replace(/-/g, '')}`

/** The party.ready event for an approved party: the getPartyBySessionId body as of approval. */
export const partyReadyEvent = (eventUuid: string, sessionId: string, party: PartyView, now: Date): WebhookEvent => ({
  id: webhookEventId(eventUuid),
  sessionId,
  type: 'party.ready',
  body: JSON.stringify({ type: 'party.ready', timestamp: now.toISOString(), data: party }),
  status: 'pending',
  attempts: 0,
  nextAttemptAt: now,
  createdAt: now,
})
