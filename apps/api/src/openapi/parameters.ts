import type { PATH_PARAMETERS } from '@lendgate/core'

/**
 * What each path parameter of the documents identifies, and where the caller gets its value
 * (issue 58): the `description` of every path parameter object (document.ts `pathParameter`).
 * One entry per codec of `PATH_PARAMETERS`, so a parameter added there fails the typecheck until
 * it is described here. Partners read these: they name no operator setting and no repository path.
 */
export const PATH_PARAMETER_DESCRIPTIONS: Readonly<Record<keyof typeof PATH_PARAMETERS, string>> = {
  apiKeyId: "The API key's id (`api_key_id` in the answer that minted the key, or in the key list).",
  sessionId: "The onboarding session's id (`session_id` in the answer that created the session).",
  addressId: "The address's id (`address_id` in the answer that added the address, or in the address list).",
  eventId:
    "The event's id, `evt_` and 32 hex digits (`id` of an event in the event list or a webhook body, the `webhook-id` header of its deliveries, or `event_id` in a delivery list).",
  partyId: "The party's id (`party_id` in the `party.ready` webhook or event, or in the session's party).",
  applicationId: "The loan application's id (`application_id` in the answer that created the application, or in the party's application list).",
  loanId: "The loan's id (`loan_id` in an approved application, in a loan, or in `loan.booked`).",
  paymentMethodId: "The payment method's id (`payment_method_id` in the answer that added it, or in the loan's payment method list).",
  paymentId: "The payment's id (`payment_id` in the answer that created the payment, in the loan's payment list, or in a `payment.*` event).",
  productId: "The loan product's id (`product_id` in the product list, or in the answer that created the product).",
  clockId: "The test clock's id (`test_clock_id` in the answer that created the clock).",
  endpointId: "The webhook endpoint's id (`webhook_endpoint_id` in the answer that created the endpoint, or in the endpoint list).",
  inboundFileId: "The inbound bank file's id (`inbound_file_id` in the answer that ingested it).",
  operatorRequestId: "The maker-checker request's id (`operator_request_id` in the answer that asked it, or in the request list).",
}
