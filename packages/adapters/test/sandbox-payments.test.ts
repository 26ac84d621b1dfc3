import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT as CORE_FAILING_ACCOUNT, sandboxChargeOutcome, testId } from '@lendgate/core/testing'
import { SANDBOX_AMOUNT_TRIGGERS, SANDBOX_TEST_ACCOUNTS, sandboxPaymentProcessor, sandboxTokenizer } from '../src/payments/sandbox.js'

/** Tokens of ordinary methods and of the test methods core's in-memory processor knows, and amounts that trigger nothing. */
const TOKENS = ['btok_x', 'btok_insufficient_funds_x', 'tok_insufficient_funds', 'tok_insufficient_funds_42', 'tok_card_declined', 'tok_card_declined_x', 'card_vault_1', 'tok_visa']
const AMOUNTS = [1, 13, 14, 5_500, 5_504, 50_000, 50_013, 50_014, 99_999_913]

const chargeOf = (amount: number, token: string) => sandboxPaymentProcessor().charge({ idempotencyKey: `client-1/${amount}-${token}`, paymentId: testId(`pay-${amount}`), amount, currency: 'USD', token, methodType: token.startsWith('btok_') ? 'bank_account' : 'card' })()

const tokenOf = async (accountNumber: string): Promise<string> => {
  const tokenized = await sandboxTokenizer().tokenizeBankAccount({ routingNumber: '011000015', accountNumber })()
  if (E.isLeft(tokenized)) throw new Error('the sandbox vault refused')
  return tokenized.right.token
}

describe('the sandbox payment rails', () => {
  it('answer the methods core’s in-memory processor knows as it does (sandboxChargeOutcome), at any amount that triggers nothing', async () => {
    for (const amount of AMOUNTS) {
      const answers = await Promise.all(TOKENS.map((token) => chargeOf(amount, token)))
      expect(answers, String(amount)).to.deep.equal(TOKENS.map((token) => E.right(sandboxChargeOutcome(token))))
    }
    expect(TOKENS.map((token) => sandboxChargeOutcome(token).status)).to.deep.equal(['SUCCEEDED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'SUCCEEDED', 'SUCCEEDED'])
    expect(SANDBOX_TEST_ACCOUNTS.find((account) => account.accountNumber === CORE_FAILING_ACCOUNT)?.failureCode).to.equal('insufficient_funds')
  })

  it('tokenise a bank account to a random token and its last four digits, never the number', async () => {
    const tokenizer = sandboxTokenizer()
    const first = await tokenizer.tokenizeBankAccount({ routingNumber: '011000015', accountNumber: '000123456789' })()
    const second = await tokenizer.tokenizeBankAccount({ routingNumber: '011000015', accountNumber: '000123456789' })()
    if (E.isLeft(first) || E.isLeft(second)) throw new Error('the sandbox vault refused')

    expect([first.right.last4, second.right.last4]).to.deep.equal(['6789', '6789'])
    expect(first.right.token).to.match(/^btok_[A-Za-z0-9_-]{24}$/)
    expect(first.right.token).to.not.equal(second.right.token)
    expect(first.right.token).to.not.include('123456789')
  })

  describe('magic values (docs/testing.md)', () => {
    it('hold Stripe’s US test account table, each failure with the NACHA return it stands for', () => {
      expect(SANDBOX_TEST_ACCOUNTS.map((account) => [account.accountNumber, account.outcome, account.failureCode, account.nachaReturn])).to.deep.equal([
        ['000123456789', 'SUCCEEDED', null, null],
        ['000111111116', 'FAILED', 'no_account', 'R03'],
        ['000111111113', 'FAILED', 'account_closed', 'R02'],
        ['000222222227', 'FAILED', 'insufficient_funds', 'R01'],
        ['000333333335', 'FAILED', 'debit_not_authorized', 'R10'],
        ['000444444440', 'FAILED', 'invalid_currency', null],
      ])
    })

    it('hold Moov’s amount triggers', () => {
      expect(SANDBOX_AMOUNT_TRIGGERS.map((trigger) => [trigger.amount, trigger.failureCode, trigger.nachaReturn])).to.deep.equal([
        [5501, 'insufficient_funds', 'R01'],
        [5502, 'account_closed', 'R02'],
        [5503, 'no_account', 'R03'],
        [5529, 'debit_not_authorized', 'R10'],
      ])
    })

    it('answer every charge of a test account’s method with the account’s outcome, whatever the amount that triggers nothing', async () => {
      for (const account of SANDBOX_TEST_ACCOUNTS) {
        const token = await tokenOf(account.accountNumber)
        const expected = account.failureCode === null ? { status: 'SUCCEEDED' } : { status: 'FAILED', failureCode: account.failureCode }
        expect(await Promise.all(AMOUNTS.map((amount) => chargeOf(amount, token))), account.accountNumber).to.deep.equal(AMOUNTS.map(() => E.right(expected)))
      }
    })

    it('answer a trigger amount with its failure whatever the method', async () => {
      const tokens = [...TOKENS, ...(await Promise.all(SANDBOX_TEST_ACCOUNTS.map((account) => tokenOf(account.accountNumber))))]
      for (const trigger of SANDBOX_AMOUNT_TRIGGERS) {
        expect(await Promise.all(tokens.map((token) => chargeOf(trigger.amount, token))), String(trigger.amount)).to.deep.equal(tokens.map(() => E.right({ status: 'FAILED', failureCode: trigger.failureCode })))
      }
    })

    it('settle an account number one digit away from a failing one', async () => {
      expect(await chargeOf(50_000, await tokenOf('000222222228'))).to.deep.equal(E.right({ status: 'SUCCEEDED' }))
    })
  })
})
