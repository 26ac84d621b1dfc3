import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { jsonSchemaOf, stringMatching, Uuid, withSchema } from './codecs.js'

/**
 * One branded id type per kind of record (decision 78), so swapping two ids does not compile. An
 * id comes from its codec (UUIDs decode to lower case), `newId`, or an adapter reading its store.
 */

declare const kind: unique symbol

/** Assignable to `string`, never from it nor from another kind's id. */
export type Id<K extends string> = string & { readonly [kind]: { readonly [P in K]: true } }

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

export type SessionId = Id<'SessionId'>
export const SessionId = idOf('SessionId', Uuid)

/** A party's (a borrower's) id. */
export type PartyId = Id<'PartyId'>
export const PartyId = idOf('PartyId', Uuid)

/** An API client's id: the partner integration that owns keys and onboarding sessions. */
export type ClientId = Id<'ClientId'>
export const ClientId = idOf('ClientId', Uuid)

/** An API key's id (not the key itself). */
export type ApiKeyId = Id<'ApiKeyId'>
export const ApiKeyId = idOf('ApiKeyId', Uuid)

/** An address's id, of a session or of a party. */
export type AddressId = Id<'AddressId'>
export const AddressId = idOf('AddressId', Uuid)

/** A document's id, of a session or of a loan. */
export type DocumentId = Id<'DocumentId'>
export const DocumentId = idOf('DocumentId', Uuid)

export type ProductId = Id<'ProductId'>
export const ProductId = idOf('ProductId', Uuid)

export type ApplicationId = Id<'ApplicationId'>
export const ApplicationId = idOf('ApplicationId', Uuid)

export type LoanId = Id<'LoanId'>
export const LoanId = idOf('LoanId', Uuid)

export type PaymentMethodId = Id<'PaymentMethodId'>
export const PaymentMethodId = idOf('PaymentMethodId', Uuid)

export type PaymentId = Id<'PaymentId'>
export const PaymentId = idOf('PaymentId', Uuid)

const EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/

export const isWebhookEventId = (id: string): boolean => EVENT_ID_PATTERN.test(id)

export const WebhookEventId = stringMatching('WebhookEventId', EVENT_ID_PATTERN, 'must be an event id: evt_ and 32 lower-case hex digits')

/** A webhook event's id: `evt_` and 32 lower-case hex digits. */
export type EventId = Id<'EventId'>
export const EventId = idOf('EventId', WebhookEventId)

export type AnyId = SessionId | PartyId | ClientId | ApiKeyId | AddressId | DocumentId | ProductId | ApplicationId | LoanId | PaymentMethodId | PaymentId | EventId

/** A fresh id of kind `I`, e.g. `newId<LoanId>(deps.ids)`: the one place a string becomes an id undecoded. */
export const newId = <I extends Exclude<AnyId, EventId>>(ids: { readonly next: () => string }): I => ids.next() as I
