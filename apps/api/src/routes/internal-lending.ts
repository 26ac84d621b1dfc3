import {
  approveLoanApplication,
  createLoanProduct,
  declineLoanApplication,
  envelope,
  listLoanApplicationsForReview,
  listLoanProducts,
  loanApplicationView,
  loanProductView,
  loanView,
  updateLoanProduct,
} from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import type { Routes } from './route.js'

/** The loan product catalogue and credit decisions (INTERNAL_API_TOKEN only; docs/applications.md). */
export const internalLendingRoutes = (deps: AppDeps): Routes => ({
  listLoanProducts: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listLoanProducts(deps)(ctx.query), TE.map(envelope(loanProductView)))()),
  },
  createLoanProduct: {
    handle: async (ctx) => respond(ctx, 201, await pipe(createLoanProduct(deps)(bodyOf(ctx)), TE.map(loanProductView))()),
  },
  updateLoanProduct: {
    handle: async (ctx) => respond(ctx, 200, await pipe(updateLoanProduct(deps)(ctx.params, bodyOf(ctx)), TE.map(loanProductView))()),
  },
  listLoanApplicationsForReview: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listLoanApplicationsForReview(deps)(ctx.query), TE.map(envelope(loanApplicationView)))()),
  },
  approveLoanApplication: {
    handle: async (ctx) =>
      respond(
        ctx,
        200,
        await pipe(
          approveLoanApplication(deps)(ctx.params, bodyOf(ctx)),
          TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan) })),
        )(),
      ),
  },
  declineLoanApplication: {
    handle: async (ctx) => respond(ctx, 200, await pipe(declineLoanApplication(deps)(ctx.params, bodyOf(ctx)), TE.map(loanApplicationView))()),
  },
})
