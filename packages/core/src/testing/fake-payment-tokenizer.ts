import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentTokenizer } from '../ports/payment-tokenizer.js'
import { SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT } from './fake-payment-processor.js'

/** As handed to the tokenizer. */
export type BankAccount = Parameters<PaymentTokenizer['tokenizeBankAccount']>[0]

/** With the accounts it was given. */
export type FakePaymentTokenizer = PaymentTokenizer & {
  /** Every account tokenised, in order. */
  readonly seen: () => readonly BankAccount[]
}

/** Tokens `btok_1`, …; the insufficient-funds test account (`SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT`) gets `btok_insufficient_funds_1`, … */
export const fakePaymentTokenizer = (): FakePaymentTokenizer => {
  const seen: BankAccount[] = []
  return {
    seen: () => [...seen],
    tokenizeBankAccount: (account) =>
      TE.fromIO(() => {
        seen.push(account)
        const kind = account.accountNumber === SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT ? 'insufficient_funds_' : ''
        return { token: `btok_${kind}${seen.length}`, last4: account.accountNumber.slice(-4) }
      }),
  }
}
