/**
 * The API's delinquency buckets (`delinquency_bucket`, the `delinquency` filter of
 * `GET /internal/loans`), in order, with what an operator reads: days past due, as of each loan's
 * today in its time zone.
 */
export const DELINQUENCY_BUCKETS = [
  { id: 'CURRENT', name: 'Current' },
  { id: 'DPD_1_30', name: '1–30 days past due' },
  { id: 'DPD_31_60', name: '31–60 days past due' },
  { id: 'DPD_61_90', name: '61–90 days past due' },
  { id: 'DPD_90_PLUS', name: '90+ days past due' },
] as const

/** A bucket as text: its name, or what the API sent when the console does not know it. */
export const bucketName = (bucket: unknown): string => DELINQUENCY_BUCKETS.find((b) => b.id === bucket)?.name ?? String(bucket ?? '')
