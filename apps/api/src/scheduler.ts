import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Clock, CompletedRun, JobRunOutcome, JobRunRequest, StoreUnavailable } from '@lendgate/core'
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

/**
 * A job the scheduler runs: its name (as in `SteppedJob`), when its runs are due, and how a run
 * is attempted (`runLeasedJob` on the job of `request.runKey`).
 */
export type ScheduledJob = {
  readonly name: string
  readonly due: (now: Date) => DueRun
  readonly attempt: (request: JobRunRequest) => TE.TaskEither<StoreUnavailable, JobRunOutcome>
}

export type SchedulerDeps = {
  readonly lastCompleted: (job: string) => TE.TaskEither<StoreUnavailable, O.Option<CompletedRun>>
  readonly clock: Clock
  readonly metrics: Metrics
  readonly logger: Logger
}

export type Scheduler = {
  /** Each job's lag, for the metrics: how long its latest due run has waited (0 once it completed). */
  readonly lag: () => Promise<readonly { readonly job: string; readonly seconds: number }[]>
  /** Stops between two steps of the run under way (its progress saved and its lease released for another process), then resolves. */
  readonly stop: () => Promise<void>
}

/** How long a lease lasts without renewal: a crashed runner's run is taken over this long after its last step. */
export const JOB_LEASE_MS = 30_000
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
    const { runKey } = scheduled.due(deps.clock.now())
    const started = process.hrtime.bigint()
    // A thrown exception is a bug; it is logged and counted like a failure, and the loop goes on.
    const outcome = await scheduled
      .attempt({ runKey, holder, leaseMs: JOB_LEASE_MS, stopping: () => stopping })()
      .catch((err: unknown) => E.left({ cause: err }))
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    if (E.isLeft(outcome)) {
      deps.metrics.jobRun(scheduled.name, 'failed', seconds)
      deps.logger.warn({ err: outcome.left.cause, job: scheduled.name, run: runKey }, 'scheduled job failed; it will be resumed')
      return
    }
    const label = labelOf(outcome.right)
    if (label === undefined) return
    deps.metrics.jobRun(scheduled.name, label, seconds)
    deps.logger.info({ job: scheduled.name, run: runKey, outcome: label, duration_s: Math.round(seconds * 1000) / 1000 }, 'scheduled job run')
  }

  const tick = (): void => {
    current = (async () => {
      for (const scheduled of jobs) if (!stopping) await attempt(scheduled)
    })()
    void current.finally(() => {
      if (!stopping) timer = setTimeout(tick, checkMs)
    })
  }
  tick()

  return {
    lag: async () => {
      const now = deps.clock.now()
      const lags = await Promise.all(
        jobs.map(async ({ name, due }) => {
          const { runKey, dueAt } = due(now)
          const last = await deps.lastCompleted(name)()
          if (E.isLeft(last)) return undefined
          const done = O.isSome(last.right) && last.right.value.runKey >= runKey
          return { job: name, seconds: done ? 0 : (now.getTime() - dueAt.getTime()) / 1000 }
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
