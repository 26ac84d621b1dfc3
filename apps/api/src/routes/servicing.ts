import {
  autopayView,
  balanceView,
  collateralView,
  createPaymentIntentForPartyLoan,
  createPaymentMethodForPartyLoan,
  envelope,
  getLatestLoanBalanceForParty,
  getLoanAutopayForParty,
  getLoanForParty,
  getLoanPayoffForParty,
  installmentView,
  listCollateralForPartyLoan,
  listPaymentsForPartyLoan,
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
  payoffView,
  setLoanAutopayForParty,
  transactionView,
  updatePaymentMethodForPartyLoan,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { callerOf, routes } from './route.js'

/** Servicing of the key's party's loans (spec §4.5, docs/servicing.md). */
export const servicingRoutes = (deps: AppDeps) => {
  // Autopay debits are taken by the origination runs of the world's ACH rails: without them, autopay cannot be turned on.
  const autopayDeps = { ...deps, debitsAutopay: deps.ach !== undefined }
  return routes({
    listLoansForParty: {
      run: (ctx, command) => pipe(listLoansForParty(deps)(callerOf(ctx), command), TE.map(envelope((loan) => loanView(loan, deps.clock.now())))),
    },
    getLoanForParty: {
      run: (ctx, command) => pipe(getLoanForParty(deps)(callerOf(ctx), command), TE.map((loan) => loanView(loan, deps.clock.now()))),
    },
    listLoanBalancesForParty: {
      run: (ctx, command) => pipe(listLoanBalancesForParty(deps)(callerOf(ctx), command), TE.map(envelope(balanceView))),
    },
    getLatestLoanBalanceForParty: {
      run: (ctx, command) => pipe(getLatestLoanBalanceForParty(deps)(callerOf(ctx), command), TE.map(balanceView)),
    },
    listLoanScheduleForParty: {
      run: (ctx, command) => pipe(listLoanScheduleForParty(deps)(callerOf(ctx), command), TE.map(envelope(installmentView))),
    },
    listTransactionsForPartyLoan: {
      run: (ctx, command) => pipe(listTransactionsForPartyLoan(deps)(callerOf(ctx), command), TE.map(envelope(transactionView))),
    },
    getLoanPayoffForParty: {
      run: (ctx, command) => pipe(getLoanPayoffForParty(deps)(callerOf(ctx), command), TE.map(payoffView)),
    },
    listPaymentsForPartyLoan: {
      run: (ctx, command) => pipe(listPaymentsForPartyLoan(deps)(callerOf(ctx), command), TE.map(envelope(paymentView))),
    },
    listCollateralForPartyLoan: {
      run: (ctx, command) => pipe(listCollateralForPartyLoan(deps)(callerOf(ctx), command), TE.map(envelope(collateralView))),
    },
    listDocumentsForPartyLoan: {
      run: (ctx, command) => pipe(listDocumentsForPartyLoan(deps)(callerOf(ctx), command), TE.map(envelope(loanDocumentView))),
    },
    listPaymentMethodsForPartyLoan: {
      run: (ctx, command) => pipe(listPaymentMethodsForPartyLoan(deps)(callerOf(ctx), command), TE.map(envelope(paymentMethodView))),
    },
    createPaymentMethodForPartyLoan: {
      run: (ctx, command) => pipe(createPaymentMethodForPartyLoan(deps)(callerOf(ctx), command), TE.map(paymentMethodView)),
    },
    updatePaymentMethodForPartyLoan: {
      run: (ctx, command) => pipe(updatePaymentMethodForPartyLoan(deps)(callerOf(ctx), command), TE.map(paymentMethodView)),
    },
    getLoanAutopayForParty: {
      run: (ctx, command) => pipe(getLoanAutopayForParty(autopayDeps)(callerOf(ctx), command), TE.map((state) => autopayView(state.loanId, state.autopay))),
    },
    setLoanAutopayForParty: {
      run: (ctx, command) => pipe(setLoanAutopayForParty(autopayDeps)(callerOf(ctx), command), TE.map((state) => autopayView(state.loanId, state.autopay))),
    },
    createPaymentIntentForPartyLoan: {
      run: (ctx, command) => pipe(createPaymentIntentForPartyLoan(deps)(callerOf(ctx), command), TE.map(paymentView)),
    },
  })
}
