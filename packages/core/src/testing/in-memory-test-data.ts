import * as TE from 'fp-ts/lib/TaskEither.js'
import type { TestData, WipedTestData } from '../ports/test-data.js'
import type { InMemoryIdempotencyStore } from './in-memory-idempotency-store.js'
import type { InMemoryWorld } from './in-memory-core-deps.js'

/** `TestData` over an in-memory test world and its idempotency records: the PostgreSQL wipe's semantics. */
export const inMemoryTestData = (world: InMemoryWorld, idempotency: InMemoryIdempotencyStore): TestData => ({
  wipe: (clientId, audited) =>
    TE.fromIO(() => {
      const { sessionIds, partyIds, events: webhookEvents } = world.sessions.forgetClient(clientId)
      const { applications, loanIds, payments, applicationIds } = world.applications.forget(clientId, partyIds)
      const events = world.eventLog.forget(clientId, partyIds, loanIds, applicationIds)
      world.paymentMethods.forgetLoans(loanIds)
      const testClocks = world.testClocks.forgetParties(partyIds)
      for (const store of [world.documents, world.challenges, world.webhooks]) store.forgetSessions(sessionIds)
      world.audit.forget(clientId, partyIds)
      idempotency.forgetScope(clientId)
      const wiped: WipedTestData = {
        onboardingSessions: sessionIds.size,
        parties: partyIds.size,
        loanApplications: applications,
        loans: loanIds.size,
        payments,
        events,
        webhookEvents,
        testClocks,
      }
      world.audit.append(audited(wiped))
      return wiped
    }),
})
