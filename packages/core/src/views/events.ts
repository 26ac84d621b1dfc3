import type { World } from '../core-deps.js'
import { eventDraft, eventView, type EventDraft, type EventType } from '../domain/events/event.js'
import type { SessionId } from '../domain/foundations/ids.js'
import type { PartyReady } from '../domain/webhooks/webhook-event.js'
import type { PartyId } from '../domain/foundations/ids.js'
import type { LedgerTransaction, Loan } from '../domain/loans/loan.js'
import type { LoanApplication } from '../domain/loans/loan-application.js'
import type { Payment } from '../domain/loans/payment.js'
import { loanApplicationView } from './loan-applications.js'
import { paymentView } from './loan-payments.js'
import { entryView, loanViewOn } from './loans.js'
import type { PartyView } from './onboarding.js'

/** The events of the catalogue (docs/events.md), each with the resource it shows as the API returns it. */

/** `party.ready`: the party as `getPartyBySessionId` returns it, on approval. */
export const partyReadyDraft = (uuid: string, party: PartyView, now: Date): EventDraft =>
  eventDraft(uuid, 'party.ready', { partyId: party.party_id as PartyId, loanId: null, resourceId: party.party_id }, party, now)

/** An application event: the application as its route returns it; `previous` its status before. */
export const applicationEvent = (uuid: string, type: 'application.submitted' | 'application.decided', a: LoanApplication, before: LoanApplication, now: Date): EventDraft =>
  eventDraft(uuid, type, { partyId: a.partyId, loanId: null, resourceId: a.id }, loanApplicationView(a), now, { status: before.status })

/** A loan event: the loan as its route returns it on its date `today`; `previous` what the change moved. */
export const loanEvent = (
  uuid: string,
  type: Extract<EventType, 'loan.booked' | 'loan.delinquency_changed' | 'loan.paid_off' | 'loan.charged_off'>,
  loan: Loan,
  today: string,
  now: Date,
  previous: EventDraft['previous'] = null,
): EventDraft => eventDraft(uuid, type, { partyId: loan.partyId, loanId: loan.id, resourceId: loan.id }, loanViewOn(loan, today), now, previous)

/** A payment event of `loan`'s: the payment as its route returns it; `previous` its status before, for a change of one. */
export const paymentEvent = (
  uuid: string,
  type: Extract<EventType, 'payment.succeeded' | 'payment.failed' | 'payment.reversed' | 'payment.submitted' | 'payment.settled' | 'payment.returned'>,
  payment: Payment,
  loan: Pick<Loan, 'partyId'>,
  now: Date,
  previous: EventDraft['previous'] = null,
): EventDraft => eventDraft(uuid, type, { partyId: loan.partyId, loanId: payment.loanId, resourceId: payment.id }, paymentView(payment), now, previous)

/** `loan.late_fee_assessed`: the `LATE_FEE` ledger entry as the ledger route returns it, without its place in the ledger. */
export const lateFeeEvent = (uuid: string, entry: LedgerTransaction, loan: Pick<Loan, 'partyId' | 'currency'>, now: Date): EventDraft =>
  eventDraft(uuid, 'loan.late_fee_assessed', { partyId: loan.partyId, loanId: entry.loanId, resourceId: entry.id }, entryView(entry, loan.currency), now)

/** The `party.ready` of the party `party` of the session `sessionId`, approved at `now` in `world`. */
export const partyReady = (uuid: string, sessionId: SessionId, party: PartyView, now: Date, world: World): PartyReady => {
  const logged = partyReadyDraft(uuid, party, now)
  return {
    logged,
    queued: {
      id: logged.id,
      sessionId,
      type: 'party.ready',
      body: JSON.stringify(eventView({ ...logged, sequence: null }, world)),
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    },
  }
}
