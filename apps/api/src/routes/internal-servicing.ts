import {
  asLoansParty,
  balanceView,
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
import { routes } from './route.js'

/**
 * Operators' reads of every party's loans (docs/console.md): the delinquency queue, and a loan's
 * schedule, ledger, payments and balances read as its party's routes read them (on its party's
 * clock: a test clock in the test world), in the same views.
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
  })
