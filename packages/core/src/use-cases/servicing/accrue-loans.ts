import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { accrualCompletedEvent, SYSTEM_CONTEXT, type AuditContext } from '../../domain/audit/audit-event.js'
import { CalendarDate, decode, strictObject } from '../../domain/foundations/codecs.js'
import { invalidRequest, type InvalidRequest, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { LoanId } from '../../domain/foundations/ids.js'
import { utcDate } from '../../domain/foundations/instant.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import type { World } from '../../core-deps.js'
import type { AuditLog } from '../../ports/audit-log.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanFailures } from '../../ports/loan-failures.js'
import type { Change, ChangeReads, LoanRepository, LockedLoan } from '../../ports/loan-repository.js'
import { worldJobName, type JobStep, type SteppedJob } from '../jobs/leased-job.js'
import { loadFor, nothing, post, postingDate, type LoadedLoan } from './posting.js'

/** The daily servicing job and the operators' accrual run (INTERNAL_API_TOKEN). */

/** What an accrual needs; `failures` is told of each loan skipped because servicing it failed. */
export type AccrualDeps = {
  readonly loans: Pick<LoanRepository, 'change' | 'changeMany' | 'activeLoanIds'>
  readonly ids: IdGenerator
  readonly clock: Clock
  readonly failures?: LoanFailures
}

/** The fields of an accrual run: optionally `as_of` (`YYYY-MM-DD`, not after today in UTC; today when left out). */
export const AccrualQuery = strictObject('AccrualQuery', {}, { as_of: CalendarDate })

/** An accrual run's figures: the date, the active loans read, those changed, the entries posted, the loans skipped as failed. */
export type AccrualRun = { readonly asOf: string; readonly loansExamined: number; readonly loansChanged: number; readonly accruals: number; readonly loansFailed: number }

/** The zone whose date is the latest on Earth (UTC+14): no loan's today is after its today. */
const LATEST_TIME_ZONE = 'Pacific/Kiritimati'

/** How many loans one transaction of the close locks, decides and writes together. */
const GROUP = 100
/** How many groups a step runs side by side, each on a connection of its own. */
const GROUPS_AT_ONCE = 2
/** How many loans the job reads at a time: one step of the scheduled job, saved when done. */
const BATCH = GROUP * GROUPS_AT_ONCE

/** Where a run stands: its figures so far and the last loan it did (`after`, in id order), saved after every batch. */
export type AccrualProgress = AccrualRun & { readonly after: LoanId | null }

/** `AccrualProgress` as the scheduled job saves it; progress saved before `loansFailed` was counted reads as 0 failed. */
const SavedAccrualProgress = t.intersection([
  t.type({ asOf: t.string, loansExamined: t.number, loansChanged: t.number, accruals: t.number, after: t.union([LoanId, t.null]) }),
  t.partial({ loansFailed: t.number }),
])

/** The codec of `AccrualProgress`, as the scheduled job saves and resumes it. */
const AccrualProgressCodec: t.Type<AccrualProgress, unknown, unknown> = new t.Type(
  'AccrualProgress',
  (u): u is AccrualProgress => SavedAccrualProgress.is(u) && typeof u.loansFailed === 'number',
  (u, c) => pipe(SavedAccrualProgress.validate(u, c), E.map((saved) => ({ ...saved, loansFailed: saved.loansFailed ?? 0 }))),
  t.identity,
)

/** A run's start: nothing done yet, figures for `asOf`. */
const accrualStart = (asOf: string): AccrualProgress => ({ asOf, loansExamined: 0, loansChanged: 0, accruals: 0, loansFailed: 0, after: null })

/** What one loan's accrual came to: posted, or skipped as failed. */
type LoanAccrual = { readonly loanId: LoanId; readonly outcome: E.Either<LoanNotServiced | StoreUnavailable, Accrued> }

/**
 * Accrues loans `ids` to `asOf` loan by loan, each in its own transaction. A store error on one
 * loan stops the run only when the store is down: if a read right after it succeeds, the error
 * was that loan's (a row the store refuses) and the loan is skipped like any other failure.
 */
const accrueEach = async (deps: AccrualDeps, ids: readonly LoanId[], asOf: string | undefined): Promise<E.Either<StoreUnavailable, LoanAccrual[]>> => {
  const done: LoanAccrual[] = []
  for (const loanId of ids) {
    const outcome = await accrueOne(deps, loanId, asOf)()
    if (E.isLeft(outcome) && outcome.left._tag === 'StoreUnavailable') {
      const probe = await deps.loans.activeLoanIds(null, 1)()
      if (E.isLeft(probe)) return E.left(outcome.left)
    }
    done.push({ loanId, outcome })
  }
  return E.right(done)
}

/**
 * Accrues one group of loans to `asOf` (each loan's today when undefined) in one transaction
 * (`changeMany`). A loan the engine does not service is skipped; a group the store refuses is
 * done again loan by loan (`accrueEach`), so one bad row costs only its own loan.
 */
const accrueGroup = async (deps: AccrualDeps, ids: readonly LoanId[], asOf: string | undefined): Promise<E.Either<StoreUnavailable, LoanAccrual[]>> => {
  const together = await deps.loans.changeMany(ids, accrualDecision(deps, asOf))()
  if (E.isLeft(together)) return accrueEach(deps, ids, asOf)
  // `changeMany` answers every loan it was given; one it did not is reported, not counted as done.
  const unanswered: LoanNotServiced = { _tag: 'LoanNotServiced', reason: 'the repository answered nothing for this loan' }
  return E.right(ids.map((loanId) => ({ loanId, outcome: together.right.get(loanId) ?? E.left(unanswered) })))
}

/**
 * One step: the next `BATCH` active loans, in groups of `GROUP` run side by side (`accrueGroup`),
 * each loan accrued to `asOf` (its today when undefined). A loan not serviced is told to
 * `failures` and skipped. A step that stops part-way saves nothing: the next attempt does its
 * loans again, and finds posted what was (a loan's accrual to a date posts once).
 */
const accrueBatch =
  (deps: AccrualDeps, asOf: string | undefined) =>
  (progress: AccrualProgress): TE.TaskEither<StoreUnavailable, JobStep<AccrualProgress>> =>
  async () => {
    const ids = await deps.loans.activeLoanIds(progress.after, BATCH)()
    if (E.isLeft(ids)) return ids
    const groups = Array.from({ length: Math.ceil(ids.right.length / GROUP) }, (_, k) => ids.right.slice(k * GROUP, (k + 1) * GROUP))
    const accrued = E.sequenceArray(await Promise.all(groups.map((group) => accrueGroup(deps, group, asOf))))
    if (E.isLeft(accrued)) return accrued
    let next = progress
    for (const { loanId, outcome } of accrued.right.flat()) {
      if (E.isLeft(outcome)) deps.failures?.loanFailed({ job: DAILY_SERVICING_JOB, loanId, reason: failureReason(outcome.left) })
      const done = E.isRight(outcome) ? outcome.right : { changed: false, accruals: 0 }
      next = {
        asOf: next.asOf,
        loansExamined: next.loansExamined + 1,
        loansChanged: next.loansChanged + (done.changed ? 1 : 0),
        accruals: next.accruals + done.accruals,
        loansFailed: next.loansFailed + (E.isLeft(outcome) ? 1 : 0),
        after: loanId,
      }
    }
    return E.right({ progress: next, done: ids.right.length < BATCH })
  }

/** The figures of a finished run. */
const accrualRun = ({ asOf, loansExamined, loansChanged, accruals, loansFailed }: AccrualProgress): AccrualRun => ({ asOf, loansExamined, loansChanged, accruals, loansFailed })

/**
 * Posts, for every active loan, the interest and late fees owed by `as_of` (default and at most:
 * each loan's today in its time zone) and not yet in its ledger, each loan under its lock, with a
 * snapshot where anything changed. Idempotent per date.
 */
export const accrueInterestForLoans =
  (deps: AccrualDeps) =>
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

/** The name of `world`'s daily servicing job (decision 128): `DAILY_SERVICING_JOB` for the live world, with the world's name after it for the test world. */
export const servicingJobName = (world: World): string => worldJobName(DAILY_SERVICING_JOB, world)

/**
 * The daily servicing job of `world` (whose stores `deps` are) for run `runKey` (its UTC date):
 * `accrueInterestForLoans` to each loan's today, a batch per step (`runLeasedJob` resumes it
 * elsewhere); then the `interest_accrual.completed` event.
 */
export const dailyServicingJob =
  (deps: AccrualDeps & { readonly audit: Pick<AuditLog, 'record'> }, world: World = 'live') =>
  (runKey: string): SteppedJob<AccrualProgress> => ({
    name: servicingJobName(world),
    initial: accrualStart(runKey),
    progress: AccrualProgressCodec,
    step: accrueBatch(deps, undefined),
    finish: (progress) => deps.audit.record(accrualCompletedEvent(deps.ids.next(), SYSTEM_CONTEXT, accrualRun(progress), deps.clock.now())),
  })

/**
 * `accrueInterestForLoans`, then the `interest_accrual.completed` event (actor: `context`'s). A run
 * that fails part-way records no event; running it again completes it.
 */
export const runInterestAccrual =
  (deps: AccrualDeps & { readonly audit: Pick<AuditLog, 'record'> }) =>
  (command: unknown, context: AuditContext = SYSTEM_CONTEXT): TE.TaskEither<InvalidRequest | StoreUnavailable, AccrualRun> =>
    pipe(
      accrueInterestForLoans(deps)(command),
      TE.chainFirstW((run) => deps.audit.record(accrualCompletedEvent(deps.ids.next(), context, run, deps.clock.now()))),
    )

/** A loan the engine could not service (an exception or a refusal of its rules): skipped, told, tried again next run. */
export type LoanNotServiced = { readonly _tag: 'LoanNotServiced'; readonly reason: string }

/** Why a loan was skipped: the engine's message, or the store's error on that loan alone. */
export const failureReason = (failure: LoanNotServiced | StoreUnavailable): string =>
  failure._tag === 'LoanNotServiced' ? failure.reason : `the store refused this loan: ${failure.cause instanceof Error ? failure.cause.message : String(failure.cause)}`

/** What accruing one loan posted. */
export type Accrued = { readonly changed: boolean; readonly accruals: number }

/** Decides one loan's accrual to `asOf`: what is owed by then, posted; nothing for a loan gone or no longer active. */
const planAccrual = (locked: O.Option<LoadedLoan>, asOf: string | undefined, ids: IdGenerator, now: Date): E.Either<LoanNotServiced, Change<Accrued>> => {
  if (O.isNone(locked) || locked.value.loan.status !== 'ACTIVE') return E.right({ posting: nothing({ installments: O.isSome(locked) ? locked.value.installments : [] }), result: { changed: false, accruals: 0 } })
  const loaded = locked.value
  try {
    const { posting } = post(loaded, { type: 'TIME' }, postingDate(loaded.loan, now, loaded.latest, asOf), { ids: () => ids.next(), now })
    return E.right({ posting, result: { changed: posting.balance !== null, accruals: posting.transactions.length } })
  } catch (e) {
    return E.left({ _tag: 'LoanNotServiced', reason: e instanceof Error ? e.message : String(e) })
  }
}

/** What the job decides for one loan under its lock, at `deps.clock`'s now: what it owes by `asOf` (by its today when left out, and never after it), posted. */
const accrualDecision =
  (deps: { readonly ids: IdGenerator; readonly clock: Clock }, asOf: string | undefined) =>
  (found: O.Option<LockedLoan>, reads: ChangeReads): TE.TaskEither<LoanNotServiced | StoreUnavailable, Change<Accrued>> => {
    const now = deps.clock.now()
    return pipe(
      found,
      O.traverse(TE.ApplicativeSeq)((locked) => loadFor(locked, reads, { type: 'TIME' }, postingDate(locked.loan, now, locked.latest, asOf))),
      TE.chainEitherKW((locked) => planAccrual(locked, asOf, deps.ids, now)),
    )
  }

/** What the daily job does to one loan, at `deps.clock`'s now: interest and late fees to the loan's today, under its lock (a test clock's advance runs it at each day it crosses). */
export const serviceLoan = (deps: { readonly loans: Pick<LoanRepository, 'change'>; readonly ids: IdGenerator; readonly clock: Clock }, loanId: LoanId): TE.TaskEither<LoanNotServiced | StoreUnavailable, Accrued> => accrueOne(deps, loanId, undefined)

/** Posts what loan `loanId` owes by `asOf` in its own transaction. */
const accrueOne = (deps: { readonly loans: Pick<LoanRepository, 'change'>; readonly ids: IdGenerator; readonly clock: Clock }, loanId: LoanId, asOf: string | undefined): TE.TaskEither<LoanNotServiced | StoreUnavailable, Accrued> =>
  deps.loans.change({ loanId }, accrualDecision(deps, asOf))
