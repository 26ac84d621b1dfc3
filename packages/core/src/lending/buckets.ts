/** What is owed, or paid, in each bucket, in minor units. */
export type Buckets = { readonly principal: number; readonly interest: number; readonly fees: number }

/** One bucket of `Buckets`. */
export type Bucket = keyof Buckets

/** Nothing in any bucket. */
export const ZERO: Buckets = { principal: 0, interest: 0, fees: 0 }

export const add = (a: Buckets, b: Buckets): Buckets => ({ principal: a.principal + b.principal, interest: a.interest + b.interest, fees: a.fees + b.fees })
export const subtract = (a: Buckets, b: Buckets): Buckets => ({ principal: a.principal - b.principal, interest: a.interest - b.interest, fees: a.fees - b.fees })
export const total = (b: Buckets): number => b.principal + b.interest + b.fees
export const sameBuckets = (a: Buckets, b: Buckets): boolean => a.principal === b.principal && a.interest === b.interest && a.fees === b.fees

/** `-n` without a negative zero (which JSON would hide but deep equality would not). */
const negate = (n: number): number => (n === 0 ? 0 : -n)
export const negated = (b: Buckets): Buckets => ({ principal: negate(b.principal), interest: negate(b.interest), fees: negate(b.fees) })

/** The sum of a ledger's bucket changes. */
export const ledgerSums = (changes: readonly Buckets[]): Buckets => changes.reduce((sum, t) => add(sum, { principal: t.principal, interest: t.interest, fees: t.fees }), ZERO)
