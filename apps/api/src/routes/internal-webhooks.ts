import {
  deliveryRecordView,
  deliveryWithAttemptsView,
  endpointDeliveryView,
  envelope,
  getWebhookDelivery,
  listWebhookDeliveries,
  retryWebhookDeliveryForOperator,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { routes } from './route.js'

/** Operators' view of partners' webhook deliveries, and the retry (docs/console.md "Webhook deliveries"). */
export const internalWebhookRoutes = (deps: AppDeps) =>
  routes({
    listWebhookDeliveries: {
      run: (_ctx, command) => pipe(listWebhookDeliveries(deps)(command), TE.map(envelope(deliveryRecordView))),
    },
    getWebhookDelivery: {
      run: (_ctx, command) => pipe(getWebhookDelivery(deps)(command), TE.map(deliveryWithAttemptsView)),
    },
    retryEndpointWebhookDelivery: {
      run: (ctx, command) => pipe(retryWebhookDeliveryForOperator(deps)(command, operatorContext(ctx)), TE.map(endpointDeliveryView)),
    },
  })
