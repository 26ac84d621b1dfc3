import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import { invalidState, notFound, type AlreadyExists, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type LoanId, type PartyId, type TestClockId } from '../../domain/foundations/ids.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { AdvanceTestClockInput, advanceTo, CreateTestClockInput, newTestClock, nextStep, type TestClock } from '../../domain/testing/test-clock.js'
import { accrualCompletedEvent, SYSTEM_CONTEXT } from '../../domain/audit/audit-event.js'
import { utcDate } from '../../domain/foundations/instant.js'
import type { AuditLog } from '../../ports/audit-log.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanFailures } from '../../ports/loan-failures.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PartyRepository } from '../../ports/party-repository.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'
import { serviceLoan } from '../servicing/accrue-loans.js'
import { ACH_TIME_ZONE } from '../../domain/ach/cutoffs.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import type { AchInbox } from '../../ports/ach-inbox.js'
import { achInboxJob } from '../ach/inbox.js'
import type { IngestionDeps } from '../ach/ingestion.js'
import { achOriginationJob, type OriginationDeps } from '../ach/origination.js'
import { autopayWindow } from '../../domain/loans/autopay.js'
import { achSettlementJob } from '../ach/settlement.js'
import { runToEnd } from '../jobs/leased-job.js'

/**
 * Test clocks (decision 131): a test-world party's own time, set and advanced by a key of the
 * party. The HTTP edge takes these from test keys only, and reads the caller's clock as the
 * request's now.
 */

const CreateCommand = commandOf([], CreateTestClockInput)
const ClockCommand = commandOf(['clockId'], AdvanceTestClockInput)
const ReadCommand = commandOf(['clockId'], EmptyInput)

/** The caller's party's clock `clockId`; another party's, or none, is `NotFound`. */
const ownClock = (clocks: Pick<TestClockRepository, 'findForParty'>, caller: Caller, clockId: TestClockId): TE.TaskEither<NotFound | StoreUnavailable, TestClock> =>
  pipe(
    clocks.findForParty(caller.partyId),
    TE.chainW(TE.fromOption(() => notFound('test_clock'))),
    TE.filterOrElseW(
      (clock) => clock.id === clockId,
      () => notFound('test_clock'),
    ),
  )

/** What creating a clock needs. */
export type CreateTestClockDeps = {
  readonly testClocks: Pick<TestClockRepository, 'insert'>
  readonly parties: Pick<PartyRepository, 'findById'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** A clock for the caller's party (which must exist in this world), frozen at `frozen_time` (default now); a party has one clock at most. */
export const createTestClock =
  (deps: CreateTestClockDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | NotFound | AlreadyExists | StoreUnavailable, TestClock> =>
    pipe(
      TE.fromEither(decode(CreateCommand)(command)),
      TE.chainFirstW(() => pipe(deps.parties.findById(caller.partyId), TE.chainW(TE.fromOption(() => notFound('party'))))),
      TE.chainEitherKW((input) => newTestClock(input, newId<TestClockId>(deps.ids), caller.partyId, deps.clock.now())),
      TE.chainFirstW((clock) => deps.testClocks.insert(clock)),
    )

/** The caller's party's clock `clockId`. */
export const getTestClock =
  (deps: { readonly testClocks: Pick<TestClockRepository, 'findForParty'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, TestClock> =>
    pipe(
      TE.fromEither(decode(ReadCommand)(command)),
      TE.chainW(({ clockId }) => ownClock(deps.testClocks, caller, clockId)),
    )

/**
 * Sends the caller's party's clock `clockId` on its way to `frozen_time` and answers it
 * `advancing` at once: the day-by-day servicing runs in the background (`advanceClaimedClock`).
 * Asking again for the same destination changes nothing.
 */
export const advanceTestClock =
  (deps: { readonly testClocks: Pick<TestClockRepository, 'findForParty' | 'startAdvance'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | InvalidState | NotFound | StoreUnavailable, TestClock> =>
    pipe(
      TE.fromEither(decode(ClockCommand)(command)),
      TE.bindTo('cmd'),
      TE.bindW('current', ({ cmd }) => ownClock(deps.testClocks, caller, cmd.clockId)),
      TE.bindW('next', ({ cmd, current }) => TE.fromEither(advanceTo(current, cmd.frozen_time))),
      TE.chainW(({ current, next }) =>
        next === current
          ? TE.right(current)
          : pipe(
              deps.testClocks.startAdvance(current.id, next.advancingTo!),
              TE.chainW(TE.fromOption(() => invalidState('test_clock', 'ADVANCING', 'advance'))),
            ),
      ),
    )

/**
 * A party's own ACH rails in its clock's time (decision 147): the world's origination and ingestion
 * deps (their clock replaced by the clock's), and the inbox of the party's own files.
 */
export type ClockRails = {
  readonly origination: OriginationDeps
  readonly ingestion: IngestionDeps
  /** Where the bank's answers to party `partyId`'s own files arrive. */
  readonly inboxOf: (partyId: PartyId) => AchInbox
}

/** What working an advance needs: the world's clocks, loans and audit trail, how to tell of a loan the servicing skipped, and the world's ACH rails when it has them. */
export type AdvanceClockDeps = {
  readonly testClocks: Pick<TestClockRepository, 'claimAdvancing' | 'moveTo'>
  readonly loans: Pick<LoanRepository, 'list' | 'change'>
  readonly audit: Pick<AuditLog, 'record'>
  readonly ids: IdGenerator
  /** The real time: leases are judged by it. */
  readonly clock: Clock
  readonly failures?: LoanFailures
  readonly rails?: ClockRails
}

/**
 * When a party's day on the rails runs, New York time: the bank's answers, its one cut-off a day
 * (a party's day makes one file at most: it never runs out of the day's 36 file id modifiers),
 * the settlement.
 */
const CLOCK_INBOX_AT = '08:00'
const CLOCK_CUTOFF_AT = '15:30'
const CLOCK_SETTLEMENT_AT = '21:00'

/** Whether any of `loanIds` has a `PENDING` payment. */
const anyPending = (loans: Pick<LoanRepository, 'payments'>, loanIds: readonly LoanId[]): TE.TaskEither<StoreUnavailable, boolean> => async () => {
  for (const loanId of loanIds) {
    const pending = await loans.payments.pending(loanId)()
    if (E.isLeft(pending)) return pending
    if (pending.right.length > 0) return E.right(true)
  }
  return E.right(false)
}

/**
 * The party's day `at` on the ACH rails, in its clock's time, when it is a banking day: the bank's
 * answers to its files due that day ingested (`achInboxJob`), its `PENDING` debits up to the day's
 * cut-off and its autopay debits due by the file's effective date cut into its own file
 * (`achOriginationJob` with the party; none on a day with nothing to cut and no file of the party
 * to finish), and
 * its debits past their return window settled (`achSettlementJob`). Each job can be repeated: a
 * day resumed after a crash does only what is left of it.
 */
const railsDay = (rails: ClockRails, partyId: PartyId, loanIds: readonly LoanId[], at: Date): TE.TaskEither<StoreUnavailable, void> => {
  const day = dateIn(ACH_TIME_ZONE, at)
  if (!rails.origination.calendar.isBankingDay(day)) return TE.right(undefined)
  const clock: Clock = { now: () => at }
  const runKey = `${day}T${CLOCK_CUTOFF_AT}`
  const fileKey = `${runKey}/${partyId}`
  const { originations } = rails.origination
  const unfinished = (file: O.Option<{ readonly status: string }>): boolean => O.isSome(file) && file.value.status !== 'written' && file.value.status !== 'empty'
  // A file is cut when there is a debit to cut (a pending one, or an autopay debit the cut-off takes), or a file of the party to finish: the day's own (a day resumed after a failure) or an earlier day's.
  const autopayDue = TE.map((due: readonly unknown[]) => due.length > 0)(
    rails.origination.loans.autopay.due(autopayWindow(rails.origination.calendar, day, partyId), null, 1),
  )
  const toCut = pipe(
    anyPending(rails.origination.loans, loanIds),
    TE.chain((pending) => (pending ? TE.right(true) : autopayDue)),
    TE.chain((pending) => (pending ? TE.right(true) : TE.map(unfinished)(originations.fileOfRun(fileKey)))),
    TE.chain((cut) => (cut ? TE.right(true) : TE.map((earlier: O.Option<unknown>) => O.isSome(earlier))(originations.unfinishedBefore(fileKey, partyId)))),
  )
  return pipe(
    runToEnd(achInboxJob({ ...rails.ingestion, clock, inbox: rails.inboxOf(partyId) }, 'test')(`${day}T${CLOCK_INBOX_AT}`)),
    TE.chain(() => toCut),
    TE.chain((cut) => (cut ? runToEnd(achOriginationJob({ ...rails.origination, clock }, 'test', partyId)(runKey)) : TE.right(undefined))),
    TE.chain(() => runToEnd(achSettlementJob({ ...rails.origination, clock }, 'test', partyId)(`${day}T${CLOCK_SETTLEMENT_AT}`))),
  )
}

/** How long a claimed advance is held between two steps before another process may take it over. */
const ADVANCE_LEASE_MS = 30_000

/** The loans of `partyId`, every page of them, and whether each is active. */
const loansOf = (loans: Pick<LoanRepository, 'list'>, partyId: TestClock['partyId'], now: Date): TE.TaskEither<StoreUnavailable, readonly { readonly id: LoanId; readonly active: boolean }[]> => async () => {
  const found: { readonly id: LoanId; readonly active: boolean }[] = []
  let after: O.Option<{ readonly createdAt: Date; readonly id: string }> = O.none
  for (;;) {
    const page = await loans.list({ of: 'party', partyId, now }, { sort: 'created_at', limit: 100, after })()
    if (E.isLeft(page)) return page
    for (const loan of page.right.slice(0, 100)) found.push({ id: loan.id, active: loan.status === 'ACTIVE' })
    if (page.right.length <= 100) return E.right(found)
    const last = page.right[99]!
    after = O.some({ createdAt: last.createdAt, id: last.id })
  }
}

/**
 * Claims one advancing clock, if any, and works its advance to the end: for each day it crosses,
 * in order, the party's active loans are serviced at that day as the daily job would service them
 * (`serviceLoan`, the clock's time as now) and the day's run is audited as the party's
 * (`interest_accrual.completed`); with the world's ACH rails, the party's banking day on them
 * follows (its bank's answers, its cut-off, its settlement: `railsDay`); then the clock is moved to that day, so a process killed mid-way
 * leaves a clock another process resumes from the last day done. A loan the engine cannot service
 * is told to `failures` and skipped. Resolves to the clock as it ended, or none
 * when no clock was waiting or the clock was wiped mid-way.
 */
export const advanceClaimedClock =
  (deps: AdvanceClockDeps) =>
  (): TE.TaskEither<StoreUnavailable, O.Option<TestClock>> =>
  async () => {
    const lease = () => new Date(deps.clock.now().getTime() + ADVANCE_LEASE_MS)
    const claimed = await deps.testClocks.claimAdvancing(deps.clock.now(), lease())()
    if (E.isLeft(claimed) || O.isNone(claimed.right)) return claimed
    let clock = claimed.right.value
    while (clock.advancingTo !== null) {
      const at = nextStep({ ...clock, advancingTo: clock.advancingTo })
      const frozen: Clock = { now: () => at }
      const all = await loansOf(deps.loans, clock.partyId, at)()
      if (E.isLeft(all)) return all
      const active = all.right.flatMap((loan) => (loan.active ? [loan.id] : []))
      const run = { asOf: utcDate(at), loansExamined: active.length, loansChanged: 0, accruals: 0, loansFailed: 0 }
      for (const loanId of active) {
        const serviced = await serviceLoan({ loans: deps.loans, ids: deps.ids, clock: frozen }, loanId)()
        if (E.isRight(serviced)) {
          run.loansChanged += serviced.right.changed ? 1 : 0
          run.accruals += serviced.right.accruals
        } else {
          if (serviced.left._tag === 'StoreUnavailable') return E.left(serviced.left)
          run.loansFailed += 1
          deps.failures?.loanFailed({ job: 'test_clock', loanId, reason: serviced.left.reason })
        }
      }
      // The day's run is audited as the daily job's is, as the party's: a wipe takes it with the party.
      const audited = await deps.audit.record(accrualCompletedEvent(deps.ids.next(), SYSTEM_CONTEXT, run, at, clock.partyId))()
      if (E.isLeft(audited)) return audited
      if (deps.rails !== undefined) {
        // The claim renewed before the party's day on the rails (the clock where it stands): the day's servicing may have used much of the lease.
        const renewed = await deps.testClocks.moveTo(clock.id, clock.frozenTime, lease())()
        if (E.isLeft(renewed) || O.isNone(renewed.right)) return renewed
        const ach = await railsDay(deps.rails, clock.partyId, all.right.map((loan) => loan.id), at)()
        if (E.isLeft(ach)) return ach
      }
      const moved = await deps.testClocks.moveTo(clock.id, at, lease())()
      if (E.isLeft(moved) || O.isNone(moved.right)) return moved
      clock = moved.right.value
    }
    return E.right(O.some(clock))
  }
