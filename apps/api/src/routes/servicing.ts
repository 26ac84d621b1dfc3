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
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { answer } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Servicing of the key's party's loans (spec §4.5, docs/servicing.md). */
export const servicingRoutes = (deps: AppDeps): Routes => ({
  listLoansForParty: {
    handle: (ctx) => answer(ctx, 200, listLoansForParty(deps)(callerOf(ctx), ctx.query), envelope(loanView)),
  },
  getLoanForParty: {
    handle: (ctx) => answer(ctx, 200, getLoanForParty(deps)(callerOf(ctx), ctx.params), loanView),
  },
  listLoanBalancesForParty: {
    handle: (ctx) => answer(ctx, 200, listLoanBalancesForParty(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(balanceView)),
  },
  getLatestLoanBalanceForParty: {
    handle: (ctx) => answer(ctx, 200, getLatestLoanBalanceForParty(deps)(callerOf(ctx), ctx.params), balanceView),
  },
  listLoanScheduleForParty: {
    handle: (ctx) => answer(ctx, 200, listLoanScheduleForParty(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(installmentView)),
  },
  listTransactionsForPartyLoan: {
    handle: (ctx) => answer(ctx, 200, listTransactionsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(transactionView)),
  },
  listCollateralForPartyLoan: {
    handle: (ctx) => answer(ctx, 200, listCollateralForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(collateralView)),
  },
  listDocumentsForPartyLoan: {
    handle: (ctx) => answer(ctx, 200, listDocumentsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(loanDocumentView)),
  },
  listPaymentMethodsForPartyLoan: {
    handle: (ctx) => answer(ctx, 200, listPaymentMethodsForPartyLoan(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(paymentMethodView)),
  },
  createPaymentMethodForPartyLoan: {
    handle: (ctx) => answer(ctx, 201, createPaymentMethodForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), paymentMethodView),
  },
  updatePaymentMethodForPartyLoan: {
    handle: (ctx) => answer(ctx, 200, updatePaymentMethodForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), paymentMethodView),
  },
  createPaymentIntentForPartyLoan: {
    handle: (ctx) => {
      const key = ctx.get('Idempotency-Key')
      return answer(ctx, 201, createPaymentIntentForPartyLoan(deps)(callerOf(ctx), ctx.params, bodyOf(ctx), key === '' ? undefined : key), paymentView)
    },
  },
})
