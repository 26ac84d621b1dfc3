import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { PaymentTokenizer } from '../../ports/payment-tokenizer.js'
import type { AccountSeal } from '../../ports/account-seal.js'

/** Payment methods of a party's loan (docs/servicing.md "Payment methods"). */

/** What the payment method use cases need. */
export type PaymentMethodDeps = {
  readonly loans: Pick<LoanRepository, 'findForParty'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'listForPartyLoan' | 'countForLoan' | 'insert' | 'findForLoan' | 'update'>
  readonly tokenizer: Pick<PaymentTokenizer, 'tokenizeBankAccount'>
  /** Seals a bank account's numbers, kept with its method for bank files; undefined, they are not kept (the server has no sealing key). */
  readonly accountSeal?: Pick<AccountSeal, 'seal'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
