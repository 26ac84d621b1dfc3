import {
  actionPreviewView,
  approveOperatorRequest,
  approvedRequestView,
  askOperatorRequest,
  getOperatorRequest,
  listOperatorRequests,
  operatorRequestView,
  previewOperatorAction,
  previewOperatorRequest,
  rejectOperatorRequest,
  type ActingOperator,
  asLoansParty,
  balanceView,
  delinquencySummaryView,
  getDelinquencySummary,
  envelope,
  getLoanForOperator,
  installmentView,
  listLoanBalancesForParty,
  listLoanScheduleForParty,
  listLoansForOperator,
  listPaymentsForPartyLoan,
  listTransactionsForPartyLoan,
  loanViewOn,
  paymentView,
  transactionView,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import type { AppContext } from '../http/context.js'
import { routes } from './route.js'

/** The named operator of a console session; none for the internal token (which maker-checker refuses). */
const actingOperator = (ctx: AppContext): ActingOperator | null => {
  const named = ctx.state.operator
  return named === undefined ? null : { operator: named.operator, requestId: ctx.state.requestId }
}

/**
 * Operators' reads of every party's loans (docs/console.md): the delinquency queue and the
 * portfolio's delinquency by bucket, and a loan's
 * schedule, ledger, payments and balances read as its party's routes read them (on its party's
 * clock: a test clock in the test world), in the same views; and maker-checker for reversals and
 * charge-offs (decision 152).
 */
export const internalServicingRoutes = (deps: AppDeps) =>
  routes({
    listLoans: {
      run: (_ctx, command) => pipe(listLoansForOperator(deps)(command), TE.map(envelope(({ loan, today }) => loanViewOn(loan, today)))),
    },
    getLoan: {
      run: (_ctx, command) => pipe(getLoanForOperator(deps)(command), TE.map(({ loan, today }) => loanViewOn(loan, today))),
    },
    listLoanSchedule: {
      run: (_ctx, command) => pipe(asLoansParty(deps, (clock) => listLoanScheduleForParty({ ...deps, clock }))(command), TE.map(envelope(installmentView))),
    },
    listLoanTransactions: {
      run: (_ctx, command) => pipe(asLoansParty(deps, () => listTransactionsForPartyLoan(deps))(command), TE.map(envelope(transactionView))),
    },
    listLoanPayments: {
      run: (_ctx, command) => pipe(asLoansParty(deps, () => listPaymentsForPartyLoan(deps))(command), TE.map(envelope(paymentView))),
    },
    listLoanBalances: {
      run: (_ctx, command) => pipe(asLoansParty(deps, () => listLoanBalancesForParty(deps))(command), TE.map(envelope(balanceView))),
    },
    getDelinquencySummary: {
      run: (_ctx, command) => pipe(getDelinquencySummary(deps)(command), TE.map(delinquencySummaryView)),
    },
    askOperatorRequest: {
      run: (ctx, command) => pipe(askOperatorRequest(deps)(command, actingOperator(ctx)), TE.map(operatorRequestView)),
    },
    listOperatorRequests: {
      run: (_ctx, command) => pipe(listOperatorRequests(deps)(command), TE.map(envelope(operatorRequestView))),
    },
    getOperatorRequest: {
      run: (_ctx, command) => pipe(getOperatorRequest(deps)(command), TE.map(operatorRequestView)),
    },
    previewOperatorAction: {
      run: (_ctx, command) => pipe(previewOperatorAction(deps)(command), TE.map(actionPreviewView)),
    },
    previewOperatorRequest: {
      run: (_ctx, command) => pipe(previewOperatorRequest(deps)(command), TE.map(actionPreviewView)),
    },
    approveOperatorRequest: {
      run: (ctx, command) => pipe(approveOperatorRequest(deps)(command, actingOperator(ctx)), TE.map((approved) => approvedRequestView(approved, deps.clock.now()))),
    },
    rejectOperatorRequest: {
      run: (ctx, command) => pipe(rejectOperatorRequest(deps)(command, actingOperator(ctx)), TE.map(operatorRequestView)),
    },
  })
