import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { deliveryRetriedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode, EmptyInput, oneOf } from '../../domain/foundations/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { EndpointId, EventId } from '../../domain/foundations/ids.js'
import { decodeFilteredPageRequest, pageBy, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { DELIVERY_STATUSES, isDeliveryRowId, type DeliveryRecord, type DeliveryWithAttempts, type EndpointDelivery } from '../../domain/webhooks/event-endpoint.js'
import type { Clock } from '../../ports/clock.js'
import type { EventEndpointRepository } from '../../ports/event-endpoint-repository.js'
import type { IdGenerator } from '../../ports/id-generator.js'

/**
 * Operators' view of every partner's webhook deliveries (docs/console.md "Webhook deliveries"):
 * the list by status, endpoint or event, a delivery with its attempts, and a retry that queues it
 * due now, audited. What a worker sends is the partner route's resend: one send at a time.
 */

/** What the operator delivery use cases need. */
export type OperatorDeliveryDeps = {
  readonly eventEndpoints: Pick<EventEndpointRepository, 'find' | 'listDeliveries' | 'findDelivery' | 'resend'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** The filters of `listWebhookDeliveries`: a `status`, an `endpoint_id` and an `event_id`, each optional. */
export const DeliveryFilters = queryFilters('WebhookDeliveryFilter', { status: oneOf('WebhookDeliveryStatus', DELIVERY_STATUSES), endpoint_id: EndpointId, event_id: EventId })

/** Every partner's deliveries, oldest first, a page at a time: `status=failed` is the queue of what needs a look. */
export const listWebhookDeliveries =
  (deps: Pick<OperatorDeliveryDeps, 'eventEndpoints'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<DeliveryRecord>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(DeliveryFilters, command, [], isDeliveryRowId)),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.eventEndpoints.listDeliveries(
            {
              ...(filter.status === undefined ? {} : { status: filter.status }),
              ...(filter.endpoint_id === undefined ? {} : { endpointId: filter.endpoint_id }),
              ...(filter.event_id === undefined ? {} : { eventId: filter.event_id }),
            },
            page,
          ),
          TE.map((rows) => pageBy(rows, page.limit, (row) => ({ createdAt: row.createdAt, id: row.rowId }))),
        ),
      ),
    )

const decodeDeliveryParams = decode(pathParameters('endpointId', 'eventId'))

/** The delivery of event `eventId` to endpoint `endpointId`, with its attempts. */
export const getWebhookDelivery =
  (deps: Pick<OperatorDeliveryDeps, 'eventEndpoints'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, DeliveryWithAttempts> =>
    pipe(
      TE.fromEither(decodeDeliveryParams(command)),
      TE.chainW(({ endpointId, eventId }) => deps.eventEndpoints.findDelivery(endpointId, eventId)),
      TE.chainW(TE.fromOption(() => notFound('webhook_delivery'))),
    )

const RetryCommand = commandOf(['endpointId', 'eventId'], EmptyInput)

/**
 * Queues a delivery due now, whatever its status: a failed one is tried again with its attempt
 * count kept, a delivered one is sent again (a partner that lost it asks). The endpoint's current
 * URL and secrets sign it, as every attempt does; audited as `webhook_delivery.retried`.
 */
export const retryWebhookDeliveryForOperator =
  (deps: OperatorDeliveryDeps) =>
  (command: unknown, context: AuditContext): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, EndpointDelivery> =>
    pipe(
      TE.fromEither(decode(RetryCommand)(command)),
      // The delivery as it stands, without its attempts, which the retry does not need.
      TE.chainW(({ endpointId, eventId }) => deps.eventEndpoints.listDeliveries({ endpointId, eventId }, { limit: 1, after: O.none })),
      TE.chainW((rows) => TE.fromOption(() => notFound('webhook_delivery'))(O.fromNullable(rows[0]))),
      TE.bindTo('delivery'),
      TE.bindW('endpoint', ({ delivery }) => pipe(deps.eventEndpoints.find(delivery.endpointId), TE.chainW(TE.fromOption(() => notFound('webhook_delivery'))))),
      TE.chainW(({ delivery, endpoint }) => {
        const now = deps.clock.now()
        return pipe(
          deps.eventEndpoints.resend(endpoint, delivery.eventId, now, deliveryRetriedEvent(deps.ids.next(), context, delivery, now)),
          TE.chainW(TE.fromOption(() => notFound('webhook_delivery'))),
        )
      }),
    )
