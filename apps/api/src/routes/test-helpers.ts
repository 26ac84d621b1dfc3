import {
  loanApplicationView,
  loanView,
  partyView,
  paymentView,
  simulateApplicationApproval,
  simulateApplicationDecline,
  simulateOnboardingApproval,
  simulateOnboardingRejection,
  simulatePaymentReturn,
  reviewView,
  createTestClock,
  getTestClock,
  advanceTestClock,
  testClockView,
  wipeTestData,
  wipedTestDataView,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { partnerContext } from '../http/audit-context.js'
import { callerOf, routes } from './route.js'

/**
 * The test helpers (decisions 130–132; docs/testing.md): a test key's simulations of the
 * operator's decisions and the bank's returns, its party's test clock, and the wipe of its
 * client's test data (which only the test world has: `deps.testWorld.testData`).
 */
export const testHelperRoutes = (deps: AppDeps) => {
  const wipe = wipeTestData({ testData: deps.testWorld.testData, ids: deps.ids, clock: deps.clock })
  return routes({
    simulateOnboardingApproval: {
      run: (ctx, command) =>
        pipe(
          simulateOnboardingApproval(deps)(callerOf(ctx), command, partnerContext(ctx)),
          TE.map(({ session, party }) => ({ session: reviewView(session), party: partyView(party) })),
        ),
    },
    simulateOnboardingRejection: {
      run: (ctx, command) => pipe(simulateOnboardingRejection(deps)(callerOf(ctx), command, partnerContext(ctx)), TE.map(reviewView)),
    },
    simulateApplicationApproval: {
      run: (ctx, command) =>
        pipe(
          simulateApplicationApproval(deps)(callerOf(ctx), command, partnerContext(ctx)),
          TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan, deps.clock.now()) })),
        ),
    },
    simulateApplicationDecline: {
      run: (ctx, command) => pipe(simulateApplicationDecline(deps)(callerOf(ctx), command, partnerContext(ctx)), TE.map(loanApplicationView)),
    },
    createTestClock: {
      run: (ctx, command) => pipe(createTestClock(deps)(callerOf(ctx), command), TE.map(testClockView)),
    },
    getTestClock: {
      run: (ctx, command) => pipe(getTestClock(deps)(callerOf(ctx), command), TE.map(testClockView)),
    },
    advanceTestClock: {
      run: (ctx, command) =>
        pipe(
          advanceTestClock(deps)(callerOf(ctx), command),
          TE.map((clock) => {
            deps.clockAdvances.wake()
            return testClockView(clock)
          }),
        ),
    },
    simulatePaymentReturn: {
      run: (ctx, command) => pipe(simulatePaymentReturn({ ...deps, achEntries: deps.ach?.entries })(callerOf(ctx), command, partnerContext(ctx)), TE.map(paymentView)),
    },
    wipeTestData: {
      run: (ctx, command) => pipe(wipe(callerOf(ctx), command, partnerContext(ctx)), TE.map((wiped) => ({ deleted: wipedTestDataView(wiped) }))),
    },
  })
}
