import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { decode, EmptyInput } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { DELINQUENCY_BUCKETS, delinquencyBucketOf, type DelinquencyBucket } from '../../lending/index.js'
import type { DelinquencyCount, LoanRepository } from '../../ports/loan-repository.js'
import { bookTime, type BookTimeDeps } from '../testing/party-clock.js'

/** The active loans of one delinquency bucket and what their latest snapshots add up to (minor units). */
export type BucketTotals = {
  readonly bucket: DelinquencyBucket
  readonly loans: number
  readonly principalOutstanding: number
  readonly pastDueAmount: number
}

/** One currency's active loans by delinquency bucket: every bucket, in `DELINQUENCY_BUCKETS` order. */
export type CurrencyDelinquency = { readonly currency: string; readonly buckets: readonly BucketTotals[] }

/** The portfolio's active loans by currency (sorted by code) and delinquency bucket, as of `asOf`. */
export type DelinquencySummary = { readonly asOf: Date; readonly currencies: readonly CurrencyDelinquency[] }

/**
 * `counts` summed into buckets: each group's days past due put in its bucket by the one rule of
 * `delinquencyBucketOf`; every bucket of a currency listed, an empty one with zeros. Amounts of
 * different currencies are never added together.
 */
export const delinquencyByBucket = (counts: readonly DelinquencyCount[]): readonly CurrencyDelinquency[] => {
  const byCurrency = new Map<string, Map<DelinquencyBucket, BucketTotals>>()
  for (const count of counts) {
    const buckets = byCurrency.get(count.currency) ?? new Map(DELINQUENCY_BUCKETS.map((bucket) => [bucket, { bucket, loans: 0, principalOutstanding: 0, pastDueAmount: 0 }]))
    byCurrency.set(count.currency, buckets)
    const bucket = delinquencyBucketOf(count.daysPastDue)
    const sum = buckets.get(bucket)!
    buckets.set(bucket, {
      bucket,
      loans: sum.loans + count.loans,
      principalOutstanding: sum.principalOutstanding + count.principalOutstanding,
      pastDueAmount: sum.pastDueAmount + count.pastDueAmount,
    })
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, buckets]) => ({ currency, buckets: DELINQUENCY_BUCKETS.map((bucket) => buckets.get(bucket)!) }))
}

/**
 * The portfolio's delinquency (docs/console.md): every active loan of the world counted in its
 * bucket on its own today (its party's time), with its latest snapshot's principal outstanding
 * and past-due amount, summed per currency. Paid-off and charged-off loans are in no bucket. The
 * query takes no parameters.
 */
export const getDelinquencySummary =
  (deps: BookTimeDeps & { readonly loans: Pick<LoanRepository, 'delinquencyCounts'> }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, DelinquencySummary> =>
    pipe(
      TE.fromEither(decode(EmptyInput)(command)),
      TE.chainW(() => bookTime(deps)),
      TE.chainW((time) => pipe(deps.loans.delinquencyCounts(time), TE.map((counts) => ({ asOf: time.now, currencies: delinquencyByBucket(counts) })))),
    )
