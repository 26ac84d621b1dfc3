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
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { answer } from '../http/respond.js'
import type { Routes } from './route.js'

/** The loan product catalogue, credit decisions and servicing operations (INTERNAL_API_TOKEN only; docs/applications.md, docs/servicing.md). */
export const internalLendingRoutes = (deps: AppDeps): Routes => ({
  listLoanProducts: {
    handle: (ctx) => answer(ctx, 200, listLoanProducts(deps)(ctx.query), envelope(loanProductView)),
  },
  createLoanProduct: {
    handle: (ctx) => answer(ctx, 201, createLoanProduct(deps)(bodyOf(ctx), operatorContext(ctx)), loanProductView),
  },
  updateLoanProduct: {
    handle: (ctx) => answer(ctx, 200, updateLoanProduct(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), loanProductView),
  },
  listLoanApplicationsForReview: {
    handle: (ctx) => answer(ctx, 200, listLoanApplicationsForReview(deps)(ctx.query), envelope(loanApplicationView)),
  },
  approveLoanApplication: {
    handle: (ctx) =>
      answer(
        ctx,
        200,
        approveLoanApplication(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)),
        ({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan) }),
      ),
  },
  accrueInterest: {
    handle: (ctx) =>
      answer(
        ctx,
        200,
        runInterestAccrual(deps)(ctx.query, operatorContext(ctx)),
        (run) => ({ as_of: run.asOf, loans_examined: run.loansExamined, loans_changed: run.loansChanged, accruals: run.accruals }),
      ),
  },
  addLoanCollateral: {
    handle: (ctx) => answer(ctx, 201, addLoanCollateral(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), collateralView),
  },
  attachLoanDocument: {
    handle: (ctx) => answer(ctx, 201, attachLoanDocument(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), loanDocumentView),
  },
  reverseLoanPayment: {
    handle: (ctx) => answer(ctx, 200, reverseLoanPayment(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), paymentView),
  },
  declineLoanApplication: {
    handle: (ctx) => answer(ctx, 200, declineLoanApplication(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), loanApplicationView),
  },
})
