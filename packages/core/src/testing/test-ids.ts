import type { AddressId, ApiKeyId, ApplicationId, ClientId, DocumentId, EventId, LoanId, PartyId, PaymentId, PaymentMethodId, ProductId, SessionId } from '../domain/foundations/ids.js'

/**
 * An id of every kind at once: what a test's fixed or fresh identifier is, so a fixture can
 * stand for a party in one test and a loan in another without decoding. For tests only: code
 * that runs in a service gets its ids from a codec, `newId` or a stored record.
 */
export type TestId = SessionId & PartyId & ClientId & ApiKeyId & AddressId & DocumentId & ProductId & ApplicationId & LoanId & PaymentMethodId & PaymentId & EventId

/** `value` as an id of any kind, for a test's fixtures. */
export const testId = (value: string): TestId => value as TestId
