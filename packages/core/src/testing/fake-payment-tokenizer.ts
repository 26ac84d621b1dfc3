import * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentTokenizer } from '../ports/payment-tokenizer.js'

/** A bank account as it is handed to the tokenizer. */
export type BankAccount = Parameters<PaymentTokenizer['tokenizeBankAccount']>[0]

/** The fake vault, with the accounts it was given. */
export type FakePaymentTokenizer = PaymentTokenizer & {
  /** Every account it tokenised, in order (a test's own data: the real vault keeps them, Lendgate never does). */
  readonly seen: () => readonly BankAccount[]
}

/** A `PaymentTokenizer` in memory: tokens `btok_1`, `btok_2`, … and the account's last four digits. */
export const fakePaymentTokenizer = (): FakePaymentTokenizer => {
  const seen: BankAccount[] = []
  return {
    seen: () => [...seen],
    tokenizeBankAccount: (account) =>
      TE.fromIO(() => {
        seen.push(account)
        return { token: `btok_${seen.length}`, last4: account.accountNumber.slice(-4) }
      }),
  }
}
