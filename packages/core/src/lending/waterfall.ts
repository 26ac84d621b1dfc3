import type { Bucket, Buckets } from './buckets.js'

/** The order a payment fills the buckets of one installment in: each bucket named once. */
export type AllocationOrder = readonly [Bucket, Bucket, Bucket]

/** The order of a product that names none: fees, then interest, then principal. */
export const DEFAULT_ALLOCATION_ORDER: AllocationOrder = ['fees', 'interest', 'principal']

/** What of `available` goes to `owed` (never below 0, never above either). */
export const take = (available: number, owed: number): number => Math.max(0, Math.min(available, owed))

/** `amount` spread over `owed`, bucket by bucket in `order`: each takes what it owes of what is left. */
export const allocate = (amount: number, owed: Buckets, order: AllocationOrder): Buckets => {
  const paid = { principal: 0, interest: 0, fees: 0 }
  let left = amount
  for (const bucket of order) {
    paid[bucket] = take(left, owed[bucket])
    left -= paid[bucket]
  }
  return paid
}
