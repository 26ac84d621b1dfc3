import type { PaymentProcessor } from '@lendgate/core'
import { testId } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { achPaymentProcessor, railsProcessor } from '../src/payments/rails.js'
import { SANDBOX_BANK_ACCOUNTS } from '../src/ach/sandbox-bank.js'
import { sandboxBankRails, sandboxPaymentProcessor, sandboxTokenizer } from '../src/payments/sandbox.js'

/** The rails a charge goes on (docs/configuration.md "ACH"): bank accounts by ACH debit, cards on the card rails. */

const charge = (methodType: 'bank_account' | 'card', amount = 10_000, currency = 'USD') => ({ idempotencyKey: `client-1/${methodType}-${amount}`, paymentId: testId('pay-1'), amount, currency, token: methodType === 'card' ? 'tok_visa' : 'btok_1', methodType })

describe('achPaymentProcessor and railsProcessor', () => {
  it('accepts a USD bank debit PENDING and refuses another currency', async () => {
    const ach = achPaymentProcessor()
    expect(await ach.charge(charge('bank_account'))()).to.deep.equal(E.right({ status: 'PENDING' }))
    expect(await ach.charge(charge('bank_account', 10_000, 'EUR'))()).to.deep.equal(E.right({ status: 'FAILED', failureCode: 'invalid_currency' }))
  })

  it('sends bank accounts to the bank rails and cards to the card rails, the request as it came', async () => {
    const seen: string[] = []
    const recording = (name: string, answer: PaymentProcessor): PaymentProcessor => ({
      charge: (request) => {
        seen.push(`${name}:${request.idempotencyKey}`)
        return answer.charge(request)
      },
    })
    const rails = railsProcessor({ bank: recording('bank', achPaymentProcessor()), card: recording('card', sandboxPaymentProcessor()) })
    expect(await rails.charge(charge('bank_account'))()).to.deep.equal(E.right({ status: 'PENDING' }))
    expect(await rails.charge(charge('card'))()).to.deep.equal(E.right({ status: 'SUCCEEDED' }))
    // The card rails' own refusals stay theirs.
    expect(await rails.charge({ ...charge('card', 5501) })()).to.deep.equal(E.right({ status: 'FAILED', failureCode: 'insufficient_funds' }))
    expect(seen).to.deep.equal(['bank:client-1/bank_account-10000', 'card:client-1/card-10000', 'card:client-1/card-5501'])
  })

  it('answers what the bank rails answer when they are down', async () => {
    const down: PaymentProcessor = { charge: () => TE.left({ _tag: 'ProcessorUnavailable', cause: new Error('connection refused') }) }
    const rails = railsProcessor({ bank: down, card: sandboxPaymentProcessor() })
    expect(await rails.charge(charge('bank_account'))()).to.deep.include({ _tag: 'Left' })
  })
})

describe('sandboxBankRails and the vault’s marks (the test world’s rails)', () => {
  const tokenOf = async (accountNumber: string) => {
    const tokenized = await sandboxTokenizer().tokenizeBankAccount({ routingNumber: '110000000', accountNumber })()
    if (E.isLeft(tokenized)) return expect.fail('tokenized')
    return tokenized.right.token
  }
  const debit = (token: string, amount = 10_000, currency = 'USD') => ({ ...charge('bank_account', amount, currency), token })

  it("accepts a debit from each of the sandbox bank's accounts PENDING, whatever the amount: the bank decides it later", async () => {
    const rails = sandboxBankRails()
    for (const accountNumber of SANDBOX_BANK_ACCOUNTS) {
      const token = await tokenOf(accountNumber)
      expect(await rails.charge(debit(token))(), accountNumber).to.deep.equal(E.right({ status: 'PENDING' }))
      expect(await rails.charge(debit(token, 5501))(), accountNumber).to.deep.equal(E.right({ status: 'PENDING' }))
      expect(await rails.charge(debit(token, 10_000, 'EUR'))(), accountNumber).to.deep.equal(E.right({ status: 'FAILED', failureCode: 'invalid_currency' }))
    }
    expect(SANDBOX_BANK_ACCOUNTS.size).to.equal(8)
  })

  it('answers every other account and card at once, as the sandbox rails do', async () => {
    const rails = sandboxBankRails()
    expect(await rails.charge(debit(await tokenOf('000123456789')))()).to.deep.equal(E.right({ status: 'SUCCEEDED' }))
    expect(await rails.charge(debit(await tokenOf('000222222227')))()).to.deep.equal(E.right({ status: 'FAILED', failureCode: 'insufficient_funds' }))
    expect(await rails.charge(debit(await tokenOf('000123456789'), 5502))()).to.deep.equal(E.right({ status: 'FAILED', failureCode: 'account_closed' }))
    expect(await rails.charge(charge('card'))()).to.deep.equal(E.right({ status: 'SUCCEEDED' }))
  })

  it("lets the sandbox processor (the live world's rails without ACH, and a party on a test clock) settle the sandbox bank's accounts at once", async () => {
    const sandbox = sandboxPaymentProcessor()
    for (const accountNumber of SANDBOX_BANK_ACCOUNTS) expect(await sandbox.charge(debit(await tokenOf(accountNumber)))(), accountNumber).to.deep.equal(E.right({ status: 'SUCCEEDED' }))
  })
})
