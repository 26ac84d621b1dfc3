import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '@lendgate/adapters/testing'
import { parseNachaFile } from '@lendgate/nacha'
import { expect } from 'chai'
import { addBankAccount, payFrom, ROUTING_NUMBER } from './support/ach-debits.js'
import { achSettings as settings } from './support/ach-settings.js'
import { bookLoan, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { findLeaks } from './support/secret-scan.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Bank debits on the ACH rails over HTTP (docs/ach.md, decision 140): a payment from a bank
 * account is accepted `PENDING`, an operator cuts the file, the payment is `SUBMITTED` and posted,
 * and the file in the outbox debits the account's real numbers in NACHA's format.
 */

/** An account number no other test uses. */
const ACCOUNT_NUMBER = '59013374620087'


for (const database of testDatabases()) {
  describe(`ACH debits over HTTP on ${database.name}`, () => {
    let scratch: ScratchDatabase
    let server: TestServer
    let off: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let outbox: string
    before(async () => {
      receiver = await startCodeReceiver()
      // A database of its own: the file takes every PENDING payment of the live world.
      scratch = await scratchDatabase(database.kind)
      outbox = join(mkdtempSync(join(tmpdir(), 'lendgate-ach-')), 'outbox')
      const own = { name: database.name, kind: database.kind, open: async () => scratch.database }
      server = await startTestServer(own, { verificationDeliveryUrl: receiver.url, ach: settings(outbox) })
      off = await startTestServer(own, { verificationDeliveryUrl: receiver.url })
    })
    after(async () => {
      await server.stop()
      await off.stop()
      await receiver.close()
      await scratch.drop()
      rmSync(join(outbox, '..'), { recursive: true, force: true })
    })

    const originate = (on: TestServer = server): Promise<Reply> => request(on.url, '/internal/jobs/ach-origination', { method: 'POST', headers: bearer(INTERNAL_TOKEN) })

    /** A borrower's loan with a bank account, and a debit of `amount` from it. */
    const debit = async (borrower: Borrower, loan: BookedLoan, amount: number): Promise<{ readonly paid: Reply; readonly methodId: string }> => {
      const methodId = await addBankAccount(server, borrower, loan, ACCOUNT_NUMBER)
      const paid = await payFrom(server, borrower, loan, methodId, amount)
      return { paid, methodId }
    }

    it('accepts a debit PENDING, cuts it into a NACHA file with the account’s numbers, and posts it SUBMITTED', async () => {
      const borrower = await onboardBorrower(server, receiver)
      const loan = await bookLoan(server, borrower)
      const ledgerBefore = await request(server.url, loan.paths.transactions, { headers: bearer(borrower.key.api_key) })
      const { paid } = await debit(borrower, loan, 50_000)
      expect(paid.status, paid.text).to.equal(201)
      expect(paid.body).to.include({ status: 'PENDING', amount: 50_000, allocation: null })
      // Nothing is posted until the file is cut.
      expect((await request(server.url, loan.paths.transactions, { headers: bearer(borrower.key.api_key) })).body).to.deep.equal(ledgerBefore.body)

      const run = await originate()
      expect(run.status, run.text).to.equal(200)
      expect(run.body).to.deep.include({ outcome: 'completed' })
      const file = run.body.file as Record<string, unknown>
      expect(file).to.include({ status: 'written', entry_count: 1, debit_total: 50_000, entry_hash: 1_100_001 })
      expect(run.text).to.not.include(ACCOUNT_NUMBER)

      // The outbox holds the file, owner-only, in NACHA's format: the account's real numbers, the amount, the trace.
      expect(readdirSync(outbox)).to.deep.equal([file.name])
      const path = join(outbox, file.name as string)
      expect(statSync(path).mode & 0o777).to.equal(0o600)
      const parsed = parseNachaFile(readFileSync(path, 'utf8'))
      if (!parsed.ok) return expect.fail(`the file is refused: ${JSON.stringify(parsed.error)}`)
      expect(parsed.file.header).to.include({ immediateOrigin: '121042882', immediateDestination: '121042882', fileIdModifier: 'A' })
      const [batch, ...others] = parsed.file.batches
      expect(others).to.deep.equal([])
      expect(batch!.header).to.include({ serviceClassCode: 225, secCode: 'CCD', companyName: 'LENDGATE CAPITAL', companyIdentification: '1234567890', companyEntryDescription: 'LOAN PMT' })
      expect(batch!.header.effectiveEntryDate).to.equal((file.effective_entry_date as string).slice(2).replaceAll('-', ''))
      const [entry] = batch!.entries
      expect(entry).to.deep.include({ transactionCode: 27, rdfiIdentification: '01100001', checkDigit: 5, dfiAccountNumber: ACCOUNT_NUMBER, amount: 50_000, name: 'ACME WIDGETS LLC', traceNumber: '121042880000001' })
      expect(entry!.addenda.map((a) => ('paymentRelatedInformation' in a ? a.paymentRelatedInformation : a.typeCode))).to.deep.equal([`PAYMENT ${paid.body.payment_id as string}`])
      expect(parsed.file.control).to.include({ batchCount: 1, entryAddendaCount: 2, totalDebit: 50_000, totalCredit: 0, entryHash: 1_100_001 })

      // The payment is SUBMITTED and posted today, with its event; the ledger has its PAYMENT.
      const payments = await request(server.url, loan.paths.payments, { headers: bearer(borrower.key.api_key) })
      expect((payments.body.data as Record<string, unknown>[]).map((p) => [p.payment_id, p.status, p.amount])).to.deep.equal([[paid.body.payment_id, 'SUBMITTED', 50_000]])
      const ledger = await request(server.url, `${loan.paths.transactions}?limit=100`, { headers: bearer(borrower.key.api_key) })
      expect((ledger.body.data as { type: string; amount: number }[]).filter((t) => t.type === 'PAYMENT').map((t) => t.amount)).to.deep.equal([50_000])
      const events = await request(server.url, `/public/events?limit=100`, { headers: bearer(borrower.key.api_key) })
      expect((events.body.data as { type: string }[]).map((e) => e.type)).to.include('payment.submitted')

      // Asked again: the same run and file within the minute, or the next minute's run, with nothing left to send.
      const again = await originate()
      expect(again.status, again.text).to.equal(200)
      if (again.body.run_key === run.body.run_key) expect([again.body.outcome, (again.body.file as Record<string, unknown>).ach_file_id]).to.deep.equal(['not_due', file.ach_file_id])
      else expect([again.body.outcome, (again.body.file as Record<string, unknown>).status]).to.deep.equal(['completed', 'empty'])
      expect(readdirSync(outbox)).to.have.length(1)
      expect(findLeaks([server.logs.raw()], [ACCOUNT_NUMBER])).to.deep.equal([])
    })

    it('answers 409 when the ACH rails are off, and charges bank accounts on the sandbox rails then', async () => {
      const refused = await originate(off)
      expect(refused.status, refused.text).to.equal(409)
      expect(refused.body).to.include({ error: 'invalid_state', status: 'disabled' })
      const borrower = await onboardBorrower(off, receiver)
      const loan = await bookLoan(off, borrower)
      const method = await request(off.url, loan.paths.paymentMethods, {
        method: 'POST',
        headers: bearer(borrower.key.api_key),
        json: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: ROUTING_NUMBER, account_number: '000123456789' },
      })
      const paid = await request(off.url, loan.paths.payments, {
        method: 'POST',
        headers: { ...bearer(borrower.key.api_key), 'Idempotency-Key': `sandbox-${randomUUID()}` },
        json: { amount: 10_000, currency: 'USD', payment_method_id: method.body.payment_method_id },
      })
      expect(paid.body).to.include({ status: 'SUCCEEDED' })
    })
  })
}
