import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { World } from '../../core-deps.js'
import type { Clock } from '../../ports/clock.js'
import type { EventLog } from '../../ports/event-log.js'
import { worldJobName, type SteppedJob } from '../jobs/leased-job.js'

/** How long the event log keeps an event (docs/events.md): 30 days, then the retention job deletes it with its deliveries. */
export const EVENT_RETENTION_DAYS = 30

/** How many days ahead each run readies the log for (`EventLog.prepare`): a week of runs can fail before a day goes unreadied. */
export const EVENT_DAYS_READIED_AHEAD = 7

const DAY_MS = 86_400_000

/** How many events one step deletes one by one: short transactions, however large the backlog. */
const PRUNE_BATCH = 1_000

/** The name of `world`'s event retention job: its lease's key and its label in metrics. */
export const eventRetentionJobName = (world: World): string => worldJobName('event-retention', world)

/** A retention run's progress: the days it readied (null before its first step), the events it has deleted, and whether it left a day due to the next run (the store was busy with it). */
const PruneProgress = t.type({ readied: t.union([t.number, t.null]), deleted: t.number, deferred: t.boolean })

/**
 * `world`'s event retention job (its `eventLog`): first readies the log for today and the
 * `EVENT_DAYS_READIED_AHEAD` days after it, then deletes the events written more than
 * `EVENT_RETENTION_DAYS` before the run's start, a step at a time, until none is left.
 */
export const eventRetentionJob =
  (deps: { readonly eventLog: Pick<EventLog, 'prune' | 'prepare'>; readonly clock: Clock }, world: World) =>
  (_runKey: string): SteppedJob<t.TypeOf<typeof PruneProgress>> => {
    const now = deps.clock.now()
    const before = new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS)
    return {
      name: eventRetentionJobName(world),
      initial: { readied: null, deleted: 0, deferred: false },
      progress: PruneProgress,
      step: (progress) =>
        progress.readied === null
          ? pipe(
              deps.eventLog.prepare(now, new Date(now.getTime() + EVENT_DAYS_READIED_AHEAD * DAY_MS)),
              TE.map((readied) => ({ progress: { ...progress, readied }, done: false })),
            )
          : pipe(
              deps.eventLog.prune(before, PRUNE_BATCH),
              TE.map(({ deleted, more, deferred }) => ({ progress: { ...progress, deleted: progress.deleted + deleted, deferred: progress.deferred || deferred }, done: !more })),
            ),
      finish: () => TE.right(undefined),
    }
  }
