import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { collateralAddedEvent, documentAttachedEvent, OPERATOR_CONTEXT, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode } from '../../domain/foundations/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type LoanId } from '../../domain/foundations/ids.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { CollateralInput, newCollateral, type CollateralItem } from '../../domain/loans/collateral.js'
import { LoanDocumentInput, newLoanDocument, type LoanDocument } from '../../domain/loans/loan-document.js'
import type { Loan } from '../../domain/loans/loan.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { Caller } from '../../domain/keys/api-key.js'
import type { Page } from '../../domain/foundations/pagination.js'
import { listOfOwnLoan, type LoanReadError, type Loans } from './loan-reads.js'

/** Records operators keep on a loan (INTERNAL_API_TOKEN): collateral and documents. */

/** What the operators' servicing use cases need (each takes only its part). */
export type OperationsDeps = { readonly loans: LoanRepository; readonly ids: IdGenerator; readonly clock: Clock }

/** What adding a record to a loan needs. */
export type RecordDeps = { readonly loans: Pick<LoanRepository, 'findById' | 'addCollateral' | 'addDocument'>; readonly ids: IdGenerator; readonly clock: Clock }

const CollateralCommand = commandOf(['loanId'], CollateralInput)
const LoanDocumentCommand = commandOf(['loanId'], LoanDocumentInput)

const loadLoan = (deps: Pick<RecordDeps, 'loans'>, loanId: LoanId): TE.TaskEither<NotFound | StoreUnavailable, Loan> =>
  pipe(
    deps.loans.findById(loanId),
    TE.chainW(TE.fromOption(() => notFound('loan'))),
    TE.map((booked) => booked.loan),
  )

/**
 * Records collateral securing the loan `loanId` (operators; the rest of the command is
 * `CollateralInput`), with its `loan_collateral.added` audit event. Not idempotent.
 */
export const addLoanCollateral =
  (deps: RecordDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, CollateralItem> =>
    pipe(
      TE.fromEither(decode(CollateralCommand)(command)),
      TE.chainW((cmd) =>
        pipe(
          loadLoan(deps, cmd.loanId),
          TE.chainW((loan) => {
            const item = newCollateral(cmd, loan.id, deps.ids.next(), deps.clock.now())
            return pipe(
              deps.loans.addCollateral(item, collateralAddedEvent(deps.ids.next(), context, item, loan)),
              TE.map(() => item),
            )
          }),
        ),
      ),
    )

/**
 * Attaches a document (statement, notice, disclosure…) to the loan `loanId` (operators; the rest of
 * the command is `LoanDocumentInput`), with its `loan_document.attached` audit event. Not idempotent.
 */
export const attachLoanDocument =
  (deps: RecordDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, LoanDocument> =>
    pipe(
      TE.fromEither(decode(LoanDocumentCommand)(command)),
      TE.chainW((cmd) =>
        pipe(
          loadLoan(deps, cmd.loanId),
          TE.chainW((loan) =>
            pipe(
              TE.fromEither(newLoanDocument(cmd, loan.id, newId(deps.ids), deps.clock.now())),
              TE.chainFirstW((document) => deps.loans.addDocument(document, documentAttachedEvent(deps.ids.next(), context, document, loan))),
            ),
          ),
        ),
      ),
    )


/** The collateral of the loan `loanId` of the party `partyId`, oldest first, a page at a time. */
export const listCollateralForPartyLoan = (deps: Loans<'listCollateral'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<CollateralItem>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listCollateral(partyId, loanId, page))

/** The documents of the loan `loanId` of the party `partyId`, oldest first, a page at a time. */
export const listDocumentsForPartyLoan = (deps: Loans<'listDocuments'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<LoanDocument>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listDocuments(partyId, loanId, page))
