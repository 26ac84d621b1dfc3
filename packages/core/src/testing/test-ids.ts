import type { AddressId, ApiKeyId, ApplicationId, ClientId, DocumentId, EndpointId, EventId, InboundFileId, LoanId, OperatorId, OperatorRequestId, PartyId, PaymentId, PaymentMethodId, ProductId, SessionId, TestClockId } from '../domain/foundations/ids.js'

/** An id of every kind at once, for test fixtures only. */
export type TestId = SessionId & PartyId & ClientId & ApiKeyId & AddressId & DocumentId & ProductId & ApplicationId & LoanId & PaymentMethodId & PaymentId & EventId & TestClockId & InboundFileId & OperatorId & OperatorRequestId & EndpointId

/** `value` as an id of any kind. */
export const testId = (value: string): TestId => value as TestId
