import type * as T from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { AttemptOutcome, AttemptResult } from '../domain/webhooks/webhook-delivery.js'
import type { EventId } from '../domain/foundations/ids.js'

/**
 * One delivery due: an event's `body` for `url`, signed with each of `sealedSecrets` (an
 * endpoint's rotated-out secret signs too during its grace period) under `webhook-id` `eventId`.
 * `deliveryId` names it to `record`; `interruptedLeaseEnd`: an earlier lease ran out with no
 * attempt recorded (a crash mid-attempt).
 */
export type DueDelivery = {
  readonly deliveryId: string
  readonly eventId: EventId
  readonly body: string
  /** Attempts so far. */
  readonly attempts: number
  readonly url: string
  readonly sealedSecrets: readonly string[]
  readonly interruptedLeaseEnd: Date | null
}

/** An attempt's result, delivery, number (1 first), URL and start. */
export type DeliveryAttempt = AttemptResult & {
  readonly deliveryId: string
  readonly attemptNumber: number
  readonly url: string
  readonly startedAt: Date
}

/**
 * The outbox seen by delivery workers: a claimed event is leased to one worker; a lease that runs
 * out makes it claimable again, so a crash means a redelivery with the same id, never a loss.
 */
export type WebhookDeliveryQueue = {
  /** Oldest due first. */
  readonly claimDue: (now: Date, limit: number, leaseMs: number) => TE.TaskEither<StoreUnavailable, readonly DueDelivery[]>
  /** Records the attempt and applies its outcome, releasing the lease, atomically. */
  readonly record: (attempt: DeliveryAttempt, outcome: AttemptOutcome) => TE.TaskEither<StoreUnavailable, void>
  /** An attempt a crash cut short counts as one; the lease is kept. */
  readonly recordInterrupted: (attempt: DeliveryAttempt) => TE.TaskEither<StoreUnavailable, void>
  /** Pending events at `now` by what they wait for. */
  readonly backlog: (now: Date) => TE.TaskEither<StoreUnavailable, WebhookBacklog>
}

/** Pending events by what they wait for: a worker (`due`), a retry's delay (`scheduled`), or an endpoint (`awaitingEndpoint`). */
export type WebhookBacklog = {
  readonly due: number
  readonly scheduled: number
  readonly awaitingEndpoint: number
  readonly oldestDueAt: Date | null
}

/** One signed request, ready to send. */
export type WebhookRequest = { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }

/** Never fails: a timeout or network error is a result with `error`. */
export type WebhookSender = {
  /** POSTs `request`; resolves with what came back. */
  readonly send: (request: WebhookRequest) => T.Task<AttemptResult>
}

/** Standard Webhooks headers for one attempt. */
export type WebhookSigner = (secret: string, id: EventId, at: Date, body: string) => Readonly<Record<string, string>>
