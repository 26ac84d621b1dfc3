import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { httpCodeSender, SANDBOX_AMOUNT_TRIGGERS, SANDBOX_BANK_RULES, SANDBOX_TEST_ACCOUNTS } from '@lendgate/adapters'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { magicValuesTable, sandboxBankTable } from '../src/openapi/testing-guide.js'
import { bookLoan, TERM_LOAN_PRODUCT, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

const TESTING_GUIDE = new URL('../../../docs/testing.md', import.meta.url)

/** A valid ABA routing number other than the servicing suite's: any that passes the checksum works with the test accounts. */
const ROUTING = '021000021'
const bankAccount = (accountNumber: string) => ({ type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: ROUTING, account_number: accountNumber })
const CARD = { type: 'card', card_token: 'tok_visa_1', last4: '4242', exp_month: 12, exp_year: 2099 }
/** An amount that triggers nothing. */
const PLAIN_AMOUNT = 10_000

describe('the magic values table (docs/testing.md)', () => {
  it('lists every test account and every amount trigger with its failure code and NACHA return', () => {
    const lines = magicValuesTable().split('\n')
    for (const account of SANDBOX_TEST_ACCOUNTS) {
      const line = lines.filter((l) => l.startsWith(`| \`${account.accountNumber}\` |`))
      expect(line, account.accountNumber).to.have.length(1)
      expect(line[0]).to.include(account.failureCode === null ? '| settles | — |' : `| fails | \`${account.failureCode}\` |`)
      expect(line[0]).to.match(new RegExp(`\\| ${account.nachaReturn ?? '—'} \\|$`))
    }
    for (const trigger of SANDBOX_AMOUNT_TRIGGERS) {
      const line = lines.filter((l) => l.startsWith(`| \`${trigger.amount}\` `))
      expect(line, String(trigger.amount)).to.have.length(1)
      expect(line[0]).to.include(`| fails | \`${trigger.failureCode}\` | ${trigger.nachaReturn} |`)
    }
    expect(lines.filter((l) => /^\| `\d+`/.test(l))).to.have.length(SANDBOX_TEST_ACCOUNTS.length + SANDBOX_AMOUNT_TRIGGERS.length)
  })

  it('is the table docs/testing.md shows under "Magic values"', () => {
    const guide = readFileSync(TESTING_GUIDE, 'utf8')
    expect(guide.slice(guide.indexOf('## Magic values'))).to.include(magicValuesTable())
  })
})

describe('the sandbox bank table (docs/testing.md "The sandbox bank")', () => {
  it('lists every rule of the sandbox bank once, with its code and banking days', () => {
    const lines = sandboxBankTable().split('\n')
    for (const rule of SANDBOX_BANK_RULES) {
      const key = 'amount' in rule ? `| \`${rule.amount}\` ` : `| \`${rule.accountNumber}\` |`
      const line = lines.filter((l) => l.startsWith(key))
      expect(line, key).to.have.length(1)
      const { outcome } = rule
      expect(line[0]).to.match(outcome.kind === 'settle' ? /settles: `SETTLED` \| 2 \|$/ : new RegExp(`${outcome.kind === 'return' ? outcome.returnCode : outcome.correction.changeCode}.* \\| ${outcome.afterBankingDays} \\|$`))
    }
    expect(lines.filter((l) => /^\| `\d+`/.test(l))).to.have.length(SANDBOX_BANK_RULES.length)
  })

  it('is the table docs/testing.md shows under "The sandbox bank"', () => {
    const guide = readFileSync(TESTING_GUIDE, 'utf8')
    expect(guide.slice(guide.indexOf('## The sandbox bank'))).to.include(sandboxBankTable())
  })
})

const servers: readonly { readonly name: string; readonly start: (codeDeliveryUrl: string) => Promise<TestServer> }[] = [
  { name: 'the in-memory server', start: (url) => startInMemoryServer(() => ({ sender: httpCodeSender(url) })) },
  ...testDatabases().map((database) => ({ name: database.name, start: (url: string) => startTestServer(database, { verificationDeliveryUrl: url }) })),
]

for (const { name, start } of servers) {
  describe(`the sandbox magic values over HTTP on ${name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower
    let loan: BookedLoan

    const call = (path: string, json: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      request(server.url, path, { method: 'POST', headers: { ...bearer(borrower.key.api_key), ...headers }, json })
    const methodOf = async (json: Record<string, unknown>): Promise<string> => {
      const reply = await call(loan.paths.paymentMethods, json)
      expect(reply.status, reply.text).to.equal(201)
      return reply.body.payment_method_id
    }
    const pay = async (amount: number, paymentMethodId: string): Promise<Record<string, unknown>> => {
      const reply = await call(loan.paths.payments, { amount, currency: 'USD', payment_method_id: paymentMethodId }, { 'Idempotency-Key': `magic-${randomUUID()}` })
      expect(reply.status, reply.text).to.equal(201)
      return reply.body
    }
    const latestBalance = async (): Promise<unknown> => (await request(server.url, loan.paths.latestBalance, { headers: bearer(borrower.key.api_key) })).body

    before(async () => {
      receiver = await startCodeReceiver()
      server = await start(receiver.url)
      borrower = await onboardBorrower(server, receiver)
      const product = await request(server.url, '/internal/loan-products', { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: { ...TERM_LOAN_PRODUCT, name: 'Magic values term loan' } })
      expect(product.status, product.text).to.equal(201)
      loan = await bookLoan(server, borrower, { product_id: product.body.product_id })
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    it('answers each test account number’s payment with its outcome and failure code, moving nothing when it fails', async () => {
      for (const account of SANDBOX_TEST_ACCOUNTS) {
        const method = await methodOf(bankAccount(account.accountNumber))
        const before = await latestBalance()
        const payment = await pay(PLAIN_AMOUNT, method)
        if (account.failureCode === null) {
          expect(payment, account.accountNumber).to.deep.include({ status: 'SUCCEEDED', failure_code: null, amount: PLAIN_AMOUNT })
          expect(await latestBalance(), account.accountNumber).to.not.deep.equal(before)
        } else {
          expect(payment, account.accountNumber).to.deep.include({ status: 'FAILED', failure_code: account.failureCode, allocation: null })
          expect(await latestBalance(), account.accountNumber).to.deep.equal(before)
        }
      }
    })

    it('fails a payment of each trigger amount with its failure code, from a bank account that settles and from a card', async () => {
      const methods = [await methodOf(bankAccount('000123456789')), await methodOf(CARD)]
      const before = await latestBalance()
      for (const trigger of SANDBOX_AMOUNT_TRIGGERS) {
        for (const method of methods) {
          expect(await pay(trigger.amount, method), String(trigger.amount)).to.deep.include({ status: 'FAILED', failure_code: trigger.failureCode, allocation: null })
        }
      }
      expect(await latestBalance()).to.deep.equal(before)
      expect(await pay(5_500, methods[0]!)).to.deep.include({ status: 'SUCCEEDED' })
    })
  })
}
