import {
  AccrualQuery,
  ApplicationStatusFilter,
  AuditEventFilters,
  DeliveryFilters,
  EventFilters,
  LoanFilters,
  OperatorLoanFilters,
  OperatorRequestFilters,
  PayoffQuery,
  ProductActiveFilter,
  SchedulePreviewQuery,
  SessionStatusFilter,
  TransactionFilters,
} from '@lendgate/core'
import type * as t from 'io-ts'

/**
 * What each query parameter means, by the codec that decodes it (the schema, its type and bounds,
 * comes from the codec itself). A codec shared by two routes means the same on both.
 */
export const QUERY_DESCRIPTIONS: ReadonlyMap<t.Mixed, Readonly<Record<string, string>>> = new Map<t.Mixed, Readonly<Record<string, string>>>([
  [ApplicationStatusFilter, { status: 'Only the applications in this status' }],
  [SessionStatusFilter, { status: 'Only the onboarding sessions in this status' }],
  [SchedulePreviewQuery, { start_date: 'The day the loan would be booked (`YYYY-MM-DD`); today when left out' }],
  [LoanFilters, { delinquency: 'Only the loans in this delinquency bucket' }],
  [OperatorRequestFilters, { state: 'Only the requests in this state (`PENDING`: those waiting for a checker)' }],
  [OperatorLoanFilters, { delinquency: 'Only the active loans in this delinquency bucket (each judged on its own today)', status: 'Only the loans of this status', party_id: 'Only the loans of this party', sort: 'The order: `created_at` (oldest first, the default), `oldest_unpaid_due_date` (the oldest unpaid installment first, loans that owe nothing last: among active loans of the live world, the longest past due first), `-principal` (largest principal first). A cursor belongs to its order' }],
  [
    DeliveryFilters,
    {
      status: 'Only the deliveries in this status (`failed`: those whose retries ran out)',
      endpoint_id: 'Only the deliveries to this webhook endpoint',
      event_id: 'Only the deliveries of this event (its `webhook-id`)',
    },
  ],
  [PayoffQuery, { as_of: 'The day the payoff would be paid (`YYYY-MM-DD`), from today to 60 days ahead; today when left out' }],
  [
    TransactionFilters,
    {
      type: 'Only the ledger entries of this type',
      from: 'Only entries effective on or after this day (`YYYY-MM-DD`)',
      to: 'Only entries effective on or before this day (`YYYY-MM-DD`); not before `from`',
    },
  ],
  [
    EventFilters,
    {
      type: 'Only the events of this type',
      resource_id: 'Only the events about this resource (the id of what `data` shows)',
      since: 'Only the events written at or after this instant (UTC)',
      until: 'Only the events written before this instant (UTC)',
    },
  ],
  [AccrualQuery, { as_of: 'The last day to accrue interest through (`YYYY-MM-DD`), not after today in UTC; today when left out' }],
  [ProductActiveFilter, { active: '`true` for the products partners can apply for, `false` for the retired ones' }],
  [
    AuditEventFilters,
    {
      action: 'Only the entries of this action',
      subject_id: 'Only the entries about this subject (a key, a session, an application, a loan, …)',
      api_client_id: 'Only the entries of this API client',
      party_id: 'Only the entries of this party',
    },
  ],
])
