import {
  addLoanCollateral,
  attachLoanDocument,
  collateralView,
  loanDocumentView,
  paymentView,
  reverseLoanPayment,
  runInterestAccrual,
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
import { operatorContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import type { Routes } from './route.js'

/** The loan product catalogue, credit decisions and servicing operations (INTERNAL_API_TOKEN only; docs/applications.md, docs/servicing.md). */
export const internalLendingRoutes = (deps: AppDeps): Routes => ({
  listLoanProducts: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listLoanProducts(deps)(ctx.query), TE.map(envelope(loanProductView)))()),
  },
  createLoanProduct: {
    handle: async (ctx) => respond(ctx, 201, await pipe(createLoanProduct(deps)(bodyOf(ctx), operatorContext(ctx)), TE.map(loanProductView))()),
  },
  updateLoanProduct: {
    handle: async (ctx) => respond(ctx, 200, await pipe(updateLoanProduct(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(loanProductView))()),
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
          approveLoanApplication(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)),
          TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan) })),
        )(),
      ),
  },
  accrueInterest: {
    handle: async (ctx) =>
      respond(
        ctx,
        200,
        await pipe(
          runInterestAccrual(deps)(ctx.query, operatorContext(ctx)),
          TE.map((run) => ({ as_of: run.asOf, loans_examined: run.loansExamined, loans_changed: run.loansChanged, accruals: run.accruals })),
        )(),
      ),
  },
  addLoanCollateral: {
    handle: async (ctx) => respond(ctx, 201, await pipe(addLoanCollateral(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(collateralView))()),
  },
  attachLoanDocument: {
    handle: async (ctx) => respond(ctx, 201, await pipe(attachLoanDocument(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(loanDocumentView))()),
  },
  reverseLoanPayment: {
    handle: async (ctx) => respond(ctx, 200, await pipe(reverseLoanPayment(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(paymentView))()),
  },
  declineLoanApplication: {
    handle: async (ctx) => respond(ctx, 200, await pipe(declineLoanApplication(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(loanApplicationView))()),
  },
})
