import type * as T from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { AttemptOutcome, AttemptResult } from '../domain/webhooks/webhook-delivery.js'
import type { WebhookEvent } from '../domain/webhooks/webhook-event.js'
import type { EventId } from '../domain/foundations/ids.js'

/**
 * An event due for delivery, with where to send it and its sealed signing secret.
 * `interruptedLeaseEnd` is the end of an earlier lease on it that ran out with no attempt
 * recorded: a worker stopped mid-attempt (a crash), and the receiver may have got that attempt.
 */
export type DueDelivery = {
  readonly event: WebhookEvent
  readonly url: string
  readonly sealedSecret: string
  readonly interruptedLeaseEnd: Date | null
}

/** One attempt to record: its result, which event, which attempt (1 for the first), where and when. */
export type DeliveryAttempt = AttemptResult & {
  readonly eventId: EventId
  readonly attemptNumber: number
  readonly url: string
  readonly startedAt: Date
}

/**
 * The outbox seen by delivery workers. `claimDue` leases due events (pending, due, with an
 * endpoint) so that concurrent workers, in this process or others, never get the same event;
 * a lease that runs out (the worker died) makes the event claimable again, so a crash leads to
 * a redelivery with the same id, never a loss.
 */
export type WebhookDeliveryQueue = {
  /** Leases up to `limit` due events for `leaseMs`, oldest due first. */
  readonly claimDue: (now: Date, limit: number, leaseMs: number) => TE.TaskEither<StoreUnavailable, readonly DueDelivery[]>
  /** Records the attempt and applies its outcome to the event, releasing the lease, atomically. */
  readonly record: (attempt: DeliveryAttempt, outcome: AttemptOutcome) => TE.TaskEither<StoreUnavailable, void>
  /** Records an attempt a crash cut short (it counts as one), keeping the current lease. */
  readonly recordInterrupted: (attempt: DeliveryAttempt) => TE.TaskEither<StoreUnavailable, void>
  /** The pending events at `now`, by what they wait for (`WebhookBacklog`). */
  readonly backlog: (now: Date) => TE.TaskEither<StoreUnavailable, WebhookBacklog>
}

/**
 * Pending webhook events at one moment, by what they wait for: `due`, a worker (their next
 * attempt's time has come and their session has an endpoint; `oldestDueAt` is the earliest such
 * time, null when none is due); `scheduled`, the time of their next attempt (a retry's delay);
 * `awaitingEndpoint`, their session to register an endpoint (they wait for the partner, not for
 * Lendgate).
 */
export type WebhookBacklog = {
  readonly due: number
  readonly scheduled: number
  readonly awaitingEndpoint: number
  readonly oldestDueAt: Date | null
}

/** One signed webhook request, ready to send. */
export type WebhookRequest = { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }

/**
 * Sends one webhook request. Never fails: a timeout or network error is a result with `error`.
 *
 * @property send - POSTs `request` and resolves with what came back.
 */
export type WebhookSender = { readonly send: (request: WebhookRequest) => T.Task<AttemptResult> }

/** Standard Webhooks headers for one attempt. */
export type WebhookSigner = (secret: string, id: EventId, at: Date, body: string) => Readonly<Record<string, string>>
