import type { PaymentProcessor, PaymentTokenizer } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { randomBytes } from 'node:crypto'

/**
 * The sandbox payment rails (docs/servicing.md "Payments"): every charge settles at once,
 * except the documented test amounts: minor units ending in 13 fail with
 * `insufficient_funds`, ending in 14 with `card_declined`.
 */
export const sandboxPaymentProcessor = (): PaymentProcessor => ({
  charge: ({ amount }) =>
    TE.right(
      amount % 100 === 13
        ? { status: 'FAILED', failureCode: 'insufficient_funds' }
        : amount % 100 === 14
          ? { status: 'FAILED', failureCode: 'card_declined' }
          : { status: 'SUCCEEDED' },
    ),
})

/**
 * The sandbox vault: a random token for each account. The account number itself is dropped
 * here: nothing in Lendgate can give it back.
 */
export const sandboxTokenizer = (): PaymentTokenizer => ({
  tokenizeBankAccount: ({ accountNumber }) => TE.right({ token: `btok_${randomBytes(18).toString('base64url')}`, last4: accountNumber.slice(-4) }),
})
