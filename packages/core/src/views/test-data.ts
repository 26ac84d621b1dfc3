import type { WipedTestData } from '../ports/test-data.js'

/** What a wipe of the test world deleted, as the API and the audit log show it. */
export type WipedTestDataView = {
  readonly onboarding_sessions: number
  readonly parties: number
  readonly loan_applications: number
  readonly loans: number
  readonly payments: number
  readonly events: number
  readonly webhook_events: number
  readonly test_clocks: number
}

/** `wiped` with the API's field names. */
export const wipedTestDataView = (wiped: WipedTestData): WipedTestDataView => ({
  onboarding_sessions: wiped.onboardingSessions,
  parties: wiped.parties,
  loan_applications: wiped.loanApplications,
  loans: wiped.loans,
  payments: wiped.payments,
  events: wiped.events,
  webhook_events: wiped.webhookEvents,
  test_clocks: wiped.testClocks,
})
