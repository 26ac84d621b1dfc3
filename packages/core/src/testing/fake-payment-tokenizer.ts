import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentTokenizer } from '../ports/payment-tokenizer.js'
import { SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT } from './fake-payment-processor.js'

/** A bank account as it is handed to the tokenizer. */
export type BankAccount = Parameters<PaymentTokenizer['tokenizeBankAccount']>[0]

/** The fake vault, with the accounts it was given. */
export type FakePaymentTokenizer = PaymentTokenizer & {
  /** Every account it tokenised, in order (a test's own data: the real vault keeps them, Lendgate never does). */
  readonly seen: () => readonly BankAccount[]
}

/**
 * A `PaymentTokenizer` in memory: tokens `btok_1`, `btok_2`, … and the account's last four
 * digits; the sandbox's failing test account (`SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT`) gets
 * `btok_insufficient_funds_1`, … so that its charges fail as on the sandbox rails.
 */
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
