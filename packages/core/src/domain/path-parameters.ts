import * as t from 'io-ts'
import { Uuid } from './codecs.js'
import { WebhookEventId } from './webhook-event.js'

/**
 * The identifier each route takes in its path, by the parameter's name (spec §4). A use case
 * decodes its path parameters with these codecs (`pathParameters`), and the OpenAPI document
 * declares each parameter with the same codec's schema, so the two cannot drift apart.
 */
export const PATH_PARAMETERS = {
  apiKeyId: Uuid,
  sessionId: Uuid,
  addressId: Uuid,
  eventId: WebhookEventId,
  partyId: Uuid,
  applicationId: Uuid,
  loanId: Uuid,
  paymentMethodId: Uuid,
  paymentId: Uuid,
  productId: Uuid,
} as const
export type PathParameterName = keyof typeof PATH_PARAMETERS

type ParametersOf<N extends readonly PathParameterName[]> = t.TypeC<{ [K in N[number]]: (typeof PATH_PARAMETERS)[K] }>

/** The codec of the path parameters `names` of a route (its other parameters are ignored). */
export const pathParameters = <const N extends readonly PathParameterName[]>(...names: N): ParametersOf<N> =>
  t.type(Object.fromEntries(names.map((name) => [name, PATH_PARAMETERS[name]]))) as unknown as ParametersOf<N>
