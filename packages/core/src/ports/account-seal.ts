import type * as O from 'fp-ts/lib/Option.js'
import type { PaymentMethodId } from '../domain/foundations/ids.js'

/** A bank account's numbers: what a bank file needs to debit it. */
export type BankAccountNumbers = { readonly routingNumber: string; readonly accountNumber: string }

/**
 * Bank account numbers sealed at rest (AES-256-GCM in the adapter), each bound to its payment
 * method: a sealed value opens only for the method it was sealed for, so one cannot be moved to
 * another method's row. Opened only to write a bank file.
 */
export type AccountSeal = {
  /** `account` sealed for the method `methodId`: opens only for that method, under this key. */
  readonly seal: (methodId: PaymentMethodId, account: BankAccountNumbers) => string
  /** None when the value was tampered with, sealed for another method, or sealed under another key. */
  readonly open: (methodId: PaymentMethodId, sealed: string) => O.Option<BankAccountNumbers>
}
