import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { strictObject } from './codecs.js'
import { AddressId, ApiKeyId, ApplicationId, EndpointId, EventId, InboundFileId, LoanId, OperatorRequestId, PartyId, PaymentId, PaymentMethodId, ProductId, SessionId, TestClockId } from './ids.js'

/** The codec of every identifier a command carries, by its path parameter's name; the OpenAPI document uses the same. */
export const PATH_PARAMETERS = {
  apiKeyId: ApiKeyId,
  sessionId: SessionId,
  addressId: AddressId,
  eventId: EventId,
  partyId: PartyId,
  applicationId: ApplicationId,
  loanId: LoanId,
  paymentMethodId: PaymentMethodId,
  paymentId: PaymentId,
  productId: ProductId,
  clockId: TestClockId,
  endpointId: EndpointId,
  inboundFileId: InboundFileId,
  operatorRequestId: OperatorRequestId,
} as const
export type PathParameterName = keyof typeof PATH_PARAMETERS

type IdsOf<N extends readonly PathParameterName[]> = { readonly [K in N[number]]: t.TypeOf<(typeof PATH_PARAMETERS)[K]> }
type ParametersOf<N extends readonly PathParameterName[]> = t.TypeC<{ [K in N[number]]: (typeof PATH_PARAMETERS)[K] }>

export const pathParameters = <const N extends readonly PathParameterName[]>(...names: N): ParametersOf<N> =>
  t.type(Object.fromEntries(names.map((name) => [name, PATH_PARAMETERS[name]]))) as unknown as ParametersOf<N>

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/**
 * A command's codec: the identifiers `ids`, each required and checked first, then the rest by
 * `fields`, which never sees the identifiers.
 */
export const commandOf = <const N extends readonly PathParameterName[], A>(ids: N, fields: t.Decoder<unknown, A>): t.Type<IdsOf<N> & A, IdsOf<N> & A, unknown> => {
  const idCodec = strictObject('Ids', Object.fromEntries(ids.map((name) => [name, PATH_PARAMETERS[name]])), {})
  const named = new Set<string>(ids)
  return new t.Type<IdsOf<N> & A, IdsOf<N> & A, unknown>(
    `Command<${fields.name}>`,
    (u): u is IdsOf<N> & A => false,
    (given, c) => {
      // A command without fields may be left out.
      const u = given === undefined ? {} : given
      if (!isRecord(u)) return ids.length === 0 ? (fields.validate(u, c) as t.Validation<IdsOf<N> & A>) : t.failure(u, c, 'the request body must be a JSON object')
      const decodedIds = idCodec.validate(Object.fromEntries(Object.entries(u).filter(([key]) => named.has(key))), c)
      if (E.isLeft(decodedIds)) return decodedIds
      const decodedFields = fields.validate(Object.fromEntries(Object.entries(u).filter(([key]) => !named.has(key))), c)
      if (E.isLeft(decodedFields)) return decodedFields
      return t.success({ ...decodedFields.right, ...decodedIds.right } as IdsOf<N> & A)
    },
    t.identity,
  )
}
