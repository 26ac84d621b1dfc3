import * as t from 'io-ts'
import { arrayOf, boundedString, Instant, integerIn, mergePatch, oneOf, strictObject } from '../foundations/codecs.js'
import type { ClientId, EndpointId, EventId, PartyId } from '../foundations/ids.js'
import { EVENT_TYPES, type EventType } from '../events/event.js'
import { WebhookSecret, WebhookUrl } from './webhook.js'
import type { WebhookAttempt } from './webhook-event.js'

/** A partner's webhook endpoints (docs/events.md "Webhook endpoints"): owned by an API client, subscribed to event types. */

/** An endpoint receives while `enabled`; a `disabled` one is sent nothing (its missed events can be recovered). */
export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const
/** One of `ENDPOINT_STATUSES`. */
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number]

/** Every type, `*` standing for all. */
const ENABLED_EVENTS = ['*', ...EVENT_TYPES] as const

/** One to twelve of `*` and the event types. */
const EnabledEvents = arrayOf(oneOf('EnabledEvent', ENABLED_EVENTS), 1, ENABLED_EVENTS.length)

/** A description for the partner's own records. */
const Description = boundedString('EndpointDescription', 1, 500)

/** How long a rotated-out secret keeps signing, in seconds: up to 7 days (default 24 hours). */
const GracePeriod = integerIn('GracePeriodSeconds', 0, 7 * 86_400)

/** The default grace period of a rotated-out secret, in seconds. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400

/** A new endpoint: `url`, `enabled_events`; optionally a `description` and a `secret` (else the server generates one). */
export const CreateEndpointInput = strictObject(
  'CreateWebhookEndpointInput',
  { url: WebhookUrl, enabled_events: EnabledEvents },
  { description: Description, secret: WebhookSecret },
)

/** A change to an endpoint, as a merge patch: `url`, `enabled_events`, `status`; `description` (null clears it). */
export const UpdateEndpointInput = mergePatch(
  'UpdateWebhookEndpointInput',
  { url: WebhookUrl, enabled_events: EnabledEvents, status: oneOf('EndpointStatus', ENDPOINT_STATUSES) },
  { description: Description },
)

/** A rotation: optionally the new `secret` (else generated) and how long the old one still signs (`grace_period_seconds`). */
export const RotateSecretInput = strictObject('RotateWebhookSecretInput', {}, { secret: WebhookSecret, grace_period_seconds: GracePeriod })

/** A recovery: the events written `since` (inclusive) and, optionally, before `until`. */
export const RecoverInput = strictObject('RecoverWebhookEventsInput', { since: Instant }, { until: Instant })
/** A decoded `RecoverInput`. */
export type RecoverInput = t.TypeOf<typeof RecoverInput>

/**
 * A stored endpoint; the secrets only sealed. It receives the events its owner sees (those of the
 * parties `clientId` onboarded and those of `partyId`, the owner's own party) whose type it enables.
 */
export type EventEndpoint = {
  readonly id: EndpointId
  readonly clientId: ClientId
  readonly partyId: PartyId
  readonly url: string
  readonly description: string | null
  readonly enabledEvents: readonly string[]
  readonly status: EndpointStatus
  readonly sealedSecret: string
  /** The secret a rotation replaced, signing beside the new one until `previousSecretExpiresAt`. */
  readonly previousSealedSecret: string | null
  readonly previousSecretExpiresAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** Whether the endpoint takes events of `type`. */
export const enables = (endpoint: Pick<EventEndpoint, 'enabledEvents'>, type: EventType): boolean =>
  endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type)

/** The sealed secrets that sign a delivery at `now`: the current one, and the rotated-out one within its grace period. */
export const signingSecrets = (endpoint: Pick<EventEndpoint, 'sealedSecret' | 'previousSealedSecret' | 'previousSecretExpiresAt'>, now: Date): readonly string[] =>
  endpoint.previousSealedSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now
    ? [endpoint.sealedSecret, endpoint.previousSealedSecret]
    : [endpoint.sealedSecret]

/** One delivery of an event to an endpoint, with its attempts so far. */
export type EndpointDelivery = {
  readonly endpointId: EndpointId
  readonly eventId: EventId
  readonly eventType: EventType
  readonly status: (typeof DELIVERY_STATUSES)[number]
  readonly attempts: number
  /** Meaningful while `pending`. */
  readonly nextAttemptAt: Date
  readonly lastError: string | null
  readonly createdAt: Date
}

/** The statuses a delivery goes through: `pending` until delivered, or `failed` when its retries ran out. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const

/**
 * A delivery as operators read it (docs/console.md "Webhook deliveries"): with its endpoint's
 * URL, API client and party, and its row's number (`rowId`: rows are numbered as queued, which
 * orders the list).
 */
export type DeliveryRecord = EndpointDelivery & {
  readonly rowId: string
  readonly url: string
  readonly clientId: ClientId
  readonly partyId: PartyId
}

/** A delivery with every attempt so far, oldest first. */
export type DeliveryWithAttempts = DeliveryRecord & { readonly attemptLog: readonly WebhookAttempt[] }

/** Every given field must match. */
export type DeliveryFilter = {
  readonly status?: EndpointDelivery['status']
  readonly endpointId?: EndpointId
  readonly eventId?: EventId
}

/** What a delivery's row id looks like: the decimal row number, below 10^18 (so it fits the column). */
export const isDeliveryRowId = (id: string): boolean => /^[1-9][0-9]{0,17}$/.test(id)
