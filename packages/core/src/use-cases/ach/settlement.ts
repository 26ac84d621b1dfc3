import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { World } from '../../core-deps.js'
import type { BankingCalendar } from '../../domain/ach/banking-days.js'
import { cutoffOf } from '../../domain/ach/cutoffs.js'
import { storeUnavailable, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { PaymentId, type PartyId } from '../../domain/foundations/ids.js'
import { addDays } from '../../lending/index.js'
import type { AchEntry, AchOriginations } from '../../ports/ach-originations.js'
import type { LoanFailures } from '../../ports/loan-failures.js'
import { worldJobName, type JobStep, type SteppedJob } from '../jobs/leased-job.js'
import { failureReason } from '../servicing/accrue-loans.js'
import { settleSubmittedPayment, type SubmissionDeps } from './submission.js'

/** The settlement job (docs/ach.md "Settlement job"): debits whose return window has passed become `SETTLED`. */

/**
 * Banking days after its effective entry date (E) that a debit may be returned for most reasons:
 * from the end of the second, it is `SETTLED`. A late return (an unauthorized consumer debit,
 * up to 60 days) still applies to a settled payment.
 */
export const RETURN_WINDOW_BANKING_DAYS = 2

/** What the settlement job needs. */
export type SettlementDeps = SubmissionDeps & {
  readonly originations: Pick<AchOriginations, 'unsettled' | 'markSettled'>
  readonly calendar: BankingCalendar
  readonly failures?: LoanFailures
}

const SETTLEMENT_JOB = 'ach-settlement'

/** The name of the settlement job of `world`: its lease's key and its label in metrics. */
export const achSettlementJobName = (world: World): string => worldJobName(SETTLEMENT_JOB, world)

/** How many entries a step reads. */
const BATCH = 100

/** Where a run stands: the last entry it read (in effective date and payment order), and how many it settled. */
const SettlementProgress = t.type({
  after: t.union([t.type({ submittedOn: t.string, paymentId: PaymentId }), t.null]),
  settled: t.number,
})
type SettlementProgress = t.TypeOf<typeof SettlementProgress>

/**
 * Settles the payment of `entry`: `SETTLED` with its `payment.settled`, then the entry. A payment
 * an earlier attempt settled has its entry caught up; one in another state (returned since) is
 * left. A store error on this payment alone is told to `failures` and left for the next run.
 */
const settleEntry =
  (deps: SettlementDeps) =>
  (entry: AchEntry): TE.TaskEither<StoreUnavailable, boolean> =>
  async () => {
    const outcome = await settleSubmittedPayment(deps)(entry.paymentId)()
    if (E.isRight(outcome)) {
      const marked = await deps.originations.markSettled(entry.paymentId)()
      return E.isLeft(marked) ? marked : E.right(true)
    }
    const current = await deps.loans.payments.paymentById(entry.paymentId)()
    if (E.isLeft(current)) return outcome.left._tag === 'StoreUnavailable' ? E.left(outcome.left) : current
    if (outcome.left._tag === 'StoreUnavailable') {
      if (O.isSome(current.right)) deps.failures?.loanFailed({ job: SETTLEMENT_JOB, loanId: current.right.value.loanId, reason: failureReason(outcome.left) })
      return E.right(false)
    }
    if (O.isSome(current.right) && current.right.value.status === 'SETTLED') {
      const marked = await deps.originations.markSettled(entry.paymentId)()
      return E.isLeft(marked) ? marked : E.right(false)
    }
    return E.right(false)
  }

/**
 * The settlement job of `world` for run `runKey` (`YYYY-MM-DDTHH:MM`, New York time, on a banking
 * day D): every `SUBMITTED` debit whose effective entry date E has
 * `addBankingDays(E, RETURN_WINDOW_BANKING_DAYS)` on or before D is settled
 * (`settleSubmittedPayment`), a batch a step. Repeatable: a settled payment is not settled again.
 * The world's files' debits; with `partyId`, those of the party's own files (its test clock's).
 */
export const achSettlementJob =
  (deps: SettlementDeps, world: World = 'live', partyId: PartyId | null = null) =>
  (runKey: string): SteppedJob<SettlementProgress> => ({
    name: achSettlementJobName(world),
    initial: { after: null, settled: 0 },
    progress: SettlementProgress,
    step: (progress) => {
      const day = cutoffOf(runKey)?.date
      if (day === undefined) return TE.left(storeUnavailable(new Error(`${runKey} is not a run of the settlement job (YYYY-MM-DDTHH:MM)`)))
      // E is at least RETURN_WINDOW_BANKING_DAYS calendar days before D: the calendar judges the rest.
      return pipe(
        deps.originations.unsettled(addDays(day, -RETURN_WINDOW_BANKING_DAYS), O.fromNullable(progress.after), BATCH, partyId),
        TE.chain((entries) =>
          pipe(
            entries.filter((entry) => entry.submittedOn !== null && deps.calendar.addBankingDays(entry.submittedOn, RETURN_WINDOW_BANKING_DAYS) <= day),
            TE.traverseSeqArray(settleEntry(deps)),
            TE.map((settled): JobStep<SettlementProgress> => {
              const last = entries[entries.length - 1]
              return {
                progress: { after: last === undefined || last.submittedOn === null ? progress.after : { submittedOn: last.submittedOn, paymentId: last.paymentId }, settled: progress.settled + settled.filter(Boolean).length },
                done: entries.length < BATCH,
              }
            }),
          ),
        ),
      )
    },
    finish: () => TE.right(undefined),
  })
