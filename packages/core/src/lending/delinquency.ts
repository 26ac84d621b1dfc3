import { calendarDays } from './day-count.js'

/** The delinquency buckets of docs/servicing.md "Delinquency", by days past due. */
export const DELINQUENCY_BUCKETS = ['CURRENT', 'DPD_1_30', 'DPD_31_60', 'DPD_61_90', 'DPD_90_PLUS'] as const
/** One of `DELINQUENCY_BUCKETS`. */
export type DelinquencyBucket = (typeof DELINQUENCY_BUCKETS)[number]

/** The days past due of each bucket (most null: no most): read by the rules, the views and the list filter's SQL. */
export const DELINQUENCY_DAYS: Readonly<Record<DelinquencyBucket, { readonly least: number; readonly most: number | null }>> = {
  CURRENT: { least: 0, most: 0 },
  DPD_1_30: { least: 1, most: 30 },
  DPD_31_60: { least: 31, most: 60 },
  DPD_61_90: { least: 61, most: 90 },
  DPD_90_PLUS: { least: 91, most: null },
}

/** The delinquency bucket of `daysPastDue`. */
export const delinquencyBucketOf = (daysPastDue: number): DelinquencyBucket =>
  DELINQUENCY_BUCKETS.find((b) => daysPastDue <= (DELINQUENCY_DAYS[b].most ?? Infinity)) ?? 'DPD_90_PLUS'

/** Days past due on `asOf` of a loan whose oldest unpaid installment fell due on `oldestUnpaidDueDate` (0 if none has yet). */
export const daysPastDueSince = (oldestUnpaidDueDate: string | null, asOf: string): number =>
  oldestUnpaidDueDate === null || oldestUnpaidDueDate >= asOf ? 0 : calendarDays(oldestUnpaidDueDate, asOf)
