import {
  createLoanApplication,
  getLoanApplication,
  loanApplicationView,
  previewLoanApplicationSchedule,
  submitLoanApplication,
  updateLoanApplication,
  withdrawLoanApplication,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { callerOf, routes } from './route.js'

/** Loan applications of the key's party (spec §4.4, docs/applications.md). */
export const applicationRoutes = (deps: AppDeps) =>
  routes({
  createLoanApplication: {
    run: (ctx, command) => pipe(createLoanApplication(deps)(callerOf(ctx), command), TE.map(loanApplicationView)),
  },
  getLoanApplication: {
    run: (ctx, command) => pipe(getLoanApplication(deps)(callerOf(ctx), command), TE.map(loanApplicationView)),
  },
  updateLoanApplication: {
    run: (ctx, command) => pipe(updateLoanApplication(deps)(callerOf(ctx), command), TE.map(loanApplicationView)),
  },
  submitLoanApplication: {
    run: (ctx, command) => pipe(submitLoanApplication(deps)(callerOf(ctx), command), TE.map(loanApplicationView)),
  },
  withdrawLoanApplication: {
    run: (ctx, command) => pipe(withdrawLoanApplication(deps)(callerOf(ctx), command), TE.map(loanApplicationView)),
  },
  previewLoanApplicationSchedule: {
    run: (ctx, command) => previewLoanApplicationSchedule(deps)(callerOf(ctx), command),
  },
})
