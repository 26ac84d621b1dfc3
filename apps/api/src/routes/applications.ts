import {
  createLoanApplication,
  getLoanApplication,
  loanApplicationView,
  previewLoanApplicationSchedule,
  submitLoanApplication,
  updateLoanApplication,
  withdrawLoanApplication,
} from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Loan applications of the key's party (spec §4.4, docs/applications.md). */
export const applicationRoutes = (deps: AppDeps): Routes => ({
  createLoanApplication: {
    handle: async (ctx) => respond(ctx, 201, await pipe(createLoanApplication(deps)(callerOf(ctx), bodyOf(ctx)), TE.map(loanApplicationView))()),
  },
  getLoanApplication: {
    handle: async (ctx) => respond(ctx, 200, await pipe(getLoanApplication(deps)(callerOf(ctx), ctx.params), TE.map(loanApplicationView))()),
  },
  updateLoanApplication: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(updateLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(loanApplicationView))()),
  },
  submitLoanApplication: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(submitLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(loanApplicationView))()),
  },
  withdrawLoanApplication: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(withdrawLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(loanApplicationView))()),
  },
  previewLoanApplicationSchedule: {
    handle: async (ctx) => respond(ctx, 200, await previewLoanApplicationSchedule(deps)(callerOf(ctx), ctx.params, ctx.query)()),
  },
})
