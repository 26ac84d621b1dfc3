import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'

/**
 * A lease on one run of a scheduled job, held by one process (`holder`). A run is named by its
 * `runKey` (the daily servicing job's is the date it runs for); `progress` is what a holder of
 * the same run saved before it stopped or crashed (null: the run starts from the beginning).
 */
export type JobLease = { readonly job: string; readonly runKey: string; readonly holder: string; readonly progress: string | null }

/** A job's latest completed run. */
export type CompletedRun = { readonly runKey: string; readonly finishedAt: Date }

/**
 * Leases on scheduled jobs, shared by every process of a deployment (a table in PostgreSQL), so
 * that each run of a job has one runner at a time across the fleet and is taken over, from its
 * saved progress, when its runner dies. Run keys of one job are ordered as strings (ISO dates):
 * once a run completes, it and every earlier run are done.
 */
export type JobLeases = {
  /**
   * Takes the lease on run `runKey` of `job` for `holder` until `now + leaseMs`: some(lease),
   * carrying the progress saved by an earlier holder of the same run, unless another holder's
   * lease has not ended (none) or that run or a later one has completed (none). Of concurrent
   * calls, at most one gets the lease.
   */
  readonly acquire: (job: string, runKey: string, holder: string, now: Date, leaseMs: number) => TE.TaskEither<StoreUnavailable, O.Option<JobLease>>
  /**
   * Saves `progress` and extends the lease to `now + leaseMs`: false, saving nothing, when
   * `lease.holder` no longer holds it (it ran out and another holder took the run).
   */
  readonly renew: (lease: JobLease, progress: string, now: Date, leaseMs: number) => TE.TaskEither<StoreUnavailable, boolean>
  /** Records the run as completed at `now` and ends the lease: false, recording nothing, when `lease.holder` no longer holds it. */
  readonly complete: (lease: JobLease, now: Date) => TE.TaskEither<StoreUnavailable, boolean>
  /** Ends the lease at once, saving `progress`, so that another holder can resume the run without waiting for the lease to run out. */
  readonly release: (lease: JobLease, progress: string) => TE.TaskEither<StoreUnavailable, void>
  /** The job's latest completed run, if it ever completed one. */
  readonly lastCompleted: (job: string) => TE.TaskEither<StoreUnavailable, O.Option<CompletedRun>>
}
