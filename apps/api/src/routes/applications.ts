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
import { bodyOf } from '../http/body.js'
import { callerOf, routes } from './route.js'

/** Loan applications of the key's party (spec §4.4, docs/applications.md). */
export const applicationRoutes = (deps: AppDeps) =>
  routes({
  createLoanApplication: {
    run: (ctx) => pipe(createLoanApplication(deps)(callerOf(ctx), bodyOf(ctx)), TE.map(loanApplicationView)),
  },
  getLoanApplication: {
    run: (ctx) => pipe(getLoanApplication(deps)(callerOf(ctx), ctx.params), TE.map(loanApplicationView)),
  },
  updateLoanApplication: {
    run: (ctx) => pipe(updateLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(loanApplicationView)),
  },
  submitLoanApplication: {
    run: (ctx) => pipe(submitLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(loanApplicationView)),
  },
  withdrawLoanApplication: {
    run: (ctx) => pipe(withdrawLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(loanApplicationView)),
  },
  previewLoanApplicationSchedule: {
    run: (ctx) => previewLoanApplicationSchedule(deps)(callerOf(ctx), ctx.params, ctx.query),
  },
})
