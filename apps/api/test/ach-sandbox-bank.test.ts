import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bankingCalendar } from '@lendgate/core'
import { sandboxBank, type BankFile } from '@lendgate/adapters'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '@lendgate/adapters/testing'
import { parseNachaFile } from '@lendgate/nacha'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { addBankAccount, payFrom, type Send } from './support/ach-debits.js'
import { achSettings as settings } from './support/ach-settings.js'
import { bookLoan, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { findLeaks } from './support/secret-scan.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * The whole ACH cycle offline (docs/ach.md "The sandbox bank"): debits from the sandbox bank's
 * accounts go out in our NACHA file, the sandbox bank answers that file with the return and
 * notification-of-change files its rules name, and the operator's route ingests them, as it
 * would a real bank's: the returned payments are reversed, a closed account is blocked, a
 * corrected one changes its numbers, and the settling debit stays posted.
 */

/** Days are real here: the bank is asked for every answer due within this many days of today. */
const HORIZON_DAYS = 30

for (const database of testDatabases()) {
  describe(`the sandbox bank answering our ACH file on ${database.name}`, () => {
    let scratch: ScratchDatabase
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let outbox: string
    const replies: { readonly what: string; readonly reply: Reply }[] = []
    const send: Send = async (on, path, options = {}) => {
      const reply = await request(on.url, path, options)
      replies.push({ what: `${options.method ?? 'GET'} ${path}`, reply })
      return reply
    }

    type Debit = { readonly borrower: Borrower; readonly loan: BookedLoan; readonly methodId: string; readonly paymentId: string; readonly amount: number }
    const debits: Record<string, Debit> = {}
    let answers: readonly BankFile[] = []
    const ingested: Reply[] = []

    const debit = async (accountNumber: string, amount: number): Promise<Debit> => {
      const borrower = await onboardBorrower(server, receiver)
      const loan = await bookLoan(server, borrower)
      const methodId = await addBankAccount(server, borrower, loan, accountNumber, send)
      const paid = await payFrom(server, borrower, loan, methodId, amount, send)
      expect(paid.status, paid.text).to.equal(201)
      expect(paid.body).to.include({ status: 'PENDING' })
      return { borrower, loan, methodId, paymentId: paid.body.payment_id as string, amount }
    }
    /** The item of the loan's list `path` whose `field` is `id`. */
    const listed = async (d: Debit, path: string, field: string, id: string): Promise<Record<string, unknown>> => {
      const reply = await send(server, `${path}?limit=100`, { headers: bearer(d.borrower.key.api_key) })
      expect(reply.status, reply.text).to.equal(200)
      return (reply.body.data as Record<string, unknown>[]).find((item) => item[field] === id) ?? expect.fail(`${id} is not listed at ${path}`)
    }
    const paymentOf = (d: Debit) => listed(d, d.loan.paths.payments, 'payment_id', d.paymentId)
    const methodOf = (d: Debit) => listed(d, d.loan.paths.paymentMethods, 'payment_method_id', d.methodId)
    const ledgerOf = async (d: Debit): Promise<Record<string, unknown>[]> => {
      const reply = await send(server, `${d.loan.paths.transactions}?limit=100`, { headers: bearer(d.borrower.key.api_key) })
      expect(reply.status, reply.text).to.equal(200)
      return reply.body.data as Record<string, unknown>[]
    }

    before(async function () {
      this.timeout(120_000)
      receiver = await startCodeReceiver()
      // A database of its own: the file takes every PENDING payment of the live world.
      scratch = await scratchDatabase(database.kind)
      outbox = join(mkdtempSync(join(tmpdir(), 'lendgate-sandbox-bank-')), 'outbox')
      server = await startTestServer({ name: database.name, kind: database.kind, open: async () => scratch.database }, { verificationDeliveryUrl: receiver.url, ach: settings(outbox) })
      debits.settles = await debit('000000590000', 40_000)
      debits.r01 = await debit('000000590001', 41_000)
      debits.r02 = await debit('000000590002', 42_000)
      debits.c01 = await debit('000000590101', 43_000)
      debits.byAmount = await debit('000000590000', 5503)

      const run = await send(server, '/internal/jobs/ach-origination', { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
      expect(run.status, run.text).to.equal(200)
      expect(run.body.file).to.include({ status: 'written', entry_count: 5 })
      const [name, ...others] = readdirSync(outbox)
      expect(others).to.deep.equal([])
      const horizon = new Date(Date.now() + HORIZON_DAYS * 86_400_000).toISOString().slice(0, 10)
      const answered = sandboxBank({ calendar: bankingCalendar() }).answersBy({ name: name!, text: readFileSync(join(outbox, name!), 'latin1') }, horizon)
      if (E.isLeft(answered)) return expect.fail(JSON.stringify(answered.left))
      answers = answered.right
      for (const file of answers) {
        const reply = await send(server, '/internal/ach/inbound-files', { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain' }, rawBody: file.text })
        expect(reply.status, reply.text).to.equal(200)
        ingested.push(reply)
      }
    })
    after(async () => {
      await server?.stop()
      await receiver?.close()
      await scratch?.drop()
      if (outbox !== undefined) rmSync(join(outbox, '..'), { recursive: true, force: true })
    })

    it('answers in real bank files, one per banking day, every entry matched to our debits', () => {
      // R03 (by amount) after one banking day; R01, R02 and the C01 after two.
      expect(answers).to.have.length(2)
      for (const file of answers) expect(parseNachaFile(file.text).ok).to.equal(true)
      const returns = ingested.flatMap((r) => r.body.returns as Record<string, unknown>[])
      const notices = ingested.flatMap((r) => r.body.notices as Record<string, unknown>[])
      expect(returns.map((r) => [r.payment_id, r.return_code, r.outcome]).sort()).to.deep.equal(
        [
          [debits.byAmount!.paymentId, 'R03', 'applied'],
          [debits.r01!.paymentId, 'R01', 'applied'],
          [debits.r02!.paymentId, 'R02', 'applied'],
        ].sort(),
      )
      expect(notices.map((n) => [n.payment_method_id, n.change_code, n.outcome])).to.deep.equal([[debits.c01!.methodId, 'C01', 'applied']])
      expect(ingested.flatMap((r) => r.body.others as unknown[])).to.deep.equal([])
    })

    it('reverses each returned payment, and blocks the accounts R02 and R03 name', async () => {
      for (const [key, code] of [['r01', 'R01'], ['r02', 'R02'], ['byAmount', 'R03']] as const) {
        const d = debits[key]!
        expect(await paymentOf(d)).to.include({ status: 'RETURNED', return_code: code })
        const ledger = await ledgerOf(d)
        const payment = ledger.find((t) => t.type === 'PAYMENT' && t.payment_id === d.paymentId) ?? expect.fail(`no PAYMENT for ${key}`)
        expect(ledger.filter((t) => t.type === 'REVERSAL').map((t) => [t.amount, t.reverses_transaction_id])).to.deep.equal([[d.amount, payment.transaction_id]])
      }
      expect(await methodOf(debits.r02!)).to.include({ status: 'blocked' })
      expect(await methodOf(debits.r01!)).to.include({ status: 'active' })
      // R03 came by the amount: the account (one that settles) was never at fault, and R03 blocks it all the same.
      expect(await methodOf(debits.byAmount!)).to.include({ status: 'blocked' })
    })

    it('corrects the account a notice names, and keeps its payment posted', async () => {
      expect(await methodOf(debits.c01!)).to.include({ status: 'active', last4: '0000' })
      expect(await paymentOf(debits.c01!)).to.include({ status: 'SUBMITTED' })
    })

    it('leaves the settling debit posted, with no answer', async () => {
      expect(await paymentOf(debits.settles!)).to.include({ status: 'SUBMITTED', return_code: null })
      expect((await ledgerOf(debits.settles!)).filter((t) => t.type === 'REVERSAL')).to.deep.equal([])
    })

    it('changes nothing when the bank sends its files again', async () => {
      const before = await Promise.all(Object.values(debits).map(async (d) => [await paymentOf(d), await methodOf(d), await ledgerOf(d)]))
      for (const file of answers) {
        const again = await send(server, '/internal/ach/inbound-files', { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain' }, rawBody: file.text })
        expect(again.status, again.text).to.equal(200)
        expect(again.body).to.deep.equal(ingested[answers.indexOf(file)]!.body)
      }
      expect(await Promise.all(Object.values(debits).map(async (d) => [await paymentOf(d), await methodOf(d), await ledgerOf(d)]))).to.deep.equal(before)
    })

    it('answered no request with a 5xx, and showed no account number', () => {
      for (const { what, reply } of replies) expect(reply.status, `${what}: ${reply.text}`).to.be.below(500)
      const leaks = findLeaks(replies.map((r) => r.reply.text), ['000000590001', '000000590002', '000000590101'])
      expect(leaks).to.deep.equal([])
    })
  })
}
