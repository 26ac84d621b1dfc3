import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { sandboxChargeOutcome, testId } from '@lendgate/core/testing'
import { sandboxPaymentProcessor, sandboxTokenizer } from '../src/payments/sandbox.js'

/** Amounts around the documented test endings (13, 14) and ordinary ones, in minor units. */
const AMOUNTS = [1, 12, 13, 14, 15, 100, 113, 114, 50_000, 50_013, 50_014, 1_200_014, 99_999_913]

describe('the sandbox payment rails', () => {
  it('answer every amount as the core’s in-memory processor does (sandboxChargeOutcome)', async () => {
    const processor = sandboxPaymentProcessor()
    const answers = await Promise.all(AMOUNTS.map((amount) => processor.charge({ paymentId: testId(`pay-${amount}`), amount, currency: 'USD', token: 'btok_x' })()))

    expect(answers).to.deep.equal(AMOUNTS.map((amount) => E.right(sandboxChargeOutcome(amount))))
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
})
