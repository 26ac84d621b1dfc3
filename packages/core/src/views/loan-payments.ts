import type { Buckets } from '../lending/index.js'
import { instantText } from '../domain/foundations/instant.js'
import type { Payment } from '../domain/loans/payment.js'
import type { PaymentMethod } from '../domain/loans/payment-method.js'
import type { LoanAutopay } from '../domain/loans/autopay.js'
import type { LoanId } from '../domain/foundations/ids.js'

/** How partners see payments and payment methods: never a token, never a full number. */

const bucketsView = (b: Buckets) => ({ fees: b.fees, interest: b.interest, principal: b.principal })

/** A payment as the API returns it. */
export const paymentView = (p: Payment) => ({
  payment_id: p.id,
  loan_id: p.loanId,
  status: p.status,
  amount: p.amount,
  currency: p.currency,
  payment_method_id: p.paymentMethodId,
  allocation: p.allocation === null ? null : { past_due: bucketsView(p.allocation.pastDue), ...bucketsView(p.allocation.current) },
  failure_code: p.failureCode,
  return_code: p.returnCode ?? null,
  effective_date: p.effectiveDate,
  created_at: instantText(p.createdAt),
})

/** A payment method as the API returns it: never the token, never a full number. */
export type PaymentMethodView = {
  readonly payment_method_id: string
  readonly loan_id: string
  readonly type: 'bank_account' | 'card'
  readonly nickname: string | null
  readonly is_default: boolean
  readonly status: 'active' | 'blocked'
  readonly last4: string
  readonly account_holder_name: string | null
  readonly account_type: 'checking' | 'savings' | null
  readonly brand: string | null
  readonly exp_month: number | null
  readonly exp_year: number | null
  readonly created_at: string
  readonly updated_at: string
}

/** The API's view of a payment method: never the token, never a full number. */
export const paymentMethodView = (m: PaymentMethod): PaymentMethodView => ({
  payment_method_id: m.id,
  loan_id: m.loanId,
  type: m.type,
  nickname: m.nickname,
  is_default: m.isDefault,
  status: m.status,
  last4: m.last4,
  account_holder_name: m.accountHolderName,
  account_type: m.accountType,
  brand: m.brand,
  exp_month: m.expMonth,
  exp_year: m.expYear,
  created_at: instantText(m.createdAt),
  updated_at: instantText(m.updatedAt),
})

/** A loan's autopay as the API returns it: on (since `enabled_at`) or off. */
export const autopayView = (loanId: LoanId, autopay: LoanAutopay | null) => ({
  loan_id: loanId,
  enabled: autopay !== null,
  enabled_at: autopay === null ? null : instantText(autopay.enabledAt),
})
