import type { ChargeOutcome, PaymentProcessor, PaymentTokenizer } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { randomBytes } from 'node:crypto'
import { SANDBOX_BANK_ACCOUNTS } from '../ach/sandbox-bank.js'
import { achPaymentProcessor } from './rails.js'

/** A failure code of the sandbox rails, spelled as the best-known payment API's test table spells it. */
export type SandboxFailureCode = 'no_account' | 'account_closed' | 'insufficient_funds' | 'debit_not_authorized' | 'invalid_currency'

/**
 * The test bank account numbers (docs/testing.md "Magic values"), with any routing number that
 * passes the ABA check: Stripe's published US test table, so a partner's test suite means the
 * same here. `nachaReturn` is the ACH return the failure stands for (none for a currency refusal).
 */
export const SANDBOX_TEST_ACCOUNTS: readonly {
  readonly accountNumber: string
  readonly outcome: 'SUCCEEDED' | 'FAILED'
  readonly failureCode: SandboxFailureCode | null
  readonly nachaReturn: string | null
}[] = [
  { accountNumber: '000123456789', outcome: 'SUCCEEDED', failureCode: null, nachaReturn: null },
  { accountNumber: '000111111116', outcome: 'FAILED', failureCode: 'no_account', nachaReturn: 'R03' },
  { accountNumber: '000111111113', outcome: 'FAILED', failureCode: 'account_closed', nachaReturn: 'R02' },
  { accountNumber: '000222222227', outcome: 'FAILED', failureCode: 'insufficient_funds', nachaReturn: 'R01' },
  { accountNumber: '000333333335', outcome: 'FAILED', failureCode: 'debit_not_authorized', nachaReturn: 'R10' },
  { accountNumber: '000444444440', outcome: 'FAILED', failureCode: 'invalid_currency', nachaReturn: null },
]

/**
 * Charges of exactly these amounts (minor units: 5501 is USD 55.01) fail with `failureCode`
 * whatever the method, for a partner that does not choose the borrower's account number; the
 * amounts are Moov's sandbox triggers for the ACH return `nachaReturn`.
 */
export const SANDBOX_AMOUNT_TRIGGERS: readonly { readonly amount: number; readonly failureCode: SandboxFailureCode; readonly nachaReturn: string }[] = [
  { amount: 5501, failureCode: 'insufficient_funds', nachaReturn: 'R01' },
  { amount: 5502, failureCode: 'account_closed', nachaReturn: 'R02' },
  { amount: 5503, failureCode: 'no_account', nachaReturn: 'R03' },
  { amount: 5529, failureCode: 'debit_not_authorized', nachaReturn: 'R10' },
]

/** The vault marks a test account's token `btok_{failureCode}_…`; the processor reads the mark. */
const failingTokenPrefix = (failureCode: SandboxFailureCode): string => `btok_${failureCode}_`

/** Card tokens the partner's vault may hand in to make every charge of the card fail so. */
const FAILING_CARD_TOKENS: readonly { readonly prefix: string; readonly failureCode: string }[] = [
  { prefix: 'tok_insufficient_funds', failureCode: 'insufficient_funds' },
  { prefix: 'tok_card_declined', failureCode: 'card_declined' },
]

const chargeOutcome = (amount: number, token: string): ChargeOutcome => {
  const failureCode =
    SANDBOX_AMOUNT_TRIGGERS.find((trigger) => trigger.amount === amount)?.failureCode ??
    SANDBOX_TEST_ACCOUNTS.find((account) => account.failureCode !== null && token.startsWith(failingTokenPrefix(account.failureCode)))?.failureCode ??
    FAILING_CARD_TOKENS.find((card) => token.startsWith(card.prefix))?.failureCode
  return failureCode === undefined ? { status: 'SUCCEEDED' } : { status: 'FAILED', failureCode }
}

/**
 * The sandbox payment rails (docs/testing.md "Magic values"): a charge of an amount in
 * `SANDBOX_AMOUNT_TRIGGERS` fails with its code whatever the method; otherwise a method made
 * from a failing account of `SANDBOX_TEST_ACCOUNTS` fails every charge with the account's code,
 * a card token starting `tok_insufficient_funds` or `tok_card_declined` fails with that code,
 * and every other charge settles at once.
 */
export const sandboxPaymentProcessor = (): PaymentProcessor => ({
  charge: ({ amount, token }) => TE.right(chargeOutcome(amount, token)),
})

/** The vault marks a sandbox bank account's token so: the test world's rails debit it on the ACH rails (`sandboxBankRails`). */
const SANDBOX_BANK_TOKEN_PREFIX = 'btok_ach_'

/**
 * The test world's rails where its bank accounts can go on the ACH rails (docs/testing.md "The
 * sandbox bank"): a bank account made from one of the sandbox bank's account numbers is accepted
 * `PENDING`, to go in the test world's next file and be answered by the sandbox bank; every other
 * charge is answered at once, as `sandboxPaymentProcessor` answers it.
 */
export const sandboxBankRails = (): PaymentProcessor => {
  const ach = achPaymentProcessor()
  const sandbox = sandboxPaymentProcessor()
  return { charge: (request) => (request.methodType === 'bank_account' && request.token.startsWith(SANDBOX_BANK_TOKEN_PREFIX) ? ach : sandbox).charge(request) }
}

/**
 * The sandbox vault: a random token for each account, marked for the failing test accounts and
 * the sandbox bank's. The account number itself is dropped here: nothing in Lendgate can give it back.
 */
export const sandboxTokenizer = (): PaymentTokenizer => ({
  tokenizeBankAccount: ({ accountNumber }) => {
    const failureCode = SANDBOX_TEST_ACCOUNTS.find((account) => account.accountNumber === accountNumber)?.failureCode ?? null
    const prefix = SANDBOX_BANK_ACCOUNTS.has(accountNumber) ? SANDBOX_BANK_TOKEN_PREFIX : failureCode === null ? 'btok_' : failingTokenPrefix(failureCode)
    return TE.right({ token: `${prefix}${randomBytes(18).toString('base64url')}`, last4: accountNumber.slice(-4) })
  },
})
