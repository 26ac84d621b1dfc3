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
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Servicing of the key's party's loans (spec §4.5, docs/servicing.md). */
export const servicingRoutes = (deps: AppDeps): Routes => ({
  listLoansForParty: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listLoansForParty(deps)(callerOf(ctx), ctx.query), TE.map(envelope(loanView)))()),
  },
  getLoanForParty: {
    handle: async (ctx) => respond(ctx, 200, await pipe(getLoanForParty(deps)(callerOf(ctx), ctx.params), TE.map(loanView))()),
  },
  listLoanBalancesForParty: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listLoanBalancesForParty(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(balanceView)))()),
  },
  getLatestLoanBalanceForParty: {
    handle: async (ctx) => respond(ctx, 200, await pipe(getLatestLoanBalanceForParty(deps)(callerOf(ctx), ctx.params), TE.map(balanceView))()),
  },
  listLoanScheduleForParty: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listLoanScheduleForParty(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(installmentView)))()),
  },
  listTransactionsForPartyLoan: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listTransactionsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(transactionView)))()),
  },
  listCollateralForPartyLoan: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listCollateralForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(collateralView)))()),
  },
  listDocumentsForPartyLoan: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listDocumentsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(loanDocumentView)))()),
  },
  listPaymentMethodsForPartyLoan: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listPaymentMethodsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(paymentMethodView)))()),
  },
  createPaymentMethodForPartyLoan: {
    handle: async (ctx) =>
      respond(ctx, 201, await pipe(createPaymentMethodForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(paymentMethodView))()),
  },
  updatePaymentMethodForPartyLoan: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(updatePaymentMethodForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(paymentMethodView))()),
  },
  createPaymentIntentForPartyLoan: {
    handle: async (ctx) => {
      const key = ctx.get('Idempotency-Key')
      respond(
        ctx,
        201,
        await pipe(createPaymentIntentForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx), key === '' ? undefined : key), TE.map(paymentView))(),
      )
    },
  },
})
