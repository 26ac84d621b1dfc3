import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import { invalidState, notFound, type AlreadyExists, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type LoanId, type TestClockId } from '../../domain/foundations/ids.js'
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

/** What working an advance needs: the world's clocks, loans and audit trail, and how to tell of a loan the servicing skipped. */
export type AdvanceClockDeps = {
  readonly testClocks: Pick<TestClockRepository, 'claimAdvancing' | 'moveTo'>
  readonly loans: Pick<LoanRepository, 'listForParty' | 'change'>
  readonly audit: Pick<AuditLog, 'record'>
  readonly ids: IdGenerator
  /** The real time: leases are judged by it. */
  readonly clock: Clock
  readonly failures?: LoanFailures
}

/** How long a claimed advance is held between two steps before another process may take it over. */
const ADVANCE_LEASE_MS = 30_000

/** The active loans of `partyId`, every page of them. */
const activeLoansOf = (loans: Pick<LoanRepository, 'listForParty'>, partyId: TestClock['partyId'], now: Date): TE.TaskEither<StoreUnavailable, readonly LoanId[]> => async () => {
  const found: LoanId[] = []
  let after: O.Option<{ readonly createdAt: Date; readonly id: string }> = O.none
  for (;;) {
    const page = await loans.listForParty(partyId, { now }, { limit: 100, after })()
    if (E.isLeft(page)) return page
    for (const loan of page.right.slice(0, 100)) if (loan.status === 'ACTIVE') found.push(loan.id)
    if (page.right.length <= 100) return E.right(found)
    const last = page.right[99]!
    after = O.some({ createdAt: last.createdAt, id: last.id })
  }
}

/**
 * Claims one advancing clock, if any, and works its advance to the end: for each day it crosses,
 * in order, the party's active loans are serviced at that day as the daily job would service them
 * (`serviceLoan`, the clock's time as now) and the day's run is audited as the party's
 * (`interest_accrual.completed`), then the clock is moved to that day, so a process killed mid-way
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
      const loans = await activeLoansOf(deps.loans, clock.partyId, at)()
      if (E.isLeft(loans)) return loans
      const run = { asOf: utcDate(at), loansExamined: loans.right.length, loansChanged: 0, accruals: 0, loansFailed: 0 }
      for (const loanId of loans.right) {
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
      const moved = await deps.testClocks.moveTo(clock.id, at, lease())()
      if (E.isLeft(moved) || O.isNone(moved.right)) return moved
      clock = moved.right.value
    }
    return E.right(O.some(clock))
  }
