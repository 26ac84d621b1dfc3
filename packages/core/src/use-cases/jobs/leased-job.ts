import * as E from 'fp-ts/lib/Either.js'
import * as J from 'fp-ts/lib/Json.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import type { Clock } from '../../ports/clock.js'
import type { JobLease, JobLeases } from '../../ports/job-leases.js'

/** What one step of a job did: where the run stands after it, and whether the run is done. */
export type JobStep<P> = { readonly progress: P; readonly done: boolean }

/**
 * A job that runs in steps and can resume from where an earlier runner of the same run stopped:
 * its progress after each step is saved with the lease (`progress` encodes it as JSON), so a
 * run taken over after a crash repeats at most the step that was under way. Steps must be safe
 * to repeat (the daily servicing job's are: accrual is idempotent per loan and date).
 */
export type SteppedJob<P> = {
  /** The job's name, unique in a deployment: its lease's key, and its label in metrics. */
  readonly name: string
  /** Where a run starts. */
  readonly initial: P
  /** Encodes progress to JSON and reads it back; saved progress that does not decode starts the run over. */
  readonly progress: t.Type<P, unknown, unknown>
  /** One step from `progress`. */
  readonly step: (progress: P) => TE.TaskEither<StoreUnavailable, JobStep<P>>
  /**
   * Runs once the last step is done, before the run is recorded as completed (for example, its
   * audit event). If it fails, or the process dies before the run is recorded, the next holder
   * runs the last step again (it finds nothing left to do) and `finish` again.
   */
  readonly finish: (progress: P) => TE.TaskEither<StoreUnavailable, void>
}

/** One attempt at a run: which run, who asks (a name unique to the process), for how long a lease lasts, and when to stop early. */
export type JobRunRequest = {
  readonly runKey: string
  readonly holder: string
  /** How long the lease lasts without news from the holder; it is renewed after every step. */
  readonly leaseMs: number
  /** Asked before every step: true stops the run there, its progress saved and its lease released (the process is stopping). */
  readonly stopping: () => boolean
}

/**
 * How an attempt at a run ended: `NotDue`, nothing was done (the run has completed, or another
 * holder's lease on it has not ended); `Completed` (`resumed`: from an earlier holder's
 * progress); `Stopped` on request, the progress saved for another holder; `LeaseLost`, another
 * holder took the run over after this one's lease ran out, and this one stopped.
 */
export type JobRunOutcome =
  | { readonly _tag: 'NotDue' }
  | { readonly _tag: 'Completed'; readonly resumed: boolean }
  | { readonly _tag: 'Stopped' }
  | { readonly _tag: 'LeaseLost' }

/** What `runLeasedJob` needs. */
export type LeasedJobDeps = { readonly leases: JobLeases; readonly clock: Clock }

const NOT_DUE: JobRunOutcome = { _tag: 'NotDue' }
const STOPPED: JobRunOutcome = { _tag: 'Stopped' }
const LEASE_LOST: JobRunOutcome = { _tag: 'LeaseLost' }

/** The saved progress of a lease, when there is some and it decodes. */
const savedProgress = <P>(job: SteppedJob<P>, lease: JobLease): O.Option<P> =>
  lease.progress === null
    ? O.none
    : pipe(
        J.parse(lease.progress),
        E.chainW((json) => job.progress.decode(json)),
        O.fromEither,
      )

/**
 * Runs run `request.runKey` of `job` if it is due and nobody else is running it (issue 38): takes
 * the job's lease (`JobLeases.acquire`), resumes from the progress an earlier holder saved, and
 * after each step saves the progress and renews the lease; when the last step is done, runs
 * `finish` and records the run as completed. A step that fails (the store is unavailable) ends
 * the attempt with that Left, its lease released with the progress before the step, so the run
 * is resumed at the next attempt, here or in another process.
 */
export const runLeasedJob =
  (deps: LeasedJobDeps) =>
  <P>(job: SteppedJob<P>, request: JobRunRequest): TE.TaskEither<StoreUnavailable, JobRunOutcome> =>
  async () => {
    const acquired = await deps.leases.acquire(job.name, request.runKey, request.holder, deps.clock.now(), request.leaseMs)()
    if (E.isLeft(acquired)) return acquired
    if (O.isNone(acquired.right)) return E.right(NOT_DUE)
    const lease = acquired.right.value
    const saved = savedProgress(job, lease)
    const encode = (progress: P): string => JSON.stringify(job.progress.encode(progress))
    let progress = O.getOrElse(() => job.initial)(saved)
    let done = false
    while (!done) {
      if (request.stopping()) {
        const released = await deps.leases.release(lease, encode(progress))()
        return E.isLeft(released) ? released : E.right(STOPPED)
      }
      const stepped = await job.step(progress)()
      if (E.isLeft(stepped)) {
        // The store is likely down for this too; if so, the lease simply runs out.
        await deps.leases.release(lease, encode(progress))()
        return stepped
      }
      progress = stepped.right.progress
      done = stepped.right.done
      const renewed = await deps.leases.renew(lease, encode(progress), deps.clock.now(), request.leaseMs)()
      if (E.isLeft(renewed)) return renewed
      if (!renewed.right) return E.right(LEASE_LOST)
    }
    const finished = await job.finish(progress)()
    if (E.isLeft(finished)) return finished
    const completed = await deps.leases.complete(lease, deps.clock.now())()
    if (E.isLeft(completed)) return completed
    return E.right(completed.right ? { _tag: 'Completed', resumed: O.isSome(saved) } : LEASE_LOST)
  }
