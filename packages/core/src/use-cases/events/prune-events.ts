import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { World } from '../../core-deps.js'
import type { Clock } from '../../ports/clock.js'
import type { EventLog } from '../../ports/event-log.js'
import { worldJobName, type SteppedJob } from '../jobs/leased-job.js'

/** How long the event log keeps an event (docs/events.md): 30 days, then the retention job deletes it with its deliveries. */
export const EVENT_RETENTION_DAYS = 30

/** How many events one step deletes: short transactions, however large the backlog. */
const PRUNE_BATCH = 1_000

/** The name of `world`'s event retention job: its lease's key and its label in metrics. */
export const eventRetentionJobName = (world: World): string => worldJobName('event-retention', world)

/** A retention run's progress: the events it has deleted. */
const PruneProgress = t.type({ deleted: t.number })

/**
 * `world`'s event retention job (its `eventLog`): deletes the events written more than
 * `EVENT_RETENTION_DAYS` before the run's start, a batch a step, until none is left.
 */
export const eventRetentionJob =
  (deps: { readonly eventLog: Pick<EventLog, 'prune'>; readonly clock: Clock }, world: World) =>
  (_runKey: string): SteppedJob<t.TypeOf<typeof PruneProgress>> => {
    const before = new Date(deps.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000)
    return {
      name: eventRetentionJobName(world),
      initial: { deleted: 0 },
      progress: PruneProgress,
      step: (progress) =>
        pipe(
          deps.eventLog.prune(before, PRUNE_BATCH),
          TE.map((deleted) => ({ progress: { deleted: progress.deleted + deleted }, done: deleted < PRUNE_BATCH })),
        ),
      finish: () => TE.right(undefined),
    }
  }
