import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { decode, EmptyInput, merged } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type EndpointId } from '../../domain/foundations/ids.js'
import { decodePageRequest, pageOf, type Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import type { Caller } from '../../domain/keys/api-key.js'
import {
  CreateEndpointInput,
  DEFAULT_SECRET_GRACE_SECONDS,
  RecoverInput,
  RotateSecretInput,
  UpdateEndpointInput,
  type EndpointDelivery,
  type EventEndpoint,
} from '../../domain/webhooks/event-endpoint.js'
import type { Clock } from '../../ports/clock.js'
import type { EventEndpointRepository } from '../../ports/event-endpoint-repository.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { WebhookSecrets } from '../../ports/webhook-secrets.js'
import type { WebhookUrlGuard } from '../../ports/webhook-url-guard.js'

/** A partner's webhook endpoints (docs/events.md "Webhook endpoints"), each its API client's own. */

/** What the endpoint use cases need. */
export type EventEndpointDeps = {
  readonly eventEndpoints: EventEndpointRepository
  readonly webhookSecrets: Pick<WebhookSecrets, 'generate' | 'seal'>
  readonly urlGuard: WebhookUrlGuard
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** An endpoint and, when this answer made one, its signing secret to show once. */
export type EndpointWithSecret = { readonly endpoint: EventEndpoint; readonly secret: string | undefined }

/** Why an endpoint call fails: bad input, an endpoint missing or another client's, or the store. */
export type EndpointError = InvalidRequest | NotFound | StoreUnavailable

const decodeEndpointParams = decode(pathParameters('endpointId'))

/** The caller's endpoint `endpointId`; another client's is `NotFound`. */
const loadOwnEndpoint =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EventEndpoint> =>
    pipe(
      TE.fromEither(decodeEndpointParams(command)),
      TE.chainW(({ endpointId }) => deps.eventEndpoints.findForClient(caller.clientId, endpointId)),
      TE.chainW(TE.fromOption(() => notFound('webhook_endpoint'))),
    )

/** How many endpoints an API client may have: each is a delivery in every transaction that writes an event it takes. */
export const MAX_ENDPOINTS_PER_CLIENT = 16

/** The caller's client has room for another endpoint. */
const roomForOneMore = (deps: Pick<EventEndpointDeps, 'eventEndpoints'>, caller: Caller): TE.TaskEither<EndpointError, void> =>
  pipe(
    deps.eventEndpoints.listForClient(caller.clientId, { limit: MAX_ENDPOINTS_PER_CLIENT, after: O.none }),
    TE.chainW((existing) =>
      existing.length < MAX_ENDPOINTS_PER_CLIENT
        ? TE.right(undefined)
        : TE.left(invalidRequest(`An API client has at most ${MAX_ENDPOINTS_PER_CLIENT} webhook endpoints: delete one, or widen the enabled_events of one you have.`)),
    ),
  )

/** Creates an endpoint for the caller's API client, enabled; without `secret` the server generates one (shown in this answer only). At most `MAX_ENDPOINTS_PER_CLIENT` a client. */
export const createWebhookEndpoint =
  (deps: EventEndpointDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EndpointWithSecret> =>
    pipe(
      TE.fromEither(decode(CreateEndpointInput)(command)),
      TE.chainFirstW((input) => deps.urlGuard.check(input.url, 'url')),
      TE.chainFirstW(() => roomForOneMore(deps, caller)),
      TE.chainW((input) => {
        const now = deps.clock.now()
        const generated = input.secret === undefined ? deps.webhookSecrets.generate() : undefined
        const endpoint: EventEndpoint = {
          id: newId<EndpointId>(deps.ids),
          clientId: caller.clientId,
          partyId: caller.partyId,
          url: input.url,
          description: input.description ?? null,
          enabledEvents: [...new Set(input.enabled_events)],
          status: 'enabled',
          sealedSecret: deps.webhookSecrets.seal(input.secret ?? (generated as string)),
          previousSealedSecret: null,
          previousSecretExpiresAt: null,
          createdAt: now,
          updatedAt: now,
        }
        return pipe(
          deps.eventEndpoints.insert(endpoint),
          TE.map(() => ({ endpoint, secret: generated })),
        )
      }),
    )

/** The caller's API client's endpoints, oldest first, a page at a time. */
export const listWebhookEndpoints =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<EventEndpoint>> =>
    pipe(
      TE.fromEither(decodePageRequest(command)),
      TE.chainW((page) =>
        pipe(
          deps.eventEndpoints.listForClient(caller.clientId, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

/** One of the caller's API client's endpoints (a read of one record: other fields are ignored). */
export const getWebhookEndpoint =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EventEndpoint> =>
    loadOwnEndpoint(deps)(caller, command)

const UpdateCommand = commandOf(['endpointId'], UpdateEndpointInput)

/** Changes an endpoint by merge patch: its URL (checked as at creation), event types, status, description. */
export const updateWebhookEndpoint =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints' | 'urlGuard' | 'clock'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EventEndpoint> =>
    pipe(
      TE.fromEither(decode(UpdateCommand)(command)),
      TE.chainFirstW((patch) => (patch.url === undefined ? TE.right(undefined) : deps.urlGuard.check(patch.url, 'url'))),
      TE.chainW((patch) =>
        pipe(
          loadOwnEndpoint(deps)(caller, command),
          TE.chainW((endpoint) =>
            deps.eventEndpoints.update({
              ...endpoint,
              url: patch.url ?? endpoint.url,
              enabledEvents: patch.enabled_events === undefined ? endpoint.enabledEvents : [...new Set(patch.enabled_events)],
              status: patch.status ?? endpoint.status,
              description: merged(patch.description, endpoint.description),
              updatedAt: deps.clock.now(),
            }),
          ),
          TE.chainW(TE.fromOption(() => notFound('webhook_endpoint'))),
        ),
      ),
    )

const DeleteCommand = commandOf(['endpointId'], EmptyInput)

/** Deletes an endpoint and its deliveries: nothing more is sent to it. */
export const deleteWebhookEndpoint =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EventEndpoint> =>
    pipe(
      TE.fromEither(decode(DeleteCommand)(command)),
      TE.chainW(({ endpointId }) => deps.eventEndpoints.remove(caller.clientId, endpointId)),
      TE.chainW(TE.fromOption(() => notFound('webhook_endpoint'))),
    )

const RotateCommand = commandOf(['endpointId'], RotateSecretInput)

/**
 * Gives an endpoint a new signing secret (`secret`, or generated and shown in this answer only).
 * The old one keeps signing beside it for `grace_period_seconds` (default 24 hours): every
 * delivery meanwhile carries both signatures, so the receiver can switch at its own pace.
 */
export const rotateWebhookEndpointSecret =
  (deps: EventEndpointDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EndpointWithSecret> =>
    pipe(
      TE.fromEither(decode(RotateCommand)(command)),
      TE.chainW((input) =>
        pipe(
          loadOwnEndpoint(deps)(caller, command),
          TE.chainW((endpoint) => {
            const now = deps.clock.now()
            const generated = input.secret === undefined ? deps.webhookSecrets.generate() : undefined
            const grace = input.grace_period_seconds ?? DEFAULT_SECRET_GRACE_SECONDS
            const sealed = deps.webhookSecrets.seal(input.secret ?? (generated as string))
            return pipe(
              deps.eventEndpoints.rotateSecret(endpoint.clientId, endpoint.id, sealed, grace === 0 ? null : new Date(now.getTime() + grace * 1000), now),
              TE.chainW(TE.fromOption(() => notFound('webhook_endpoint'))),
              TE.map((rotated) => ({ endpoint: rotated, secret: generated })),
            )
          }),
        ),
      ),
    )

const ResendCommand = commandOf(['endpointId', 'eventId'], EmptyInput)

/** Sends one event to an endpoint again now, whatever its type; an event the endpoint's owner does not see is `NotFound`. */
export const resendWebhookEvent =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints' | 'clock'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, EndpointDelivery> =>
    pipe(
      TE.fromEither(decode(ResendCommand)(command)),
      TE.chainW(({ eventId }) =>
        pipe(
          loadOwnEndpoint(deps)(caller, command),
          TE.chainW((endpoint) => deps.eventEndpoints.resend(endpoint, eventId, deps.clock.now(), NOT_AUDITED)),
          TE.chainW(TE.fromOption(() => notFound('event'))),
        ),
      ),
    )

const RecoverCommand = commandOf(['endpointId'], RecoverInput)

/**
 * Sends an endpoint again every event it takes, written from `since` (inclusive) to `until`
 * (exclusive; default now), that it has not had delivered: after it was down or disabled.
 */
export const recoverWebhookEvents =
  (deps: Pick<EventEndpointDeps, 'eventEndpoints' | 'clock'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<EndpointError, { readonly recovered: number }> =>
    pipe(
      TE.fromEither(decode(RecoverCommand)(command)),
      TE.chainW((input) => {
        const now = deps.clock.now()
        const until = input.until ?? now
        return input.since < until
          ? pipe(
              loadOwnEndpoint(deps)(caller, command),
              TE.chainW((endpoint) => deps.eventEndpoints.recover(endpoint, input.since, until, now)),
              TE.map((recovered) => ({ recovered })),
            )
          : TE.left(invalidRequest('since must be before until (default: now).', input.until === undefined ? 'since' : 'until'))
      }),
    )
