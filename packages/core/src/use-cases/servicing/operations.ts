import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import {
  accrualCompletedEvent,
  collateralAddedEvent,
  documentAttachedEvent,
  loanChargedOffEvent,
  NOT_AUDITED,
  OPERATOR_CONTEXT,
  SYSTEM_CONTEXT,
  type AuditContext,
} from '../../domain/audit/audit-event.js'
import { boundedString, CalendarDate, decode, strictObject } from '../../domain/foundations/codecs.js'
import { invalidRequest, invalidState, notFound, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { CollateralInput, newCollateral, type CollateralItem } from '../../domain/loans/collateral.js'
import { LoanDocumentInput, newLoanDocument, type LoanDocument } from '../../domain/loans/loan-document.js'
import type { Loan } from '../../domain/loans/loan.js'
import { utcDate } from '../../domain/foundations/instant.js'
import { chargeOffEntries } from '../../lending/index.js'
import { paymentsFor, post, postingDate } from './posting.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { AuditLog } from '../../ports/audit-log.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository, LockedLoan, Posting } from '../../ports/loan-repository.js'
import type { Payment } from '../../domain/loans/payment.js'
import { LoanId, newId } from '../../domain/foundations/ids.js'
import type { JobStep, SteppedJob } from '../jobs/leased-job.js'

/** Operators' servicing work (INTERNAL_API_TOKEN): the daily job, charge-offs, collateral, documents. */

/** What the operators' servicing use cases need. */
export type OperationsDeps = { readonly loans: LoanRepository; readonly ids: IdGenerator; readonly clock: Clock }

/** The fields of an accrual run: optionally `as_of` (`YYYY-MM-DD`, not after today in UTC; today when left out). */
export const AccrualQuery = strictObject('AccrualQuery', {}, { as_of: CalendarDate })

/**
 * The figures of an accrual run: the date accrued to, the active loans read, those that changed,
 * and the ledger entries posted (`INTEREST_ACCRUAL` and `LATE_FEE`).
 */
export type AccrualRun = { readonly asOf: string; readonly loansExamined: number; readonly loansChanged: number; readonly accruals: number }

/** The zone whose date is the latest on Earth (UTC+14): no loan's today is after its today. */
const LATEST_TIME_ZONE = 'Pacific/Kiritimati'

/** How many loans the job reads at a time: one step of the scheduled job. */
const BATCH = 100

/**
 * Where an accrual run stands: its figures so far and the last loan it did (`after`, in id
 * order; null before the first). The scheduled job saves it after every batch (`SteppedJob`).
 */
export type AccrualProgress = AccrualRun & { readonly after: LoanId | null }

/** The codec of `AccrualProgress`, as the scheduled job saves it. */
const AccrualProgressCodec: t.Type<AccrualProgress, unknown, unknown> = t.type({
  asOf: t.string,
  loansExamined: t.number,
  loansChanged: t.number,
  accruals: t.number,
  after: t.union([LoanId, t.null]),
})

/** A run's start: nothing done yet, figures for `asOf`. */
const accrualStart = (asOf: string): AccrualProgress => ({ asOf, loansExamined: 0, loansChanged: 0, accruals: 0, after: null })

/**
 * One batch of an accrual run: the next `BATCH` active loans after `progress.after`, each
 * accrued to `asOf` (each loan's today when undefined) in its own transaction; done when fewer
 * than a batch were left.
 */
const accrueBatch =
  (deps: OperationsDeps, asOf: string | undefined) =>
  (progress: AccrualProgress): TE.TaskEither<StoreUnavailable, JobStep<AccrualProgress>> =>
  async () => {
    const ids = await deps.loans.activeLoanIds(progress.after, BATCH)()
    if (E.isLeft(ids)) return ids
    let next = progress
    for (const id of ids.right) {
      const outcome = await accrueOne(deps, id, asOf)()
      if (E.isLeft(outcome)) return outcome
      next = {
        asOf: next.asOf,
        loansExamined: next.loansExamined + 1,
        loansChanged: next.loansChanged + (outcome.right.changed ? 1 : 0),
        accruals: next.accruals + outcome.right.accruals,
        after: id,
      }
    }
    return E.right({ progress: next, done: ids.right.length < BATCH })
  }

/** The figures of a finished run. */
const accrualRun = ({ asOf, loansExamined, loansChanged, accruals }: AccrualProgress): AccrualRun => ({ asOf, loansExamined, loansChanged, accruals })

/**
 * Posts, for every active loan, the interest accrued and the late fees assessed up to `as_of`
 * (default: each loan's today in its business time zone; `as_of` is never after it) and not yet
 * in its ledger, each loan in its own transaction under its lock,
 * and writes a snapshot where anything changed (past-due figures included). Idempotent per date:
 * a second run for the same date changes nothing; a date before the loan's latest posting posts
 * nothing. `accruals` counts the entries posted.
 */
export const accrueInterestForLoans =
  (deps: OperationsDeps) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, AccrualRun> =>
    pipe(
      TE.fromEither(decode(commandOf([], AccrualQuery))(command)),
      TE.filterOrElseW(
        ({ as_of }) => as_of === undefined || as_of <= dateIn(LATEST_TIME_ZONE, deps.clock.now()),
        () => invalidRequest('as_of must not be after today (in the latest time zone, UTC+14): interest accrues on dates that have come.', 'as_of'),
      ),
      TE.chainW(({ as_of }) => {
        const step = accrueBatch(deps, as_of)
        const run = async (): Promise<E.Either<StoreUnavailable, AccrualRun>> => {
          let progress = accrualStart(as_of ?? utcDate(deps.clock.now()))
          for (;;) {
            const stepped = await step(progress)()
            if (E.isLeft(stepped)) return stepped
            progress = stepped.right.progress
            if (stepped.right.done) return E.right(accrualRun(progress))
          }
        }
        return run
      }),
    )

/** The name of the daily servicing job: its lease's key and its label in metrics. */
export const DAILY_SERVICING_JOB = 'servicing'

/**
 * The daily servicing job as the scheduler runs it (issue 38), for run `runKey` (the UTC date it
 * runs for): the accrual of `accrueInterestForLoans` with each loan accrued to its own today, in
 * steps of one batch of loans that `runLeasedJob` can resume in another process; when done, the
 * `interest_accrual.completed` audit event with the run's figures, by the system.
 */
export const dailyServicingJob =
  (deps: OperationsDeps & { readonly audit: Pick<AuditLog, 'record'> }) =>
  (runKey: string): SteppedJob<AccrualProgress> => ({
    name: DAILY_SERVICING_JOB,
    initial: accrualStart(runKey),
    progress: AccrualProgressCodec,
    step: accrueBatch(deps, undefined),
    finish: (progress) => deps.audit.record(accrualCompletedEvent(deps.ids.next(), SYSTEM_CONTEXT, accrualRun(progress), deps.clock.now())),
  })

/**
 * The daily servicing job, as operators and schedulers run it: for every active loan, the interest
 * accrued and the late fees assessed up to `as_of` (default today, UTC) and not yet posted, each
 * loan in its own transaction under its lock, with a snapshot where anything changed; then one
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

/** Posts what loan `loanId` owes by `asOf` (by today in its time zone when left out, and never after it). */
const accrueOne = (deps: OperationsDeps, loanId: LoanId, asOf: string | undefined) =>
  deps.loans.change(loanId, (found, reads) => {
    // Gone, or no longer active (paid off or charged off since it was listed): nothing accrues.
    if (O.isNone(found) || found.value.loan.status !== 'ACTIVE') {
      return TE.right({ posting: { transactions: [], installments: O.isSome(found) ? found.value.installments : [], balance: null, payments: [], audit: NOT_AUDITED }, result: { changed: false, accruals: 0 } })
    }
    const locked = found.value
    const now = deps.clock.now()
    const date = postingDate(locked.loan, now, locked.latest, asOf)
    return pipe(
      paymentsFor(locked, reads, { type: 'TIME' }, date),
      TE.map((payments) => {
        const { posting } = post(locked, payments, { type: 'TIME' }, date, { ids: () => deps.ids.next(), now })
        return { posting, result: { changed: posting.balance !== null, accruals: posting.transactions.length } }
      }),
    )
  })

/** The fields of a charge-off: optionally a `reason` (1 to 500 characters), kept in the audit event. */
export const ChargeOffInput = strictObject('ChargeOffInput', {}, { reason: boundedString('Reason', 1, 500) })
const ChargeOffCommand = commandOf(['loanId'], ChargeOffInput)

/**
 * Charges off the active loan `loanId` (operators; the rest of the command is `ChargeOffInput`):
 * in one transaction under the loan's lock, the interest and fees owed to today are posted, then a
 * `CHARGE_OFF` entry writes everything owed off (each bucket to zero), a snapshot with nothing
 * outstanding is written, the loan becomes `CHARGED_OFF` on today's date (nothing accrues on it
 * after, and it takes no payment) and the `loan.charged_off` audit event records what was
 * written off. A loan that is not `ACTIVE` is `InvalidState`.
 */
export const chargeOffLoan =
  (deps: OperationsDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | InvalidState | StoreUnavailable, Loan> =>
    pipe(
      TE.fromEither(decode(ChargeOffCommand)(command)),
      TE.chainW(({ loanId, reason }) =>
        deps.loans.change(loanId, (found, reads): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, { readonly posting: Posting; readonly result: Loan }> => {
          if (O.isNone(found)) return TE.left(notFound('loan'))
          const locked = found.value
          if (locked.loan.status !== 'ACTIVE') return TE.left(invalidState('loan', locked.loan.status, 'charge off'))
          const now = deps.clock.now()
          const date = postingDate(locked.loan, now, locked.latest)
          return pipe(
            paymentsFor(locked, reads, { type: 'TIME' }, date),
            TE.map((payments) => chargeOff(deps, locked, payments, date, now, context, reason ?? null)),
          )
        }),
      ),
    )

/** The posting of a charge-off on `date`: what is owed to that day posted, then written off. */
const chargeOff = (
  deps: OperationsDeps,
  locked: LockedLoan,
  payments: readonly Payment[] | null,
  date: string,
  now: Date,
  context: AuditContext,
  reason: string | null,
): { readonly posting: Posting; readonly result: Loan } => {
  const ids = (): string => deps.ids.next()
  const { posting, change } = post(locked, payments, { type: 'TIME' }, date, { ids, now })
  const { transaction, balance } = chargeOffEntries(locked.loan.id, change.derived.outstanding, date, ids, now)
  const loan: Loan = {
    ...locked.loan,
    status: 'CHARGED_OFF',
    chargedOffOn: date,
    checkpoint: change.checkpoint,
    ...(posting.oldestUnpaidDueDate === undefined ? {} : { oldestUnpaidDueDate: posting.oldestUnpaidDueDate }),
  }
  return {
    posting: {
      ...posting,
      transactions: [...posting.transactions, transaction],
      balance,
      loanStatus: 'CHARGED_OFF',
      chargedOffOn: date,
      audit: loanChargedOffEvent(ids(), context, loan, change.derived.outstanding, transaction.id, reason, now),
    },
    result: loan,
  }
}

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

