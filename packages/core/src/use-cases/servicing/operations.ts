import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import {
  accrualCompletedEvent,
  collateralAddedEvent,
  documentAttachedEvent,
  NOT_AUDITED,
  OPERATOR_CONTEXT,
  SYSTEM_CONTEXT,
  type AuditContext,
} from '../../domain/audit-event.js'
import { CalendarDate, decode, strictObject } from '../../domain/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/errors.js'
import { CollateralInput, newCollateral, type CollateralItem } from '../../domain/collateral.js'
import { LoanDocumentInput, newLoanDocument, type LoanDocument } from '../../domain/loan-document.js'
import type { Loan } from '../../domain/loan.js'
import { utcDate } from '../../domain/instant.js'
import { accrueInterest, sameFigures, snapshotOf } from '../../domain/loan-servicing.js'
import { commandOf } from '../../domain/path-parameters.js'
import type { AuditLog } from '../../ports/audit-log.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import { type LoanId, newId } from '../../domain/ids.js'

/** Operators' servicing work (INTERNAL_API_TOKEN): the accrual job, collateral, documents. */

/** What the operators' servicing use cases need. */
export type OperationsDeps = { readonly loans: LoanRepository; readonly ids: IdGenerator; readonly clock: Clock }

/** The fields of an accrual run: optionally `as_of` (`YYYY-MM-DD`, not after today in UTC; today when left out). */
export const AccrualQuery = strictObject('AccrualQuery', {}, { as_of: CalendarDate })

/**
 * The figures of an accrual run: the date accrued to, the active loans read, those that changed,
 * and the `INTEREST_ACCRUAL` entries posted.
 */
export type AccrualRun = { readonly asOf: string; readonly loansExamined: number; readonly loansChanged: number; readonly accruals: number }

/** How many loans the job reads at a time. */
const BATCH = 100

/**
 * Accrues, for every active loan, the interest of each installment due on or before `as_of`
 * (default today, UTC) and not yet accrued, each loan in its own transaction under its lock,
 * and writes a snapshot where anything changed. Idempotent: a second run for the same date
 * changes nothing. A snapshot is never dated before the loan's latest one.
 */
export const accrueInterestForLoans =
  (deps: OperationsDeps) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, AccrualRun> =>
    pipe(
      TE.fromEither(decode(commandOf([], AccrualQuery))(command)),
      TE.filterOrElseW(
        ({ as_of }) => as_of === undefined || as_of <= utcDate(deps.clock.now()),
        () => invalidRequest('as_of must not be after today (UTC): interest accrues on dates that have come.', 'as_of'),
      ),
      TE.chainW(({ as_of }) => {
        const asOf = as_of ?? utcDate(deps.clock.now())
        const run = async (): Promise<E.Either<StoreUnavailable, AccrualRun>> => {
          let after: LoanId | null = null
          let totals: AccrualRun = { asOf, loansExamined: 0, loansChanged: 0, accruals: 0 }
          for (;;) {
            const ids = await deps.loans.activeLoanIds(after, BATCH)()
            if (E.isLeft(ids)) return ids
            for (const id of ids.right) {
              const outcome = await accrueOne(deps, id, asOf)()
              if (E.isLeft(outcome)) return outcome
              totals = {
                asOf,
                loansExamined: totals.loansExamined + 1,
                loansChanged: totals.loansChanged + (outcome.right.changed ? 1 : 0),
                accruals: totals.accruals + outcome.right.accruals,
              }
            }
            if (ids.right.length < BATCH) return E.right(totals)
            after = ids.right[ids.right.length - 1] ?? null
          }
        }
        return run
      }),
    )

/**
 * The accrual job, as operators and schedulers run it: for every active loan, the interest of each
 * installment due on or before `as_of` (default today, UTC) and not yet accrued, each loan in its
 * own transaction under its lock, with a snapshot where anything changed; then one
 * `interest_accrual.completed` audit event with the run's figures (actor: `context`'s; the system
 * when a scheduler in the process calls it without one). Idempotent: a second run for the same
 * date changes nothing. A run that fails part-way records no event, and each accrual it made is in
 * its loan's ledger, so running it again completes it and records the run.
 */
export const runInterestAccrual =
  (deps: OperationsDeps & { readonly audit: Pick<AuditLog, 'record'> }) =>
  (command: unknown, context: AuditContext = SYSTEM_CONTEXT): TE.TaskEither<InvalidRequest | StoreUnavailable, AccrualRun> =>
    pipe(
      accrueInterestForLoans(deps)(command),
      TE.chainFirstW((run) => deps.audit.record(accrualCompletedEvent(deps.ids.next(), context, run, deps.clock.now()))),
    )

const accrueOne = (deps: OperationsDeps, loanId: LoanId, asOf: string) =>
  deps.loans.change(loanId, (found) => {
    if (O.isNone(found)) return TE.right({ posting: { transactions: [], installments: [], balance: null, audit: NOT_AUDITED }, result: { changed: false, accruals: 0 } })
    const locked = found.value
    const now = deps.clock.now()
    const accrued = accrueInterest(locked, asOf, () => deps.ids.next(), now)
    const last = accrued.transactions[accrued.transactions.length - 1]
    const snapshotAsOf = asOf < locked.latest.asOf ? locked.latest.asOf : asOf
    const snapshot = snapshotOf(accrued.state, snapshotAsOf, last?.id ?? locked.latest.transactionId, deps.ids.next(), now)
    const moved = accrued.transactions.length > 0 || !sameFigures(snapshot, locked.latest)
    return TE.right({
      posting: { transactions: accrued.transactions, installments: accrued.state.installments, balance: moved ? snapshot : null, audit: NOT_AUDITED },
      result: { changed: moved, accruals: accrued.transactions.length },
    })
  })

const CollateralCommand = commandOf(['loanId'], CollateralInput)
const LoanDocumentCommand = commandOf(['loanId'], LoanDocumentInput)

const loadLoan = (deps: Pick<OperationsDeps, 'loans'>, loanId: LoanId): TE.TaskEither<NotFound | StoreUnavailable, Loan> =>
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
  (deps: OperationsDeps) =>
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
  (deps: OperationsDeps) =>
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

