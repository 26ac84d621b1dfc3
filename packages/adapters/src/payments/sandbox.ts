import type { PaymentProcessor, PaymentTokenizer } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { randomBytes } from 'node:crypto'

/** The test bank account whose charges fail with `insufficient_funds` (docs/servicing.md "Sandbox payment methods"). */
export const SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT = '000111111113'

/**
 * The sandbox payment rails (docs/servicing.md "Sandbox payment methods"): the outcome of a
 * charge is chosen by the payment method, never by the amount, as test cards choose it on real
 * rails. A method whose token starts `btok_insufficient_funds` (the vault's token for
 * `SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT`) or `tok_insufficient_funds` (a card token) fails with
 * `insufficient_funds`; a card token starting `tok_card_declined` fails with `card_declined`;
 * every other charge settles at once.
 */
export const sandboxPaymentProcessor = (): PaymentProcessor => ({
  charge: ({ token }) =>
    TE.right(
      token.startsWith('btok_insufficient_funds') || token.startsWith('tok_insufficient_funds')
        ? { status: 'FAILED', failureCode: 'insufficient_funds' }
        : token.startsWith('tok_card_declined')
          ? { status: 'FAILED', failureCode: 'card_declined' }
          : { status: 'SUCCEEDED' },
    ),
})

/**
 * The sandbox vault: a random token for each account (marked for the failing test account). The
 * account number itself is dropped here: nothing in Lendgate can give it back.
 */
export const sandboxTokenizer = (): PaymentTokenizer => ({
  tokenizeBankAccount: ({ accountNumber }) => {
    const kind = accountNumber === SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT ? 'insufficient_funds_' : ''
    return TE.right({ token: `btok_${kind}${randomBytes(18).toString('base64url')}`, last4: accountNumber.slice(-4) })
  },
})
