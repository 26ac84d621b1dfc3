import {
  balanceView,
  collateralView,
  createPaymentIntentForPartyLoan,
  createPaymentMethodForPartyLoan,
  envelope,
  getLatestLoanBalanceForParty,
  getLoanForParty,
  installmentView,
  listCollateralForPartyLoan,
  listDocumentsForPartyLoan,
  listLoanBalancesForParty,
  listLoanScheduleForParty,
  listLoansForParty,
  listPaymentMethodsForPartyLoan,
  listTransactionsForPartyLoan,
  loanDocumentView,
  loanView,
  paymentMethodView,
  paymentView,
  transactionView,
  updatePaymentMethodForPartyLoan,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { callerOf, routes } from './route.js'

/** Servicing of the key's party's loans (spec §4.5, docs/servicing.md). */
export const servicingRoutes = (deps: AppDeps) =>
  routes({
  listLoansForParty: {
    run: (ctx) => pipe(listLoansForParty(deps)(callerOf(ctx), ctx.query), TE.map(envelope(loanView))),
  },
  getLoanForParty: {
    run: (ctx) => pipe(getLoanForParty(deps)(callerOf(ctx), ctx.params), TE.map(loanView)),
  },
  listLoanBalancesForParty: {
    run: (ctx) => pipe(listLoanBalancesForParty(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(balanceView))),
  },
  getLatestLoanBalanceForParty: {
    run: (ctx) => pipe(getLatestLoanBalanceForParty(deps)(callerOf(ctx), ctx.params), TE.map(balanceView)),
  },
  listLoanScheduleForParty: {
    run: (ctx) => pipe(listLoanScheduleForParty(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(installmentView))),
  },
  listTransactionsForPartyLoan: {
    run: (ctx) => pipe(listTransactionsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(transactionView))),
  },
  listCollateralForPartyLoan: {
    run: (ctx) => pipe(listCollateralForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(collateralView))),
  },
  listDocumentsForPartyLoan: {
    run: (ctx) => pipe(listDocumentsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(loanDocumentView))),
  },
  listPaymentMethodsForPartyLoan: {
    run: (ctx) => pipe(listPaymentMethodsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(paymentMethodView))),
  },
  createPaymentMethodForPartyLoan: {
    run: (ctx) => pipe(createPaymentMethodForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(paymentMethodView)),
  },
  updatePaymentMethodForPartyLoan: {
    run: (ctx) => pipe(updatePaymentMethodForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(paymentMethodView)),
  },
  createPaymentIntentForPartyLoan: {
    run: (ctx) => pipe(createPaymentIntentForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx), ctx.state.idempotencyKey), TE.map(paymentView)),
  },
})
