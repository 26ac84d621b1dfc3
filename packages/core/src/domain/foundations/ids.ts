import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { jsonSchemaOf, stringMatching, Uuid, withSchema } from './codecs.js'

/**
 * The identifiers of Lendgate's records, one branded type per kind of record (decision 78): a
 * `SessionId` is a string, but a `PartyId` or a bare string is not a `SessionId`, so passing
 * one id where another is expected, or swapping two, does not compile. An id comes from one of
 * three places: its codec below, which decodes a caller's input; `newId`, which brands a fresh
 * id from the `IdGenerator`; or an adapter reading a record it stored.
 */

declare const kind: unique symbol

/**
 * A string branded as the id of the kind of record `K`: assignable to `string`, never from it,
 * nor from the id of another kind.
 */
export type Id<K extends string> = string & { readonly [kind]: { readonly [P in K]: true } }

/** The codec of ids of kind `K` decoded by `codec` (its checks, messages and JSON Schema). */
const idOf = <K extends string>(name: K, codec: t.Type<string, string, unknown>): t.Type<Id<K>, string, unknown> =>
  withSchema(
    new t.Type<Id<K>, string, unknown>(
      name,
      (u): u is Id<K> => codec.is(u),
      (u, c) => pipe(codec.validate(u, c), E.map((id) => id as Id<K>)),
      t.identity,
    ),
    jsonSchemaOf(codec),
  )

/** An onboarding session's id. A UUID, decoded to lower case. */
export type SessionId = Id<'SessionId'>
/** The codec of `SessionId`s: decodes a caller's value, refusing anything else by name. */
export const SessionId = idOf('SessionId', Uuid)

/** A party's (a borrower's) id. A UUID, decoded to lower case. */
export type PartyId = Id<'PartyId'>
/** The codec of `PartyId`s: decodes a caller's value, refusing anything else by name. */
export const PartyId = idOf('PartyId', Uuid)

/** An API client's id: the partner integration that owns keys and onboarding sessions. A UUID, decoded to lower case. */
export type ClientId = Id<'ClientId'>
/** The codec of `ClientId`s: decodes a caller's value, refusing anything else by name. */
export const ClientId = idOf('ClientId', Uuid)

/** An API key's id (not the key itself). A UUID, decoded to lower case. */
export type ApiKeyId = Id<'ApiKeyId'>
/** The codec of `ApiKeyId`s: decodes a caller's value, refusing anything else by name. */
export const ApiKeyId = idOf('ApiKeyId', Uuid)

/** An address's id, of a session or of a party. A UUID, decoded to lower case. */
export type AddressId = Id<'AddressId'>
/** The codec of `AddressId`s: decodes a caller's value, refusing anything else by name. */
export const AddressId = idOf('AddressId', Uuid)

/** A document's id, of a session or of a loan. A UUID, decoded to lower case. */
export type DocumentId = Id<'DocumentId'>
/** The codec of `DocumentId`s: decodes a caller's value, refusing anything else by name. */
export const DocumentId = idOf('DocumentId', Uuid)

/** A loan product's id. A UUID, decoded to lower case. */
export type ProductId = Id<'ProductId'>
/** The codec of `ProductId`s: decodes a caller's value, refusing anything else by name. */
export const ProductId = idOf('ProductId', Uuid)

/** A loan application's id. A UUID, decoded to lower case. */
export type ApplicationId = Id<'ApplicationId'>
/** The codec of `ApplicationId`s: decodes a caller's value, refusing anything else by name. */
export const ApplicationId = idOf('ApplicationId', Uuid)

/** A booked loan's id. A UUID, decoded to lower case. */
export type LoanId = Id<'LoanId'>
/** The codec of `LoanId`s: decodes a caller's value, refusing anything else by name. */
export const LoanId = idOf('LoanId', Uuid)

/** A payment method's id. A UUID, decoded to lower case. */
export type PaymentMethodId = Id<'PaymentMethodId'>
/** The codec of `PaymentMethodId`s: decodes a caller's value, refusing anything else by name. */
export const PaymentMethodId = idOf('PaymentMethodId', Uuid)

/** A payment's id. A UUID, decoded to lower case. */
export type PaymentId = Id<'PaymentId'>
/** The codec of `PaymentId`s: decodes a caller's value, refusing anything else by name. */
export const PaymentId = idOf('PaymentId', Uuid)

const EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/

/** Whether `id` has the form of an event id. */
export const isWebhookEventId = (id: string): boolean => EVENT_ID_PATTERN.test(id)

/** An event id: `evt_` and 32 lower-case hex digits. */
export const WebhookEventId = stringMatching('WebhookEventId', EVENT_ID_PATTERN, 'must be an event id: evt_ and 32 lower-case hex digits')

/** A webhook event's id: `evt_` and 32 lower-case hex digits. */
export type EventId = Id<'EventId'>
/** The codec of `EventId`s: decodes a caller's value, refusing anything else by name. */
export const EventId = idOf('EventId', WebhookEventId)

/** Any of the ids above. */
export type AnyId = SessionId | PartyId | ClientId | ApiKeyId | AddressId | DocumentId | ProductId | ApplicationId | LoanId | PaymentMethodId | PaymentId | EventId

/**
 * A fresh id of the kind `I` from the id generator's next UUID: `newId<LoanId>(deps.ids)`. The
 * one place where a new string becomes an id without being decoded, since the generator makes
 * ids for every kind of record.
 */
export const newId = <I extends Exclude<AnyId, EventId>>(ids: { readonly next: () => string }): I => ids.next() as I
