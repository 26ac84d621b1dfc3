import * as E from 'fp-ts/lib/Either.js'
import * as J from 'fp-ts/lib/Json.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import type { Clock } from '../../ports/clock.js'
import type { World } from '../../core-deps.js'
import type { JobLease, JobLeases } from '../../ports/job-leases.js'

/** The name of job `job` of `world` (decision 128): the job's own for the live world, with the world's after it for the test world. */
export const worldJobName = (job: string, world: World): string => (world === 'live' ? job : `${job}:${world}`)

/** Where the run stands after a step, and whether it is done. */
export type JobStep<P> = { readonly progress: P; readonly done: boolean }

/**
 * A job run in steps, its progress saved with the lease after each, so a run taken over after a
 * crash repeats at most the step under way. Steps must be safe to repeat.
 */
export type SteppedJob<P> = {
  /** Unique in a deployment: the lease's key and the metrics label. */
  readonly name: string
  readonly initial: P
  /** Saved progress that does not decode starts the run over. */
  readonly progress: t.Type<P, unknown, unknown>
  /** One step from `progress`. */
  readonly step: (progress: P) => TE.TaskEither<StoreUnavailable, JobStep<P>>
  /** Runs after the last step, before the run is recorded completed; if it fails, the next holder repeats the last step and `finish`. */
  readonly finish: (progress: P) => TE.TaskEither<StoreUnavailable, void>
}

/** Which run, who asks, how long a lease lasts, and when to stop. */
export type JobRunRequest = {
  readonly runKey: string
  readonly holder: string
  /** Renewed after every step. */
  readonly leaseMs: number
  /** Asked before every step: true stops the run, its progress saved and its lease released. */
  readonly stopping: () => boolean
}

/** `NotDue`: completed, or another holder's lease holds; `Stopped` on request; `LeaseLost` to another holder. */
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

const savedProgress = <P>(job: SteppedJob<P>, lease: JobLease): O.Option<P> =>
  lease.progress === null
    ? O.none
    : pipe(
        J.parse(lease.progress),
        E.chainW((json) => job.progress.decode(json)),
        O.fromEither,
      )

/**
 * Runs `request.runKey` of `job` if due and unheld: resumes from saved progress, saves and renews
 * after each step, then `finish` and completes. A failed step releases the lease with the progress
 * before it, to be resumed at the next attempt.
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

/**
 * Runs `job` from its start to its end in one go, with no lease: for a holder that already owns
 * the work (a test clock's advance holds its clock, decision 147). A step that fails stops it; a
 * run started again repeats from the start, which every job's steps allow.
 */
export const runToEnd =
  <P>(job: SteppedJob<P>): TE.TaskEither<StoreUnavailable, void> =>
  async () => {
    let progress = job.initial
    for (;;) {
      const step = await job.step(progress)()
      if (E.isLeft(step)) return step
      progress = step.right.progress
      if (step.right.done) return job.finish(progress)()
    }
  }
