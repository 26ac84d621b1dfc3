import type { BalanceSnapshot, InstallmentStatus, LedgerTransaction, LoanInstallment } from './loan.js'
import { instantText } from '../foundations/instant.js'
import type { PayoffQuote } from '../../lending/index.js'

/** How partners see balances, ledger entries and installments (docs/servicing.md). */

/** A balance snapshot as partners see it (docs/servicing.md). */
export const balanceView = (b: BalanceSnapshot & { readonly sequence: number; readonly currency: string }) => ({
  balance_id: b.id,
  loan_id: b.loanId,
  as_of: b.asOf,
  currency: b.currency,
  principal_outstanding: b.principalOutstanding,
  interest_outstanding: b.interestOutstanding,
  fees_outstanding: b.feesOutstanding,
  payoff_amount: b.payoffAmount,
  past_due_amount: b.pastDueAmount,
  next_due_date: b.nextDueDate,
  next_due_amount: b.nextDueAmount,
  transaction_id: b.transactionId,
  sequence: b.sequence,
  created_at: instantText(b.createdAt),
})

/** A ledger entry as partners see it, with the loan's currency. */
export const transactionView = (t: LedgerTransaction & { readonly sequence: number; readonly currency: string }) => ({
  transaction_id: t.id,
  loan_id: t.loanId,
  type: t.type,
  effective_date: t.effectiveDate,
  amount: t.amount,
  currency: t.currency,
  principal: t.principal,
  interest: t.interest,
  fees: t.fees,
  payment_id: t.paymentId,
  reverses_transaction_id: t.reversesId,
  sequence: t.sequence,
  created_at: instantText(t.createdAt),
})

/** An installment as partners see it, with its totals and its status as of the day it is read. */
export const installmentView = (i: LoanInstallment & { readonly status: InstallmentStatus; readonly currency: string }) => ({
  installment_number: i.number,
  due_date: i.dueDate,
  currency: i.currency,
  principal_due: i.principalDue,
  interest_due: i.interestDue,
  fees_due: i.feesDue,
  total_due: i.principalDue + i.interestDue + i.feesDue,
  principal_paid: i.principalPaid,
  interest_paid: i.interestPaid,
  fees_paid: i.feesPaid,
  total_paid: i.principalPaid + i.interestPaid + i.feesPaid,
  interest_accrued: i.interestAccrued,
  status: i.status,
})

/** A payoff quote as partners see it: what pays the loan off on `as_of`, by bucket. */
export const payoffView = (q: PayoffQuote) => ({
  loan_id: q.loan.id,
  as_of: q.asOf,
  currency: q.loan.currency,
  principal: q.outstanding.principal,
  interest: q.outstanding.interest,
  fees: q.outstanding.fees,
  payoff_amount: q.payoff,
})
