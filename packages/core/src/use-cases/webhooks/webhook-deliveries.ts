import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import { notFound, type NotFound } from '../../domain/foundations/errors.js'
import { invalidState, type InvalidState } from '../../domain/foundations/errors.js'
import { decodePageRequest, pageOf, type Page } from '../../domain/foundations/pagination.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { isWebhookEventId } from '../../domain/foundations/ids.js'
import type { WebhookDelivery, WebhookEvent } from '../../domain/webhooks/webhook-event.js'
import type { Clock } from '../../ports/clock.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import type { WebhookEventRepository } from '../../ports/webhook-event-repository.js'
import { loadOwnSession, type LoadOwnSessionError } from '../onboarding/load-own-session.js'

/** What the delivery log use cases need. */
export type WebhookDeliveriesDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'>
  readonly events: Pick<WebhookEventRepository, 'listDeliveries' | 'retryNow'>
  readonly clock: Clock
}

/** The delivery log: the session's events with every attempt, oldest first. */
export const listOnboardingSessionWebhookDeliveries =
  (deps: Omit<WebhookDeliveriesDeps, 'clock'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, Page<WebhookDelivery>> =>
    pipe(
      TE.fromEither(decodePageRequest(command, ['sessionId'], isWebhookEventId)),
      TE.chainW((page) =>
        pipe(
          loadOwnSession(deps.sessions)(caller, command),
          TE.chainW((session) => deps.events.listDeliveries(session.id, page)),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

const RetryCommand = commandOf(['sessionId', 'eventId'], EmptyInput)

/** Makes an undelivered event of the session due now; a delivered one is `InvalidState`. */
export const retryWebhookDelivery =
  (deps: WebhookDeliveriesDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError | NotFound | InvalidState, WebhookEvent> =>
    pipe(
      TE.fromEither(decode(RetryCommand)(command)),
      TE.chainW(({ eventId }) =>
        pipe(
          loadOwnSession(deps.sessions)(caller, command),
          TE.chainW((session) =>
            pipe(
              deps.events.listDeliveries(session.id, { limit: 1000, after: { _tag: 'None' } }),
              TE.chainW((events) => {
                const event = events.find((e) => e.id === eventId)
                if (event === undefined) return TE.left<NotFound | InvalidState, WebhookEvent>(notFound('webhook_event'))
                if (event.status === 'delivered') return TE.left(invalidState('webhook_event', 'delivered', 'retry'))
                return pipe(
                  deps.events.retryNow(session.id, eventId, deps.clock.now()),
                  TE.chainW(TE.fromOption((): NotFound | InvalidState => notFound('webhook_event'))),
                )
              }),
            ),
          ),
        ),
      ),
    )
