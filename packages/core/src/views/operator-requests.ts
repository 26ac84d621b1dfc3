import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'
import type { OperatorRequest } from '../domain/operators/operator-request.js'
import type { BalanceSnapshot } from '../lending/index.js'
import type { Payment } from '../domain/loans/payment.js'
import type { ActionPreview, ApprovedRequest } from '../use-cases/servicing/operator-requests.js'
import { paymentView } from './loan-payments.js'
import { entryView, loanView } from './loans.js'

/** A maker-checker request as the API returns it (decision 152). */
export const operatorRequestView = (r: OperatorRequest) => ({
  operator_request_id: r.id,
  kind: r.kind,
  loan_id: r.loanId,
  payment_id: r.paymentId,
  reason: r.reason,
  state: r.state,
  requested_by: r.requestedBy,
  requested_at: instantText(r.createdAt),
  decided_by: r.decidedBy,
  decided_at: instantTextOrNull(r.decidedAt),
  rejection_reason: r.rejectionReason,
})

/** What a loan owes in a snapshot, in minor units of the loan's currency. */
const owedView = (b: BalanceSnapshot) => ({
  as_of: b.asOf,
  principal_outstanding: b.principalOutstanding,
  interest_outstanding: b.interestOutstanding,
  fees_outstanding: b.feesOutstanding,
  past_due_amount: b.pastDueAmount,
  payoff_amount: b.payoffAmount,
})

/** The payment a reversal would undo: what it paid, and when. */
const reversedPaymentView = (p: Payment) => ({ payment_id: p.id, amount: p.amount, effective_date: p.effectiveDate })

/**
 * What an action would do, as the loan stands now: the loan's status and what it owes before and
 * after, the ledger entries it would post, and the payment it would reverse as it would become.
 */
export const actionPreviewView = (p: ActionPreview) => ({
  kind: p.subject.kind,
  loan_id: p.loan.id,
  payment_id: p.subject.kind === 'payment_reversal' ? p.subject.paymentId : null,
  currency: p.loan.currency,
  status_before: p.loan.status,
  status_after: p.change.posting.loanStatus ?? p.loan.status,
  before: owedView(p.before),
  after: owedView(p.after),
  transactions: p.change.posting.transactions.map((t) => entryView(t, p.loan.currency)),
  payment: p.change.result.kind === 'payment_reversal' ? reversedPaymentView(p.change.result.payment) : null,
  preview_version: p.version,
})

/** An approved request and what its action made: the payment reversed, or the loan charged off (on `now`). */
export const approvedRequestView = (a: ApprovedRequest, now: Date) => ({
  operator_request: operatorRequestView(a.request),
  payment: a.outcome.kind === 'payment_reversal' ? paymentView(a.outcome.payment) : null,
  loan: a.outcome.kind === 'loan_charge_off' ? loanView(a.outcome.loan, now) : null,
})
