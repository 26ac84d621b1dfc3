/**
 * The API's delinquency buckets (`delinquency_bucket`, the `delinquency` filter of
 * `GET /internal/loans`), in order, with what an operator reads: days past due, as of each loan's
 * today in its time zone; `short` is the name on a chart's axis, under "Days past due".
 */
export const DELINQUENCY_BUCKETS = [
  { id: 'CURRENT', name: 'Current', short: 'Current' },
  { id: 'DPD_1_30', name: '1–30 days past due', short: '1–30' },
  { id: 'DPD_31_60', name: '31–60 days past due', short: '31–60' },
  { id: 'DPD_61_90', name: '61–90 days past due', short: '61–90' },
  { id: 'DPD_90_PLUS', name: '90+ days past due', short: '90+' },
] as const

/** A bucket as text: its name, or what the API sent when the console does not know it. */
export const bucketName = (bucket: unknown): string => DELINQUENCY_BUCKETS.find((b) => b.id === bucket)?.name ?? String(bucket ?? '')

/** A bucket as a chart's axis names it: its short name, or what the API sent when the console does not know it. */
export const bucketShortName = (bucket: unknown): string => DELINQUENCY_BUCKETS.find((b) => b.id === bucket)?.short ?? String(bucket ?? '')

/**
 * A loan's bucket in the Loans queue: only an active loan is in one (the queue's `delinquency`
 * filter matches active loans alone); a paid-off or charged-off loan's `delinquency_bucket` says
 * where it stood when it closed, and is shown as none.
 */
export const queueBucketName = (loan: Readonly<Record<string, unknown>>): string => (loan['status'] === 'ACTIVE' ? bucketName(loan['delinquency_bucket']) : '—')
