import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'

/** A file a bank sent us, waiting in the inbox to be ingested. */
export type ArrivedAchFile = {
  readonly name: string
  readonly bytes: Uint8Array
  /** The day it arrived (`YYYY-MM-DD`, New York). */
  readonly arrivedOn: string
  /** What `take` needs to mark it taken: the inbox's own reference, opaque to its callers. */
  readonly receipt: string
}

/**
 * Where a bank's files arrive for the inbox job (docs/ach.md "The sandbox bank"): the sandbox
 * bank's answers in the test world; a bank connector's folder later. A file is offered until it
 * is taken, so a run that stops before taking it offers it again (ingesting a file twice changes
 * nothing).
 */
export type AchInbox = {
  /** Up to `limit` files arrived by the end of `day` and not taken yet, oldest first. */
  readonly arrivedBy: (day: string, limit: number) => TE.TaskEither<StoreUnavailable, readonly ArrivedAchFile[]>
  /** Marks `file` taken, with every file of the same receipt that arrived before it: it is offered no more. */
  readonly take: (file: ArrivedAchFile) => TE.TaskEither<StoreUnavailable, void>
}
