import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { PaymentTokenizer } from '../../ports/payment-tokenizer.js'

/** Payment methods of a party's loan (docs/servicing.md "Payment methods"). */

/** What the payment method use cases need. */
export type PaymentMethodDeps = {
  readonly loans: Pick<LoanRepository, 'findForParty'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'listForPartyLoan' | 'countForLoan' | 'insert' | 'findForLoan' | 'update'>
  readonly tokenizer: Pick<PaymentTokenizer, 'tokenizeBankAccount'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
