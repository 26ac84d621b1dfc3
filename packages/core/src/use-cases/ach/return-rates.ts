import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { ACH_TIME_ZONE } from '../../domain/ach/cutoffs.js'
import { RETURN_RATE_THRESHOLDS, RETURN_RATE_WINDOW_DAYS, type RateCategory } from '../../domain/ach/return-codes.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import type { ClientId } from '../../domain/foundations/ids.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import { addDays } from '../../lending/index.js'
import type { AchReturnRates, ClientReturnCounts } from '../../ports/ach-return-rates.js'
import type { Clock } from '../../ports/clock.js'

/** Nacha's return rates per API client (docs/ach.md "Risk counters"): what an ODFI watches its originators by. */

/** One category's figures: its returns, their ratio to the debits (null without debits), Nacha's threshold and whether the rate is past it. */
export type CategoryRate = { readonly returns: number; readonly rate: number | null; readonly threshold: number; readonly over: boolean }

/** One API client's return rates over the window. */
export type ClientReturnRates = { readonly clientId: ClientId; readonly debits: number } & { readonly [C in RateCategory]: CategoryRate }

/** The return rates of every client with activity in the window `from`–`to` (New York dates, both included). */
export type ReturnRateReport = { readonly from: string; readonly to: string; readonly clients: readonly ClientReturnRates[] }

/** `returns` of `debits` in category `category`. */
const categoryRate = (category: RateCategory, returns: number, debits: number): CategoryRate => {
  const rate = debits === 0 ? null : returns / debits
  const threshold = RETURN_RATE_THRESHOLDS[category]
  return { returns, rate, threshold, over: rate !== null && rate > threshold }
}

/** A client's counts as rates. */
export const clientReturnRates = (counts: ClientReturnCounts): ClientReturnRates => ({
  clientId: counts.clientId,
  debits: counts.debits,
  unauthorized: categoryRate('unauthorized', counts.unauthorized, counts.debits),
  administrative: categoryRate('administrative', counts.administrative, counts.debits),
  overall: categoryRate('overall', counts.overall, counts.debits),
})

/**
 * The return rates of the last `RETURN_RATE_WINDOW_DAYS` days, today (New York) included: per API
 * client, the returns received in the window over the debits effective in it, as Nacha measures
 * them, against its thresholds (0.5 % unauthorized, 3 % administrative, 15 % overall).
 */
export const achReturnRates =
  (deps: { readonly returnRates: AchReturnRates; readonly clock: Clock }) =>
  (): TE.TaskEither<StoreUnavailable, ReturnRateReport> => {
    const to = dateIn(ACH_TIME_ZONE, deps.clock.now())
    const from = addDays(to, 1 - RETURN_RATE_WINDOW_DAYS)
    return pipe(
      deps.returnRates.countsSince(from),
      TE.map((counts) => ({ from, to, clients: counts.map(clientReturnRates) })),
    )
  }
