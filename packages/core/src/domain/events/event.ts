import type { World } from '../../core-deps.js'
import { instantText } from '../foundations/instant.js'
import type { EventId, LoanId, PartyId } from '../foundations/ids.js'

/** The event catalogue (docs/events.md): what a partner can list and receive. */
export const EVENT_TYPES = [
  'party.ready',
  'application.submitted',
  'application.decided',
  'loan.booked',
  'payment.succeeded',
  'payment.failed',
  'payment.reversed',
  'payment.submitted',
  'payment.settled',
  'payment.returned',
  'loan.late_fee_assessed',
  'loan.delinquency_changed',
  'loan.paid_off',
  'loan.charged_off',
] as const
/** One of `EVENT_TYPES`. */
export type EventType = (typeof EVENT_TYPES)[number]

/**
 * Something that happened to a partner's resource, written in the transaction of the change that
 * caused it. `data` is the resource as the API returns it (`resourceId` is its id), `previous`
 * the fields of it the change moved, as they were. A loan's events (`loanId`) are numbered by the
 * store, in the order written, per loan.
 */
export type EventDraft = {
  readonly id: EventId
  readonly type: EventType
  readonly partyId: PartyId
  readonly loanId: LoanId | null
  readonly resourceId: string
  readonly occurredAt: Date
  readonly data: object
  readonly previous: Readonly<Record<string, unknown>> | null
}

/** An event as stored: `sequence` is its place among its loan's events (1 first; null for an event of no loan), `seq` its place in the log. */
export type LoggedEvent = EventDraft & { readonly sequence: number | null; readonly seq: number }

/** `evt_` and 32 hex digits from a UUID. */
export const eventIdOf = (uuid: string): EventId => `evt_${uuid.replace(/-/g, '')}` as EventId

/** What an event is about: its party, its loan if any, and the resource `data` shows. */
export type EventSubject = Pick<EventDraft, 'partyId' | 'loanId' | 'resourceId'>

/** An event of `type` about `subject` at `now`. */
export const eventDraft = (
  uuid: string,
  type: EventType,
  subject: EventSubject,
  data: object,
  now: Date,
  previous: EventDraft['previous'] = null,
): EventDraft => ({ id: eventIdOf(uuid), type, ...subject, occurredAt: now, data, previous })

/** An event as the API lists it and a webhook delivers it (`timestamp` is `occurred_at`, as the Standard Webhooks envelope names it). */
export type EventView = {
  readonly id: EventId
  readonly type: EventType
  readonly livemode: boolean
  readonly timestamp: string
  readonly occurred_at: string
  readonly sequence?: number
  readonly data: object
  readonly previous_attributes?: Readonly<Record<string, unknown>>
}

/**
 * The event of `world` as partners see it: `data` with its `livemode`, as the resource's route
 * answers it; `sequence` left out for an event of no loan, `previous_attributes` when nothing was moved.
 */
export const eventView = (e: EventDraft & { readonly sequence: number | null }, world: World): EventView => ({
  id: e.id,
  type: e.type,
  livemode: world === 'live',
  timestamp: instantText(e.occurredAt),
  occurred_at: instantText(e.occurredAt),
  ...(e.sequence === null ? {} : { sequence: e.sequence }),
  data: { ...(e.data as object), livemode: world === 'live' },
  ...(e.previous === null ? {} : { previous_attributes: e.previous }),
})
