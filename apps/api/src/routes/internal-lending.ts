import {
  returnRateReportView,
  InboundFileCommand,
  decode,
  achInboundFileView,
  achOriginationRunView,
  invalidState,
  addLoanCollateral,
  attachLoanDocument,
  collateralView,
  loanDocumentView,
  paymentView,
  reverseLoanPayment,
  chargeOffLoan,
  runInterestAccrual,
  approveLoanApplication,
  createLoanProduct,
  declineLoanApplication,
  envelope,
  listLoanApplicationsForReview,
  getLoanApplicationForReview,
  previewLoanApplicationScheduleForReview,
  listLoanProducts,
  loanApplicationView,
  loanProductView,
  loanView,
  updateLoanProduct,
  type AchInboundFileRecord,
  type InvalidState,
  type NotFound,
  type StoreUnavailable,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { FILE_FIELD } from '../http/body.js'
import { routes } from './route.js'
import { loggedLoanFailures } from '../loan-failures.js'

/** The loan product catalogue, credit decisions and servicing operations (INTERNAL_API_TOKEN only; docs/applications.md, docs/servicing.md). */
export const internalLendingRoutes = (deps: AppDeps) =>
  routes({
  listLoanProducts: {
    run: (_ctx, command) => pipe(listLoanProducts(deps)(command), TE.map(envelope(loanProductView))),
  },
  createLoanProduct: {
    run: (ctx, command) => pipe(createLoanProduct(deps)(command, operatorContext(ctx)), TE.map(loanProductView)),
  },
  updateLoanProduct: {
    run: (ctx, command) => pipe(updateLoanProduct(deps)(command, operatorContext(ctx)), TE.map(loanProductView)),
  },
  listLoanApplicationsForReview: {
    run: (_ctx, command) => pipe(listLoanApplicationsForReview(deps)(command), TE.map(envelope(loanApplicationView))),
  },
  getLoanApplicationForReview: {
    run: (_ctx, command) => pipe(getLoanApplicationForReview(deps)(command), TE.map(loanApplicationView)),
  },
  previewLoanApplicationScheduleForReview: {
    run: (_ctx, command) => previewLoanApplicationScheduleForReview(deps)(command),
  },
  approveLoanApplication: {
    run: (ctx, command) => pipe(approveLoanApplication(deps)(command, operatorContext(ctx)), TE.map(({ application, loan }) => ({ application: loanApplicationView(application), loan: loanView(loan, deps.clock.now()) }))),
  },
  accrueInterest: {
    run: (ctx, command) => pipe(runInterestAccrual({ ...deps, failures: loggedLoanFailures(ctx.state.log, deps.metrics) })(command, operatorContext(ctx)), TE.map((run) => ({ as_of: run.asOf, loans_examined: run.loansExamined, loans_changed: run.loansChanged, accruals: run.accruals, loans_failed: run.loansFailed }))),
  },
  originateAchFile: {
    run: (_ctx, command) =>
      deps.ach === undefined ? TE.left(invalidState('ach_origination', 'disabled', 'cut a file')) : pipe(deps.ach.originateNow(command), TE.map(achOriginationRunView)),
  },
  ingestAchInboundFile: {
    run: (ctx, command) => {
      if (deps.ach === undefined) return TE.left(invalidState('ach_origination', 'disabled', 'ingest a bank file'))
      const file = command[FILE_FIELD]
      return pipe(deps.ach.ingest(Buffer.from(typeof file === 'string' ? file : '', 'utf8'), operatorContext(ctx)), TE.map(achInboundFileView))
    },
  },
  getAchReturnRates: {
    run: (_ctx, command) =>
      deps.ach?.returnRates === undefined ? TE.left(invalidState('ach_origination', 'disabled', 'read return rates')) : pipe(deps.ach.returnRates(command), TE.map(returnRateReportView)),
  },
  getAchInboundFile: {
    run: (_ctx, command) =>
      pipe(
        TE.fromEither(decode(InboundFileCommand)(command)),
        TE.chainW((cmd): TE.TaskEither<InvalidState | NotFound | StoreUnavailable, AchInboundFileRecord> =>
          deps.ach === undefined ? TE.left(invalidState('ach_origination', 'disabled', 'read a bank file')) : deps.ach.inboundFile(cmd.inboundFileId),
        ),
        TE.map(achInboundFileView),
      ),
  },
  addLoanCollateral: {
    run: (ctx, command) => pipe(addLoanCollateral(deps)(command, operatorContext(ctx)), TE.map(collateralView)),
  },
  attachLoanDocument: {
    run: (ctx, command) => pipe(attachLoanDocument(deps)(command, operatorContext(ctx)), TE.map(loanDocumentView)),
  },
  chargeOffLoan: {
    run: (ctx, command) => pipe(chargeOffLoan(deps)(command, operatorContext(ctx)), TE.map((loan) => loanView(loan, deps.clock.now()))),
  },
  reverseLoanPayment: {
    run: (ctx, command) => pipe(reverseLoanPayment(deps)(command, operatorContext(ctx)), TE.map(paymentView)),
  },
  declineLoanApplication: {
    run: (ctx, command) => pipe(declineLoanApplication(deps)(command, operatorContext(ctx)), TE.map(loanApplicationView)),
  },
})
