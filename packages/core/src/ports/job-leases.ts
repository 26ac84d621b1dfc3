import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'

/** A lease on run `runKey` of a job; `progress` is what an earlier holder of the run saved (null: from the start). */
export type JobLease = { readonly job: string; readonly runKey: string; readonly holder: string; readonly progress: string | null }

/** A job's latest completed run. */
export type CompletedRun = { readonly runKey: string; readonly finishedAt: Date }

/**
 * Leases on scheduled jobs, shared by the fleet: one runner per run, taken over from its saved
 * progress when it dies. Run keys are ordered as strings: a completed run completes all earlier ones.
 */
export type JobLeases = {
  /** Some(lease) with the saved progress; none while another holder's lease lasts or that or a later run completed. At most one concurrent call wins. */
  readonly acquire: (job: string, runKey: string, holder: string, now: Date, leaseMs: number) => TE.TaskEither<StoreUnavailable, O.Option<JobLease>>
  /** Saves `progress` and extends the lease; false, saving nothing, when `lease.holder` lost it. */
  readonly renew: (lease: JobLease, progress: string, now: Date, leaseMs: number) => TE.TaskEither<StoreUnavailable, boolean>
  /** False, recording nothing, when `lease.holder` lost it. */
  readonly complete: (lease: JobLease, now: Date) => TE.TaskEither<StoreUnavailable, boolean>
  /** Ends the lease at once, saving `progress`, so another holder need not wait. */
  readonly release: (lease: JobLease, progress: string) => TE.TaskEither<StoreUnavailable, void>
  /** None if it never completed a run. */
  readonly lastCompleted: (job: string) => TE.TaskEither<StoreUnavailable, O.Option<CompletedRun>>
}
