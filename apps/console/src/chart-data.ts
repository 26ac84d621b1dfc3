import { bucketName } from './delinquency.js'
import { formatMinor } from './money.js'

/**
 * What the console's charts draw, and the text that stands for each chart for whoever cannot see
 * it: pure functions of the API's records (the tables beside each chart show every figure).
 */

/** One installment's split as a schedule preview (`installments`) or a loan's schedule gives it, in minor units. */
export type InstallmentSplit = { readonly number: number; readonly dueDate: string; readonly principal: number; readonly interest: number }

/** A schedule preview's installments as splits. */
export const previewSplits = (installments: readonly Record<string, unknown>[]): InstallmentSplit[] =>
  installments.map((i) => ({ number: Number(i['number']), dueDate: String(i['due_date']), principal: Number(i['principal']), interest: Number(i['interest']) }))

/** A loan's schedule (`Installment` views) as splits: what is due of principal and interest. */
export const scheduleSplits = (installments: readonly Record<string, unknown>[]): InstallmentSplit[] =>
  installments.map((i) => ({
    number: Number(i['installment_number']),
    dueDate: String(i['due_date']),
    principal: Number(i['principal_due']),
    interest: Number(i['interest_due']),
  }))

/** The sum of `values`, exactly while it stays a safe integer (minor units). */
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0)

/** What a stacked bar chart of principal and interest per installment says, in words. */
export const splitDescription = (splits: readonly InstallmentSplit[], currency: unknown): string => {
  if (splits.length === 0) return 'No installments.'
  const first = splits[0]!
  const last = splits[splits.length - 1]!
  const principal = sum(splits.map((s) => s.principal))
  const interest = sum(splits.map((s) => s.interest))
  return (
    `${splits.length} installments from ${first.dueDate} to ${last.dueDate}: ${formatMinor(principal, currency)} of principal and ` +
    `${formatMinor(interest, currency)} of interest in all. Interest is ${formatMinor(first.interest, currency)} of the first installment ` +
    `and ${formatMinor(last.interest, currency)} of the last; principal ${formatMinor(first.principal, currency)} of the first and ` +
    `${formatMinor(last.principal, currency)} of the last.`
  )
}

/** A point of a loan's balance over time: the last snapshot of its date. */
export type BalancePoint = { readonly asOf: string; readonly principalOutstanding: number; readonly payoffAmount: number }

/**
 * A loan's balances (`Balance` views, a snapshot after every ledger change) as one point per date,
 * oldest first: the snapshot of the highest `sequence` of each `as_of` date, which is the balance at
 * that day's end. `principal_outstanding` is the principal owed; `payoff_amount` all that is owed
 * (principal, accrued interest and fees).
 */
export const balancePoints = (balances: readonly Record<string, unknown>[]): BalancePoint[] => {
  const ordered = [...balances].sort((a, b) => Number(a['sequence']) - Number(b['sequence']))
  const byDate = new Map<string, BalancePoint>()
  for (const b of ordered) {
    const asOf = String(b['as_of'])
    byDate.delete(asOf)
    byDate.set(asOf, { asOf, principalOutstanding: Number(b['principal_outstanding']), payoffAmount: Number(b['payoff_amount']) })
  }
  return [...byDate.values()].sort((a, b) => (a.asOf < b.asOf ? -1 : a.asOf > b.asOf ? 1 : 0))
}

/** What a line chart of the balance over time says, in words. */
export const balanceDescription = (points: readonly BalancePoint[], currency: unknown): string => {
  if (points.length === 0) return 'No balances.'
  const first = points[0]!
  const last = points[points.length - 1]!
  return (
    `Balance on ${points.length} ${points.length === 1 ? 'date' : 'dates'} from ${first.asOf} to ${last.asOf}: principal outstanding ` +
    `${formatMinor(first.principalOutstanding, currency)} then ${formatMinor(last.principalOutstanding, currency)}; payoff amount ` +
    `${formatMinor(first.payoffAmount, currency)} then ${formatMinor(last.payoffAmount, currency)}.`
  )
}

/** One delinquency bucket of one currency's active loans: how many, and what they owe (minor units). */
export type BucketFigures = { readonly bucket: string; readonly loans: number; readonly principalOutstanding: number; readonly pastDueAmount: number }

/** One currency's active loans by delinquency bucket, every bucket in the API's order (current, then by days past due). */
export type CurrencyDelinquency = { readonly currency: string; readonly buckets: readonly BucketFigures[] }

/** The bucket of a loan no day past due; every other bucket is past due. */
const CURRENT = 'CURRENT'

/**
 * The book's delinquency (`currencies` of `GET /internal/portfolio/delinquency`) as figures, one
 * currency at a time in the API's order (by currency code): none when no loan is active.
 */
export const delinquencyByCurrency = (currencies: readonly Record<string, unknown>[]): CurrencyDelinquency[] =>
  currencies.map((c) => ({
    currency: String(c['currency']),
    buckets: (Array.isArray(c['buckets']) ? (c['buckets'] as readonly Record<string, unknown>[]) : []).map((b) => ({
      bucket: String(b['bucket']),
      loans: Number(b['loans']),
      principalOutstanding: Number(b['principal_outstanding']),
      pastDueAmount: Number(b['past_due_amount']),
    })),
  }))

/** A number of active loans in words: `1 active loan`, `3 active loans`. */
const activeLoans = (count: number): string => `${count} active ${count === 1 ? 'loan' : 'loans'}`

/** What a bar chart of one currency's active loans per bucket says, in words: the totals, then each bucket's count. */
export const delinquencyDescription = (book: CurrencyDelinquency): string => {
  const pastDue = book.buckets.filter((b) => b.bucket !== CURRENT)
  const counts = book.buckets.map((b) => `${bucketName(b.bucket)}: ${b.loans}`).join('; ')
  return (
    `${activeLoans(sum(book.buckets.map((b) => b.loans)))} in ${book.currency}, with ` +
    `${formatMinor(sum(book.buckets.map((b) => b.principalOutstanding)), book.currency)} of principal outstanding; ` +
    `${sum(pastDue.map((b) => b.loans))} of them past due, by ${formatMinor(sum(pastDue.map((b) => b.pastDueAmount)), book.currency)} in all. ${counts}.`
  )
}

/** A row of the table beside the chart: the bucket and its figures as text, money exact in the currency. */
export type BucketRow = { readonly bucket: string; readonly name: string; readonly loans: string; readonly principalOutstanding: string; readonly pastDue: string }

/** One currency's buckets as the rows of its table, in the chart's order. */
export const delinquencyRows = (book: CurrencyDelinquency): BucketRow[] =>
  book.buckets.map((b) => ({
    bucket: b.bucket,
    name: bucketName(b.bucket),
    loans: String(b.loans),
    principalOutstanding: formatMinor(b.principalOutstanding, book.currency),
    pastDue: formatMinor(b.pastDueAmount, book.currency),
  }))
