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
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { routes } from './route.js'

/** The loan product catalogue, credit decisions and servicing operations (INTERNAL_API_TOKEN only; docs/applications.md, docs/servicing.md). */
export const internalLendingRoutes = (deps: AppDeps) =>
  routes({
  listLoanProducts: {
    run: (ctx) => pipe(listLoanProducts(deps)(ctx.query), TE.map(envelope(loanProductView))),
  },
  createLoanProduct: {
    run: (ctx) => pipe(createLoanProduct(deps)(bodyOf(ctx), operatorContext(ctx)), TE.map(loanProductView)),
  },
  updateLoanProduct: {
    run: (ctx) => pipe(updateLoanProduct(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(loanProductView)),
  },
  listLoanApplicationsForReview: {
    run: (ctx) => pipe(listLoanApplicationsForReview(deps)(ctx.query), TE.map(envelope(loanApplicationView))),
  },
  approveLoanApplication: {
    run: (ctx) => pipe(approveLoanApplication(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan) }))),
  },
  accrueInterest: {
    run: (ctx) => pipe(runInterestAccrual(deps)(ctx.query, operatorContext(ctx)), TE.map((run) => ({ as_of: run.asOf, loans_examined: run.loansExamined, loans_changed: run.loansChanged, accruals: run.accruals }))),
  },
  addLoanCollateral: {
    run: (ctx) => pipe(addLoanCollateral(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(collateralView)),
  },
  attachLoanDocument: {
    run: (ctx) => pipe(attachLoanDocument(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(loanDocumentView)),
  },
  reverseLoanPayment: {
    run: (ctx) => pipe(reverseLoanPayment(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(paymentView)),
  },
  declineLoanApplication: {
    run: (ctx) => pipe(declineLoanApplication(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(loanApplicationView)),
  },
})
