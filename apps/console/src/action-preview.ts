import { formatMinor } from './money.js'

/**
 * Maker-checker (decision 152) as the console shows it, without a browser: the requests' kinds and
 * states, which records an operator may ask about, the bodies asked with, and what a preview of an
 * action says, as rows of text (money exact, in the loan's currency).
 */

/** What a loan owes in a snapshot (`ActionPreview.before`, `.after`), in minor units. */
export type Owed = {
  readonly as_of: string
  readonly principal_outstanding: number
  readonly interest_outstanding: number
  readonly fees_outstanding: number
  readonly past_due_amount: number
  readonly payoff_amount: number
}

/** A ledger entry an action would post (`ActionPreview.transactions[]`). */
export type PreviewEntry = {
  readonly transaction_id: string
  readonly type: string
  readonly effective_date: string
  readonly amount: number
  readonly principal: number
  readonly interest: number
  readonly fees: number
  readonly currency: string
}

/** What a payment reversal or a charge-off would do now (`ActionPreview` of the operator OpenAPI document). */
export type ActionPreview = {
  readonly kind: RequestKind
  readonly loan_id: string
  readonly payment_id: string | null
  readonly currency: string
  readonly status_before: string
  readonly status_after: string
  readonly before: Owed
  readonly after: Owed
  readonly transactions: readonly PreviewEntry[]
  readonly payment: { readonly payment_id: string; readonly amount: number; readonly effective_date: string } | null
  /** What the preview was of (the loan's latest snapshot and the day the action would post): a checker approves with it. */
  readonly preview_version: string
}

/** A maker-checker request (`OperatorRequest`). */
export type OperatorRequest = {
  readonly operator_request_id: string
  readonly kind: RequestKind
  readonly loan_id: string
  readonly payment_id: string | null
  readonly reason: string
  readonly state: RequestState
  readonly requested_by: string
  readonly requested_at: string
  readonly decided_by: string | null
  readonly decided_at: string | null
  readonly rejection_reason: string | null
}

export const REQUEST_KINDS = [
  { id: 'payment_reversal', name: 'Payment reversal' },
  { id: 'loan_charge_off', name: 'Charge-off' },
] as const

export type RequestKind = (typeof REQUEST_KINDS)[number]['id']

/** The states of a request, for the Approvals filter: `PENDING` until another operator decides. */
export const REQUEST_STATES = [
  { id: 'PENDING', name: 'Pending' },
  { id: 'APPROVED', name: 'Approved' },
  { id: 'REJECTED', name: 'Rejected' },
] as const

export type RequestState = (typeof REQUEST_STATES)[number]['id']

/** A kind as an operator reads it, or what the API sent when the console does not know it. */
export const kindName = (kind: unknown): string => REQUEST_KINDS.find((k) => k.id === kind)?.name ?? String(kind ?? '')

/** The payment statuses a reversal may be asked of: money that came in. */
export const REVERSIBLE_PAYMENT_STATUSES: readonly string[] = ['SUCCEEDED', 'SETTLED']

/** Whether a reversal of `payment` (a `Payment` record) may be asked for. */
export const reversible = (payment: Readonly<Record<string, unknown>>): boolean => REVERSIBLE_PAYMENT_STATUSES.includes(String(payment['status']))

/** Whether a charge-off of `loan` (a `Loan` record) may be asked for: while it is active. */
export const chargeable = (loan: Readonly<Record<string, unknown>>): boolean => loan['status'] === 'ACTIVE'

/** What a request is of: a payment to reverse, or a loan to charge off. */
export type RequestSubject = { readonly kind: 'payment_reversal'; readonly payment_id: string } | { readonly kind: 'loan_charge_off'; readonly loan_id: string }

/** The body of `POST /internal/operator-requests` and of its `/preview`: the subject and why, trimmed. */
export const requestBody = (subject: RequestSubject, reason: string): RequestSubject & { readonly reason: string } => ({ ...subject, reason: reason.trim() })

/** What an operator reads of a subject: `payment 1f0…`, `loan 9b2…`. */
export const subjectName = (subject: RequestSubject): string => (subject.kind === 'payment_reversal' ? `payment ${subject.payment_id}` : `loan ${subject.loan_id}`)

/**
 * The change from `before` to `after` in minor units as text with its sign (`+500.00 USD`,
 * `-12.34 USD`), `No change` when equal; exact, or `—` when either is not a safe integer.
 */
export const changeOf = (before: unknown, after: unknown, currency: unknown): string => {
  if (typeof before !== 'number' || typeof after !== 'number' || !Number.isSafeInteger(before) || !Number.isSafeInteger(after)) return '—'
  const difference = after - before
  if (!Number.isSafeInteger(difference)) return '—'
  if (difference === 0) return 'No change'
  return difference > 0 ? `+${formatMinor(difference, currency)}` : formatMinor(difference, currency)
}

/** A line of the before → after table. */
export type PreviewRow = { readonly label: string; readonly before: string; readonly after: string; readonly change: string }

/** The amounts the before → after table shows, in its order. */
const OWED_ROWS: readonly (readonly [string, keyof Omit<Owed, 'as_of'>])[] = [
  ['Principal outstanding', 'principal_outstanding'],
  ['Interest outstanding', 'interest_outstanding'],
  ['Fees outstanding', 'fees_outstanding'],
  ['Past due', 'past_due_amount'],
  ['Payoff amount', 'payoff_amount'],
]

/**
 * A preview as the rows of a before → after table: the loan's status, then what it owes
 * (principal, interest, fees, past due, payoff), each with its change.
 */
export const previewRows = (preview: ActionPreview): PreviewRow[] => [
  {
    label: 'Status',
    before: preview.status_before,
    after: preview.status_after,
    change: preview.status_before === preview.status_after ? 'No change' : `${preview.status_before} → ${preview.status_after}`,
  },
  ...OWED_ROWS.map(([label, field]) => ({
    label,
    before: formatMinor(preview.before[field], preview.currency),
    after: formatMinor(preview.after[field], preview.currency),
    change: changeOf(preview.before[field], preview.after[field], preview.currency),
  })),
]

/** A ledger entry of a preview as text: its type, date and amounts, money exact. */
export type EntryRow = { readonly key: string; readonly type: string; readonly effectiveDate: string; readonly amount: string; readonly principal: string; readonly interest: string; readonly fees: string }

export const entryRows = (preview: ActionPreview): EntryRow[] =>
  preview.transactions.map((t, index) => {
    const currency = t.currency ?? preview.currency
    return {
      key: `${index}-${t.transaction_id}`,
      type: t.type,
      effectiveDate: t.effective_date,
      amount: formatMinor(t.amount, currency),
      principal: formatMinor(t.principal, currency),
      interest: formatMinor(t.interest, currency),
      fees: formatMinor(t.fees, currency),
    }
  })

/** What a preview says, in one sentence: for assistive technology, and as the table's summary. */
export const previewSummary = (preview: ActionPreview): string => {
  const what =
    preview.kind === 'payment_reversal'
      ? `Reversing payment ${preview.payment?.payment_id ?? preview.payment_id ?? ''}${preview.payment === null ? '' : ` of ${formatMinor(preview.payment.amount, preview.currency)} (effective ${preview.payment.effective_date})`}`
      : `Charging off loan ${preview.loan_id}`
  const entries = preview.transactions.length
  const payoffChange = changeOf(preview.before.payoff_amount, preview.after.payoff_amount, preview.currency)
  return (
    `${what} would take the payoff amount from ${formatMinor(preview.before.payoff_amount, preview.currency)} to ` +
    `${formatMinor(preview.after.payoff_amount, preview.currency)} (${payoffChange === 'No change' ? 'no change' : payoffChange}), ` +
    `the status from ${preview.status_before} to ${preview.status_after}, and post ${entries} ledger ${entries === 1 ? 'entry' : 'entries'}.`
  )
}

/** An operator of a request (`requested_by`, `decided_by`) as text: its id, marked when it is the signed-in operator. */
export const operatorName = (operatorId: unknown, signedIn: unknown): string => {
  if (typeof operatorId !== 'string' || operatorId === '') return '—'
  return operatorId === signedIn ? `${operatorId} (you)` : operatorId
}

/** What approving a request does, once the server said it did it. */
export const approvedWords = (kind: unknown): string =>
  kind === 'loan_charge_off' ? 'The request is approved: the loan is charged off.' : kind === 'payment_reversal' ? 'The request is approved: the payment is reversed.' : 'The request is approved.'
