import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { InvalidState, StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId } from '../domain/foundations/ids.js'

/** How many records of each kind a wipe deleted. */
export type WipedTestData = {
  readonly onboardingSessions: number
  readonly parties: number
  readonly loanApplications: number
  readonly loans: number
  readonly payments: number
  /** Of the event log. */
  readonly events: number
  /** Queued for the sessions' own endpoints. */
  readonly webhookEvents: number
  readonly testClocks: number
}

/**
 * An API client's records in the test world (decision 132). Only the test world has one: no
 * live store can be asked to wipe.
 */
export type TestData = {
  /**
   * Deletes every test-world record of API client `clientId`, at once: its onboarding sessions
   * with their addresses, documents, challenges and webhooks; the parties they made with their
   * addresses and clocks; every application and loan of those parties or made by the client's
   * keys, with their schedules, ledgers, payments, methods, collateral and documents; the events
   * of all of these, and the client's webhook endpoints; the audit events and idempotency records
   * of the client and its parties. Then appends `audited(wiped)`.
   * Keys and the live world are untouched. Refused, deleting nothing (`InvalidState`, status
   * `ach_file_in_progress`), while a payment to delete is in a test-world bank file still being
   * made: its rows must stay as they were built until it is written.
   */
  readonly wipe: (clientId: ClientId, audited: (wiped: WipedTestData) => AuditEvent) => TE.TaskEither<StoreUnavailable | InvalidState, WipedTestData>
}
