import type { PaymentProcessor } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * Bank debits on the ACH rails: a USD debit is accepted `PENDING` (nothing moves until the
 * origination job puts it in a file); another currency fails `invalid_currency`.
 */
export const achPaymentProcessor = (): PaymentProcessor => ({
  charge: ({ currency }) => TE.right(currency === 'USD' ? { status: 'PENDING' } : { status: 'FAILED', failureCode: 'invalid_currency' }),
})

/** Each charge on the rail of its method: bank accounts on `bank`, cards on `card`. */
export const railsProcessor = (rails: { readonly bank: PaymentProcessor; readonly card: PaymentProcessor }): PaymentProcessor => ({
  charge: (request) => (request.methodType === 'bank_account' ? rails.bank : rails.card).charge(request),
})
