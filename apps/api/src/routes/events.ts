import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  endpointDeliveryView,
  envelope,
  eventEndpointView,
  eventView,
  getWebhookEndpoint,
  listEvents,
  listWebhookEndpoints,
  recoverWebhookEvents,
  resendWebhookEvent,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { serverMisconfigured } from '../http/problems.js'
import { callerOf, routes } from './route.js'

/** A body without the signing secret an answer showed once: what an idempotent replay answers. */
const withoutSecret = (body: unknown): unknown => {
  const { secret: _secret, ...rest } = body as Record<string, unknown>
  return rest
}

/** The event log and the partner's webhook endpoints (docs/events.md). */
export const eventRoutes = (deps: AppDeps) => {
  const sealing = deps.webhookSecrets === undefined ? undefined : { ...deps, webhookSecrets: deps.webhookSecrets }
  return routes({
    listEvents: {
      run: (ctx, command) => pipe(listEvents(deps)(callerOf(ctx), command), TE.map(envelope((e) => eventView(e, deps.world)))),
    },
    createWebhookEndpoint: {
      run: (ctx, command) =>
        sealing === undefined
          ? TE.left(serverMisconfigured('WEBHOOK_SECRET_KEY'))
          : pipe(
              createWebhookEndpoint(sealing)(callerOf(ctx), command),
              TE.map(({ endpoint, secret }) => eventEndpointView(endpoint, secret)),
            ),
      forReplay: withoutSecret,
    },
    listWebhookEndpoints: {
      run: (ctx, command) => pipe(listWebhookEndpoints(deps)(callerOf(ctx), command), TE.map(envelope((e) => eventEndpointView(e)))),
    },
    getWebhookEndpoint: {
      run: (ctx, command) => pipe(getWebhookEndpoint(deps)(callerOf(ctx), command), TE.map((e) => eventEndpointView(e))),
    },
    updateWebhookEndpoint: {
      run: (ctx, command) => pipe(updateWebhookEndpoint(deps)(callerOf(ctx), command), TE.map((e) => eventEndpointView(e))),
    },
    deleteWebhookEndpoint: {
      run: (ctx, command) => pipe(deleteWebhookEndpoint(deps)(callerOf(ctx), command), TE.map((e) => ({ ...eventEndpointView(e), deleted: true }))),
    },
    rotateWebhookEndpointSecret: {
      run: (ctx, command) =>
        sealing === undefined
          ? TE.left(serverMisconfigured('WEBHOOK_SECRET_KEY'))
          : pipe(
              rotateWebhookEndpointSecret(sealing)(callerOf(ctx), command),
              TE.map(({ endpoint, secret }) => eventEndpointView(endpoint, secret)),
            ),
      forReplay: withoutSecret,
    },
    resendWebhookEvent: {
      run: (ctx, command) => pipe(resendWebhookEvent(deps)(callerOf(ctx), command), TE.map(endpointDeliveryView)),
    },
    recoverWebhookEvents: {
      run: (ctx, command) => pipe(recoverWebhookEvents(deps)(callerOf(ctx), command), TE.map(({ recovered }) => ({ recovered }))),
    },
  })
}
