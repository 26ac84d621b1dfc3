import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import { cutoffOf, cutoffRunKey, type Clock, type CompletedRun, type CutoffSchedule, type JobRunOutcome, type JobRunRequest, type StoreUnavailable } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Logger } from 'pino'
import type { JobRunLabel, Metrics } from './metrics.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** A run of a daily job: its key (the UTC date it runs for) and when it became due. */
export type DueRun = { readonly runKey: string; readonly dueAt: Date }

/** The latest run of a job scheduled every day at `minute` minutes after 00:00 UTC that is due at `now`. */
export const dailyRunDue = (minute: number, now: Date): DueRun => {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + minute * 60_000
  const dueAt = new Date(today <= now.getTime() ? today : today - DAY_MS)
  return { runKey: dueAt.toISOString().slice(0, 10), dueAt }
}

/** When a job's runs are due. */
export type Schedule = {
  /** The latest run due at `now`. */
  readonly latest: (now: Date) => DueRun
  /** The run that comes after run `runKey`. */
  readonly after: (runKey: string) => DueRun
}

/** A run every day at `minute` minutes after 00:00 UTC, named by its date. */
export const dailySchedule = (minute: number): Schedule => ({
  latest: (now) => dailyRunDue(minute, now),
  after: (runKey) => {
    const dueAt = new Date(Date.parse(`${runKey}T00:00:00.000Z`) + DAY_MS + minute * 60_000)
    return { runKey: dueAt.toISOString().slice(0, 10), dueAt }
  },
})

/** Runs at the cut-offs of `cutoffs` (banking days, New York time), named `YYYY-MM-DDTHH:MM`. */
export const cutoffRuns = (cutoffs: CutoffSchedule): Schedule => {
  const due = (cutoff: Parameters<CutoffSchedule['instant']>[0]): DueRun => ({ runKey: cutoffRunKey(cutoff), dueAt: cutoffs.instant(cutoff) })
  return {
    latest: (now) => due(cutoffs.latest(now)),
    after: (runKey) => {
      const cutoff = cutoffOf(runKey)
      if (cutoff === undefined) throw new Error(`cutoffRuns: ${runKey} is not a cut-off's run key`)
      return due(cutoffs.after(cutoff))
    },
  }
}

/**
 * A job the scheduler runs: its name (as in `SteppedJob`), when its runs are due, and how a run
 * is attempted (`runLeasedJob` on the job of `request.runKey`).
 */
export type ScheduledJob = {
  readonly name: string
  readonly schedule: Schedule
  readonly attempt: (request: JobRunRequest) => TE.TaskEither<StoreUnavailable, JobRunOutcome>
}

export type SchedulerDeps = {
  readonly lastCompleted: (job: string) => TE.TaskEither<StoreUnavailable, O.Option<CompletedRun>>
  readonly clock: Clock
  readonly metrics: Metrics
  readonly logger: Logger
}

export type Scheduler = {
  /** Each job's lag, for the metrics: how long its earliest run not completed has been due (0 when every due run has completed). */
  readonly lag: () => Promise<readonly { readonly job: string; readonly seconds: number }[]>
  /** Stops between two steps of the run under way (its progress saved and its lease released for another process), then resolves. */
  readonly stop: () => Promise<void>
}

/**
 * How long a lease lasts without renewal: a crashed runner's run is taken over this long after
 * its last step. A step (100 loans of the servicing job) must end well within it, or another
 * process takes the run over while it is still working (no loan is posted twice, but the work
 * is done twice).
 */
export const JOB_LEASE_MS = 120_000
/** How often each process checks whether a run is due. */
export const JOB_CHECK_MS = 10_000

const labelOf = (outcome: JobRunOutcome): JobRunLabel | undefined => {
  switch (outcome._tag) {
    case 'NotDue':
      return undefined
    case 'Completed':
      return 'completed'
    case 'Stopped':
      return 'stopped'
    case 'LeaseLost':
      return 'lease_lost'
  }
}

/**
 * Runs scheduled jobs in this process (issue 38): at start and every `checkMs`, each job's due
 * run is attempted (`runLeasedJob`), which does nothing when the run has completed or another
 * process holds it. So every process may run the scheduler and each run still has one runner at
 * a time, with no external cron; a run whose runner crashed is resumed by whichever process
 * checks after its lease ran out. Attempts that did work are counted in the metrics and logged.
 */
export const startScheduler = (deps: SchedulerDeps, jobs: readonly ScheduledJob[], checkMs = JOB_CHECK_MS): Scheduler => {
  const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  let stopping = false
  let timer: NodeJS.Timeout | undefined
  let current: Promise<void> = Promise.resolve()

  const attempt = async (scheduled: ScheduledJob): Promise<void> => {
    const { runKey } = scheduled.schedule.latest(deps.clock.now())
    const started = process.hrtime.bigint()
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9
    try {
      const outcome = await scheduled.attempt({ runKey, holder, leaseMs: JOB_LEASE_MS, stopping: () => stopping })()
      if (E.isLeft(outcome)) {
        deps.metrics.jobRun(scheduled.name, 'failed', seconds())
        deps.logger.warn({ err: outcome.left.cause, job: scheduled.name, run: runKey }, 'scheduled job failed; it will be resumed')
        return
      }
      const label = labelOf(outcome.right)
      if (label === undefined) return
      deps.metrics.jobRun(scheduled.name, label, seconds())
      deps.logger.info({ job: scheduled.name, run: runKey, outcome: label, duration_s: Math.round(seconds() * 1000) / 1000 }, 'scheduled job run')
    } catch (err) {
      // A thrown exception is a bug: logged and counted, and the scheduler goes on (the lease runs out and the run is resumed).
      deps.metrics.jobRun(scheduled.name, 'error', seconds())
      deps.logger.error({ err, job: scheduled.name, run: runKey }, 'scheduled job threw')
    }
  }

  const tick = (): void => {
    current = (async () => {
      for (const scheduled of jobs) if (!stopping) await attempt(scheduled)
    })()
    void current.finally(() => {
      if (stopping) return
      timer = setTimeout(tick, checkMs)
      timer.unref()
    })
  }
  tick()

  return {
    lag: async () => {
      const now = deps.clock.now()
      const lags = await Promise.all(
        jobs.map(async ({ name, schedule }) => {
          const latest = schedule.latest(now)
          const last = await deps.lastCompleted(name)()
          if (E.isLeft(last)) return undefined
          if (O.isSome(last.right) && last.right.value.runKey >= latest.runKey) return { job: name, seconds: 0 }
          // Late since the first run after the last one completed (a job failing for days shows days).
          const waiting = O.isSome(last.right) ? schedule.after(last.right.value.runKey) : latest
          return { job: name, seconds: (now.getTime() - waiting.dueAt.getTime()) / 1000 }
        }),
      )
      return lags.filter((lag) => lag !== undefined)
    },
    stop: async () => {
      stopping = true
      if (timer !== undefined) clearTimeout(timer)
      await current
    },
  }
}
