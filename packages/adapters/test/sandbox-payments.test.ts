import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT as CORE_FAILING_ACCOUNT, sandboxChargeOutcome, testId } from '@lendgate/core/testing'
import { SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT, sandboxPaymentProcessor, sandboxTokenizer } from '../src/payments/sandbox.js'

/** Tokens of ordinary methods and of the documented test methods, and amounts that used to choose outcomes. */
const TOKENS = ['btok_x', 'btok_insufficient_funds_x', 'tok_insufficient_funds', 'tok_insufficient_funds_42', 'tok_card_declined', 'tok_card_declined_x', 'card_vault_1', 'tok_visa']
const AMOUNTS = [1, 13, 14, 50_000, 50_013, 50_014, 99_999_913]

describe('the sandbox payment rails', () => {
  it('answer every method as the core’s in-memory processor does (sandboxChargeOutcome), whatever the amount', async () => {
    const processor = sandboxPaymentProcessor()
    for (const amount of AMOUNTS) {
      const answers = await Promise.all(TOKENS.map((token) => processor.charge({ idempotencyKey: `client-1/${amount}-${token}`, paymentId: testId(`pay-${amount}`), amount, currency: 'USD', token })()))
      expect(answers, String(amount)).to.deep.equal(TOKENS.map((token) => E.right(sandboxChargeOutcome(token))))
    }
    expect(TOKENS.map((token) => sandboxChargeOutcome(token).status)).to.deep.equal(['SUCCEEDED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'SUCCEEDED', 'SUCCEEDED'])
    expect(SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT).to.equal(CORE_FAILING_ACCOUNT)
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

  it('tokenise the failing test account to a token whose charges fail with insufficient_funds', async () => {
    const failing = await sandboxTokenizer().tokenizeBankAccount({ routingNumber: '011000015', accountNumber: SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT })()
    if (E.isLeft(failing)) throw new Error('the sandbox vault refused')
    expect(failing.right.last4).to.equal('1113')
    expect(await sandboxPaymentProcessor().charge({ idempotencyKey: 'client-1/k1', paymentId: testId('pay-1'), amount: 50_000, currency: 'USD', token: failing.right.token })()).to.deep.equal(
      E.right({ status: 'FAILED', failureCode: 'insufficient_funds' }),
    )
  })
})
