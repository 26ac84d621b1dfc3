import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId } from '../domain/foundations/ids.js'

/** One API client's bank debits sent and returns received in a window (docs/ach.md "Risk counters"). */
export type ClientReturnCounts = {
  readonly clientId: ClientId
  /** Debit entries of written files (`SENT_ENTRY_STATUSES`) effective in the window. */
  readonly debits: number
  /** Returns of our debits received in the window: unauthorized ones, administrative ones, and all of them. */
  readonly unauthorized: number
  readonly administrative: number
  readonly overall: number
}

/** The counts return rates are made of, per API client. */
export type AchReturnRates = {
  /** Each client with a debit effective, or a return received, from `from` to `to` (`YYYY-MM-DD`, both included), by client id. */
  readonly countsBetween: (from: string, to: string) => TE.TaskEither<StoreUnavailable, readonly ClientReturnCounts[]>
}
