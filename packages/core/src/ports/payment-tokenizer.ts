import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ProcessorUnavailable } from './payment-processor.js'

/** Exchanges a bank account number for a token at the edge: Lendgate keeps only the token and last four. */
export type PaymentTokenizer = {
  /** The token and the account's last four digits. */
  readonly tokenizeBankAccount: (account: {
    readonly routingNumber: string
    readonly accountNumber: string
  }) => TE.TaskEither<ProcessorUnavailable, { readonly token: string; readonly last4: string }>
}
