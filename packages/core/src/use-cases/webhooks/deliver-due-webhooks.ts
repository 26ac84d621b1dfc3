import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import { afterAttempt, type AttemptOutcome, type AttemptResult } from '../../domain/webhooks/webhook-delivery.js'
import type { Clock } from '../../ports/clock.js'
import type { DeliveryAttempt, DueDelivery, WebhookDeliveryQueue, WebhookSender, WebhookSigner } from '../../ports/webhook-delivery-queue.js'
import type { WebhookSecrets } from '../../ports/webhook-secrets.js'

/** What the delivery worker needs. */
export type DeliverDueWebhooksDeps = {
  readonly queue: WebhookDeliveryQueue
  readonly sender: WebhookSender
  /** Makes the Standard Webhooks headers of each attempt. */
  readonly sign: WebhookSigner
  readonly webhookSecrets: Pick<WebhookSecrets, 'open'>
  readonly clock: Clock
  /** Delays in seconds before each attempt (WEBHOOK_RETRY_SCHEDULE). */
  readonly schedule: readonly number[]
  /** A number in [0, 1) for retry jitter. */
  readonly random: () => number
}

/** How long a claimed event is reserved for one worker: longer than the send timeout. */
const DELIVERY_LEASE_MS = 60_000

/** What the delivery log says of an attempt a crash cut short. */
export const INTERRUPTED_ATTEMPT = 'interrupted: the worker stopped before recording the outcome; the receiver may have got this attempt'

/**
 * The attempt an expired lease left unrecorded (`interruptedLeaseEnd`), as started when that
 * lease began, to the endpoint's URL as it is now; undefined when there is none.
 */
const interruptedAttempt = (due: DueDelivery): DeliveryAttempt | undefined =>
  due.interruptedLeaseEnd === null
    ? undefined
    : {
        eventId: due.event.id,
        attemptNumber: due.event.attempts + 1,
        url: due.url,
        startedAt: new Date(due.interruptedLeaseEnd.getTime() - DELIVERY_LEASE_MS),
        statusCode: null,
        error: INTERRUPTED_ATTEMPT,
        durationMs: 0,
      }

const deliverOne = async (deps: DeliverDueWebhooksDeps, due: DueDelivery): Promise<AttemptOutcome> => {
  const cut = interruptedAttempt(due)
  if (cut !== undefined) {
    // The cut attempt counts: if it was the schedule's last, the event fails without another.
    const afterCut = afterAttempt(cut, cut.attemptNumber, deps.schedule, deps.clock.now(), deps.random())
    const recorded = await (afterCut._tag === 'Failed' ? deps.queue.record(cut, afterCut) : deps.queue.recordInterrupted(cut))()
    if (E.isLeft(recorded)) throw recorded.left
    if (afterCut._tag === 'Failed') return afterCut
  }
  const attemptNumber = (cut?.attemptNumber ?? due.event.attempts) + 1
  const startedAt = deps.clock.now()
  const secret = deps.webhookSecrets.open(due.sealedSecret)
  const result: AttemptResult = O.isNone(secret)
    ? { statusCode: null, error: 'the signing secret cannot be unsealed (WEBHOOK_SECRET_KEY changed?)', durationMs: 0 }
    : await deps.sender.send({ url: due.url, headers: deps.sign(secret.value, due.event.id, startedAt, due.event.body), body: due.event.body })()
  const outcome = afterAttempt(result, attemptNumber, deps.schedule, deps.clock.now(), deps.random())
  const recorded = await deps.queue.record({ ...result, eventId: due.event.id, attemptNumber, url: due.url, startedAt }, outcome)()
  if (E.isLeft(recorded)) throw recorded.left
  return outcome
}

/**
 * One round of the delivery worker: claims up to `limit` due events and attempts each once,
 * recording every attempt, and first the one a crash cut short, if any (so the delivery log
 * shows every request the receiver may have got). Returns the outcomes; `StoreUnavailable` when the
 * queue fails (attempts already recorded in the round stay recorded). Safe to run in several
 * processes at once.
 */
export const deliverDueWebhooks =
  (deps: DeliverDueWebhooksDeps) =>
  async (limit: number): Promise<E.Either<StoreUnavailable, readonly AttemptOutcome[]>> => {
    const claimed = await deps.queue.claimDue(deps.clock.now(), limit, DELIVERY_LEASE_MS)()
    if (E.isLeft(claimed)) return claimed
    try {
      return E.right(await Promise.all(claimed.right.map((due) => deliverOne(deps, due))))
    } catch (error) {
      return E.left(error as StoreUnavailable)
    }
  }
