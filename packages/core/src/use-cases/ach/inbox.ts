import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { World } from '../../core-deps.js'
import { SYSTEM_CONTEXT } from '../../domain/audit/audit-event.js'
import { cutoffOf } from '../../domain/ach/cutoffs.js'
import { storeUnavailable, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { AchInbox } from '../../ports/ach-inbox.js'
import { worldJobName, type JobStep, type SteppedJob } from '../jobs/leased-job.js'
import { ingestAchFile, type IngestionDeps } from './ingestion.js'

/** The inbox job: the files a bank sent by a day, ingested as an operator's would be. */

const INBOX_JOB = 'ach-inbox'

/** The name of the inbox job of `world`: its lease's key and its label in metrics. */
export const achInboxJobName = (world: World): string => worldJobName(INBOX_JOB, world)

/** How many files a step ingests. */
const BATCH = 10

/** How many files the run ingested. */
const InboxProgress = t.type({ ingested: t.number })
type InboxProgress = t.TypeOf<typeof InboxProgress>

/**
 * The inbox job of `world` for run `runKey` (`YYYY-MM-DDTHH:MM`, New York time, on day D): every
 * file of `inbox` arrived by the end of D is ingested (`ingestAchFile`, as the system), then taken,
 * oldest first. A file the ingestion refuses stops the run (files of our own bank's making are
 * never refused: one that is means a defect to look at); a run resumed ingests its files again,
 * which changes nothing.
 */
export const achInboxJob =
  (deps: IngestionDeps & { readonly inbox: AchInbox }, world: World = 'live') =>
  (runKey: string): SteppedJob<InboxProgress> => ({
    name: achInboxJobName(world),
    initial: { ingested: 0 },
    progress: InboxProgress,
    step: (progress) => {
      const day = cutoffOf(runKey)?.date
      if (day === undefined) return TE.left(storeUnavailable(new Error(`${runKey} is not a run of the inbox job (YYYY-MM-DDTHH:MM)`)))
      return pipe(
        deps.inbox.arrivedBy(day, BATCH),
        TE.chain((files) =>
          pipe(
            files,
            TE.traverseSeqArray((file) =>
              pipe(
                ingestAchFile(deps)(file.bytes, SYSTEM_CONTEXT),
                TE.mapLeft((failure): StoreUnavailable => (failure._tag === 'StoreUnavailable' ? failure : storeUnavailable(new Error(`bank file ${file.name} is refused: ${failure._tag === 'InvalidRequest' ? failure.detail : failure._tag}`)))),
                TE.chain(() => deps.inbox.take(file)),
              ),
            ),
            TE.map((done): JobStep<InboxProgress> => ({ progress: { ingested: progress.ingested + done.length }, done: files.length < BATCH })),
          ),
        ),
      )
    },
    finish: () => TE.right(undefined),
  })
