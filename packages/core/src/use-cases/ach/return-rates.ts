import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { ACH_TIME_ZONE } from '../../domain/ach/cutoffs.js'
import { RATE_CATEGORIES, RETURN_RATE_THRESHOLDS, RETURN_RATE_WINDOW_DAYS, type RateCategory } from '../../domain/ach/return-codes.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { ClientId } from '../../domain/foundations/ids.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import { addDays } from '../../lending/index.js'
import type { AchReturnRates, ClientReturnCounts } from '../../ports/ach-return-rates.js'
import type { Clock } from '../../ports/clock.js'

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
export const clientReturnRates = (counts: ClientReturnCounts): ClientReturnRates =>
  ({
    clientId: counts.clientId,
    debits: counts.debits,
    ...Object.fromEntries(RATE_CATEGORIES.map((category) => [category, categoryRate(category, counts[category], counts.debits)])),
  }) as ClientReturnRates

const ReturnRatesCommand = commandOf([], EmptyInput)

/**
 * The return rates of the last `RETURN_RATE_WINDOW_DAYS` days, today (New York) included: per API
 * client, the returns received in the window over the debits effective in it, as Nacha measures
 * them, against its thresholds (0.5 % unauthorized, 3 % administrative, 15 % overall).
 */
export const achReturnRates =
  (deps: { readonly returnRates: AchReturnRates; readonly clock: Clock }) =>
  (command: unknown = {}): TE.TaskEither<InvalidRequest | StoreUnavailable, ReturnRateReport> => {
    const to = dateIn(ACH_TIME_ZONE, deps.clock.now())
    const from = addDays(to, 1 - RETURN_RATE_WINDOW_DAYS)
    return pipe(
      // It takes nothing: the window is the last 60 days.
      TE.fromEither(decode(ReturnRatesCommand)(command)),
      TE.chainW(() => deps.returnRates.countsBetween(from, to)),
      TE.map((counts) => ({ from, to, clients: counts.map(clientReturnRates) })),
    )
  }
