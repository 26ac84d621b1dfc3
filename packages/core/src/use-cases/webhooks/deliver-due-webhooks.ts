import * as A from 'fp-ts/lib/Array.js'
import type * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import { afterAttempt, type AttemptOutcome, type AttemptResult } from '../../domain/webhooks/webhook-delivery.js'
import type { Clock } from '../../ports/clock.js'
import type { DeliveryAttempt, DueDelivery, WebhookDeliveryQueue, WebhookSender, WebhookSigner } from '../../ports/webhook-delivery-queue.js'
import type { WebhookSecrets } from '../../ports/webhook-secrets.js'

/** What the delivery worker needs. */
export type DeliverDueWebhooksDeps = {
  readonly queue: WebhookDeliveryQueue
  readonly sender: WebhookSender
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

/** The attempt an expired lease left unrecorded, dated from that lease's start. */
const interruptedAttempt = (due: DueDelivery): O.Option<DeliveryAttempt> =>
  due.interruptedLeaseEnd === null
    ? O.none
    : O.some({
        deliveryId: due.deliveryId,
        attemptNumber: due.attempts + 1,
        url: due.url,
        startedAt: new Date(due.interruptedLeaseEnd.getTime() - DELIVERY_LEASE_MS),
        statusCode: null,
        error: INTERRUPTED_ATTEMPT,
        durationMs: 0,
      })

/** Records a cut attempt; it counts, so after the schedule's last the event fails. */
const recordCut = (deps: DeliverDueWebhooksDeps, cut: DeliveryAttempt): TE.TaskEither<StoreUnavailable, AttemptOutcome> => {
  const outcome = afterAttempt(cut, cut.attemptNumber, deps.schedule, deps.clock.now(), deps.random())
  const recorded = outcome._tag === 'Failed' ? deps.queue.record(cut, outcome) : deps.queue.recordInterrupted(cut)
  return pipe(recorded, TE.map(() => outcome))
}

/**
 * The headers of a delivery signed with each secret: Standard Webhooks puts the signatures in
 * one `webhook-signature`, space-separated, and a receiver accepts any that verifies.
 */
const signedWithEach = (sign: WebhookSigner, secrets: readonly string[], due: DueDelivery, at: Date): Readonly<Record<string, string>> => {
  const [first, ...others] = secrets.map((secret) => sign(secret, due.eventId, at, due.body))
  return others.length === 0 ? first! : { ...first, 'webhook-signature': [first!, ...others].map((headers) => headers['webhook-signature']).join(' ') }
}

const attempt = (deps: DeliverDueWebhooksDeps, due: DueDelivery, attemptNumber: number): TE.TaskEither<StoreUnavailable, AttemptOutcome> => {
  const startedAt = deps.clock.now()
  const secrets = O.sequenceArray(due.sealedSecrets.map(deps.webhookSecrets.open))
  const send = O.isNone(secrets)
    ? TE.right<StoreUnavailable, AttemptResult>({ statusCode: null, error: 'the signing secret cannot be unsealed (WEBHOOK_SECRET_KEY changed?)', durationMs: 0 })
    : TE.rightTask<StoreUnavailable, AttemptResult>(deps.sender.send({ url: due.url, headers: signedWithEach(deps.sign, secrets.value, due, startedAt), body: due.body }))
  return pipe(
    send,
    TE.chain((result) => {
      const outcome = afterAttempt(result, attemptNumber, deps.schedule, deps.clock.now(), deps.random())
      return pipe(
        deps.queue.record({ ...result, deliveryId: due.deliveryId, attemptNumber, url: due.url, startedAt }, outcome),
        TE.map(() => outcome),
      )
    }),
  )
}

const deliverOne = (deps: DeliverDueWebhooksDeps, due: DueDelivery): TE.TaskEither<StoreUnavailable, AttemptOutcome> =>
  pipe(
    interruptedAttempt(due),
    O.match(
      () => attempt(deps, due, due.attempts + 1),
      (cut) =>
        pipe(
          recordCut(deps, cut),
          TE.chain((afterCut) => (afterCut._tag === 'Failed' ? TE.right(afterCut) : attempt(deps, due, cut.attemptNumber + 1))),
        ),
    ),
  )

/**
 * One round of the delivery worker: claims up to `limit` due events and attempts each once,
 * first recording any attempt a crash cut short. `StoreUnavailable` when the queue fails; the
 * round's other attempts still run and stay recorded. A thrown error is a bug and rejects.
 */
export const deliverDueWebhooks =
  (deps: DeliverDueWebhooksDeps) =>
  (limit: number): Promise<E.Either<StoreUnavailable, readonly AttemptOutcome[]>> =>
    pipe(
      deps.queue.claimDue(deps.clock.now(), limit, DELIVERY_LEASE_MS),
      TE.chain((claimed) => pipe([...claimed], A.traverse(TE.ApplicativePar)((due) => deliverOne(deps, due)))),
    )()
