import {
  createLoanApplication,
  getLoanApplication,
  loanApplicationView,
  previewLoanApplicationSchedule,
  submitLoanApplication,
  updateLoanApplication,
  withdrawLoanApplication,
} from '@lendgate/core'
import { identity } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { answer } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Loan applications of the key's party (spec §4.4, docs/applications.md). */
export const applicationRoutes = (deps: AppDeps): Routes => ({
  createLoanApplication: {
    handle: (ctx) => answer(ctx, 201, createLoanApplication(deps)(callerOf(ctx), bodyOf(ctx)), loanApplicationView),
  },
  getLoanApplication: {
    handle: (ctx) => answer(ctx, 200, getLoanApplication(deps)(callerOf(ctx), ctx.params), loanApplicationView),
  },
  updateLoanApplication: {
    handle: (ctx) => answer(ctx, 200, updateLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), loanApplicationView),
  },
  submitLoanApplication: {
    handle: (ctx) => answer(ctx, 200, submitLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), loanApplicationView),
  },
  withdrawLoanApplication: {
    handle: (ctx) => answer(ctx, 200, withdrawLoanApplication(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), loanApplicationView),
  },
  previewLoanApplicationSchedule: {
    handle: (ctx) => answer(ctx, 200, previewLoanApplicationSchedule(deps)(callerOf(ctx), ctx.params, ctx.query), identity),
  },
})
