import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { jsonSchemaOf, stringMatching, Uuid, withSchema } from './codecs.js'

// One branded id type per kind of record (decision 78); ids come from codecs (UUIDs lower-cased), `newId` or adapters.

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

/** An onboarding session's id. */
export type SessionId = Id<'SessionId'>
/** Decodes a UUID to a `SessionId`. */
export const SessionId = idOf('SessionId', Uuid)

/** A party's (a borrower's) id. */
export type PartyId = Id<'PartyId'>
/** Decodes a UUID to a `PartyId`. */
export const PartyId = idOf('PartyId', Uuid)

/** An API client's id: the partner integration that owns keys and onboarding sessions. */
export type ClientId = Id<'ClientId'>
/** Decodes a UUID to a `ClientId`. */
export const ClientId = idOf('ClientId', Uuid)

/** An API key's id (not the key itself). */
export type ApiKeyId = Id<'ApiKeyId'>
/** Decodes a UUID to an `ApiKeyId`. */
export const ApiKeyId = idOf('ApiKeyId', Uuid)

/** An address's id, of a session or of a party. */
export type AddressId = Id<'AddressId'>
/** Decodes a UUID to an `AddressId`. */
export const AddressId = idOf('AddressId', Uuid)

/** A document's id, of a session or of a loan. */
export type DocumentId = Id<'DocumentId'>
/** Decodes a UUID to a `DocumentId`. */
export const DocumentId = idOf('DocumentId', Uuid)

/** A loan product's id. */
export type ProductId = Id<'ProductId'>
/** Decodes a UUID to a `ProductId`. */
export const ProductId = idOf('ProductId', Uuid)

/** A loan application's id. */
export type ApplicationId = Id<'ApplicationId'>
/** Decodes a UUID to an `ApplicationId`. */
export const ApplicationId = idOf('ApplicationId', Uuid)

/** A booked loan's id. */
export type LoanId = Id<'LoanId'>
/** Decodes a UUID to a `LoanId`. */
export const LoanId = idOf('LoanId', Uuid)

/** A payment method's id. */
export type PaymentMethodId = Id<'PaymentMethodId'>
/** Decodes a UUID to a `PaymentMethodId`. */
export const PaymentMethodId = idOf('PaymentMethodId', Uuid)

/** A payment's id. */
export type PaymentId = Id<'PaymentId'>
/** Decodes a UUID to a `PaymentId`. */
export const PaymentId = idOf('PaymentId', Uuid)

/** A test clock's id (decision 131). */
export type TestClockId = Id<'TestClockId'>
/** Decodes a UUID to a `TestClockId`. */
export const TestClockId = idOf('TestClockId', Uuid)

/** A file the bank sent back, as recorded (docs/ach.md "Returns and notices of change"). */
export type InboundFileId = Id<'InboundFileId'>
/** Decodes a UUID to an `InboundFileId`. */
export const InboundFileId = idOf('InboundFileId', Uuid)

/** A partner's webhook endpoint's id (docs/events.md). */
export type EndpointId = Id<'EndpointId'>
/** Decodes a UUID to an `EndpointId`. */
export const EndpointId = idOf('EndpointId', Uuid)

/** A named operator's id (decision 149). */
export type OperatorId = Id<'OperatorId'>
/** Decodes a UUID to an `OperatorId`. */
export const OperatorId = idOf('OperatorId', Uuid)

/** An operator's console session's id. */
export type OperatorSessionId = Id<'OperatorSessionId'>
/** Decodes a UUID to an `OperatorSessionId`. */
export const OperatorSessionId = idOf('OperatorSessionId', Uuid)

/** A maker-checker request's id (decision 152). */
export type OperatorRequestId = Id<'OperatorRequestId'>
/** Decodes a UUID to an `OperatorRequestId`. */
export const OperatorRequestId = idOf('OperatorRequestId', Uuid)

const EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/

/** `evt_` and 32 lower-case hex digits. */
export const isWebhookEventId = (id: string): boolean => EVENT_ID_PATTERN.test(id)

export const WebhookEventId = stringMatching('WebhookEventId', EVENT_ID_PATTERN, 'must be an event id: evt_ and 32 lower-case hex digits')

/** A webhook event's id: `evt_` and 32 lower-case hex digits. */
export type EventId = Id<'EventId'>
/** Decodes `evt_` and 32 hex digits to an `EventId`. */
export const EventId = idOf('EventId', WebhookEventId)

/** Any id above. */
export type AnyId = SessionId | PartyId | ClientId | ApiKeyId | AddressId | DocumentId | ProductId | ApplicationId | LoanId | PaymentMethodId | PaymentId | EventId | TestClockId | EndpointId | InboundFileId | OperatorId | OperatorSessionId | OperatorRequestId

/** A fresh id of kind `I`, e.g. `newId<LoanId>(deps.ids)`: the one place a string becomes an id undecoded. */
export const newId = <I extends Exclude<AnyId, EventId>>(ids: { readonly next: () => string }): I => ids.next() as I
