import { randomUUID } from 'node:crypto'
import { achInboxJobName, achOriginationJobName, achSettlementJobName, bankingCalendar, type PartyId, type PaymentId } from '@lendgate/core'
import { sandboxBank, worldDb } from '@lendgate/adapters'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '@lendgate/adapters/testing'
import { parseNachaFile } from '@lendgate/nacha'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { mintKey, request, type Reply } from './support/client.js'
import { requestsTo, testModeLoan, type TestModeLoan } from './support/test-mode-borrower.js'
import { ccdFileLayoutDifferences } from '../../../packages/nacha/test/nacha-layouts.js'
import { operatorHeaders, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Test mode on the sandbox bank (decision 146, docs/testing.md "The sandbox bank"): a test bank
 * account of one of the sandbox bank's account numbers is debited on the test world's ACH rails.
 * The debit is accepted PENDING, goes out in the test world's file at a cut-off, and the sandbox
 * bank answers it as its rules say: a return reverses it, a notice of change corrects the
 * account, the rest settle. The jobs are run here at the days the test chooses, as the scheduler
 * runs them at theirs.
 */

const calendar = bankingCalendar()

for (const database of testDatabases()) {
  describe(`test mode on the sandbox bank, on ${database.name}`, () => {
    let scratch: ScratchDatabase
    let server: TestServer
    const { call, ok } = requestsTo(() => server)
    let t: TestModeLoan
    const methods: Record<string, string> = {}
    const payments: Record<string, string> = {}
    let effectiveDate: string

    /** Runs the test world's job `name` for `runKey`, as the scheduler would, stopping after `stopAfter` steps: how the run ended. */
    const attemptJob = async (name: string, runKey: string, stopAfter = Infinity) => {
      const job = server.deps.testWorld.ach?.jobs.find((j) => j.name === name) ?? expect.fail(`the test world has no job ${name}`)
      let steps = 0
      return job.attempt({ runKey, holder: `test-${randomUUID()}`, leaseMs: 60_000, stopping: () => steps++ >= stopAfter })()
    }
    const runJob = async (name: string, runKey: string, resumed = false) => {
      expect(await attemptJob(name, runKey)).to.deep.equal({ _tag: 'Right', right: { _tag: 'Completed', resumed } })
    }
    const paymentOf = async (key: string): Promise<Record<string, unknown>> => {
      const list = await ok(t.borrower, 'GET', `${t.loan}/payments?limit=100`, undefined, 200)
      return (list.data as Record<string, unknown>[]).find((p) => p.payment_id === payments[key]) ?? expect.fail(`payment ${key} is not listed`)
    }
    const methodOf = async (key: string): Promise<Record<string, unknown>> => {
      const list = await ok(t.borrower, 'GET', `${t.loan}/payment-methods?limit=100`, undefined, 200)
      return (list.data as Record<string, unknown>[]).find((m) => m.payment_method_id === methods[key]) ?? expect.fail(`method ${key} is not listed`)
    }
    const eventsOf = async (type: string): Promise<Record<string, unknown>[]> => {
      const list = await ok(t.borrower, 'GET', `/public/events?limit=100&type=${type}`, undefined, 200)
      return list.data as Record<string, unknown>[]
    }
    /** The test clock of `c`'s party: its path, and its advance to `to`, waited for until the clock is there. */
    const clockOf = (c: TestModeLoan) => {
      const clockPath = `/public/test-helpers/clocks/${c.clockId!}`
      const advanceTo = async (to: Date) => {
        await ok(c.borrower, 'POST', `${clockPath}/advance`, { frozen_time: to.toISOString() }, 200)
        for (let i = 0; i < 600; i++) {
          const clock = await ok(c.borrower, 'GET', clockPath, undefined, 200)
          if (clock.status === 'ready') return expect(clock.frozen_time).to.equal(to.toISOString())
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        expect.fail(`the clock did not reach ${to.toISOString()}`)
      }
      return { clockPath, advanceTo }
    }
    const pay = (method: string, amount: number): Promise<Reply> => call(t.borrower, 'POST', `${t.loan}/payments`, { amount, currency: 'USD', payment_method_id: methods[method] }, { 'Idempotency-Key': randomUUID() })

    before(async function () {
      this.timeout(120_000)
      // A database of its own: a cut-off takes every PENDING debit of the test world.
      scratch = await scratchDatabase(database.kind)
      // With jobs: a test clock's advance is worked in the background (the scheduled jobs never run in tests; this file runs them itself).
      server = await startTestServer({ name: database.name, kind: database.kind, open: async () => scratch.database }, { runJobs: true })
      t = await testModeLoan(server)
      for (const [key, accountNumber] of [
        ['r01', '000000590001'],
        ['settles', '000000590000'],
        ['c01', '000000590101'],
        ['r10', '000000590010'],
        ['stripe', '000123456789'],
      ] as const) {
        const method = await ok(t.borrower, 'POST', `${t.loan}/payment-methods`, { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: accountNumber }, 201)
        methods[key] = method.payment_method_id as string
      }
    })
    after(async () => {
      await server?.stop()
      await scratch?.drop()
    })

    it("accepts a debit from a sandbox bank account PENDING, and answers any other test account's at once", async () => {
      for (const [key, amount] of [
        ['r01', 10_001],
        ['settles', 10_002],
        ['c01', 10_003],
        ['r10', 10_005],
      ] as const) {
        const paid = await pay(key, amount)
        expect(paid.status, paid.text).to.equal(201)
        expect(paid.body).to.include({ status: 'PENDING', amount, livemode: false })
        expect(paid.body.allocation).to.equal(null)
        payments[key] = paid.body.payment_id as string
      }
      const stripe = await pay('stripe', 10_004)
      expect(stripe.status, stripe.text).to.equal(201)
      expect(stripe.body).to.include({ status: 'SUCCEEDED' })
    })

    it("cuts the test world's file at an operator's cut-off: the debits SUBMITTED and posted", async () => {
      const run = await request(server.url, '/internal/jobs/ach-origination', { method: 'POST', headers: operatorHeaders('test') })
      expect(run.status, run.text).to.equal(200)
      expect(run.body.file).to.include({ status: 'written', entry_count: 4, debit_total: 40_011 })
      effectiveDate = run.body.file.effective_entry_date as string
      expect(calendar.isBankingDay(effectiveDate)).to.equal(true)
      for (const key of ['r01', 'settles', 'c01', 'r10']) expect(await paymentOf(key)).to.include({ status: 'SUBMITTED' })
      const ledger = await ok(t.borrower, 'GET', `${t.loan}/transactions?limit=100`, undefined, 200)
      expect((ledger.data as Record<string, unknown>[]).filter((e) => e.type === 'PAYMENT').map((e) => e.amount).sort()).to.deep.equal([10_001, 10_002, 10_003, 10_004, 10_005])
      expect((await eventsOf('payment.submitted')).map((e) => (e.data as Record<string, unknown>).payment_id).sort()).to.deep.equal([payments.r01, payments.settles, payments.c01, payments.r10].sort())
      // The file is the test world's alone: kept in its mailbox, none in the live world's records.
      const { db } = scratch.database
      expect((await worldDb(db, 'test').selectFrom('ach_sandbox_files').select('name').execute()).map((f) => f.name)).to.deep.equal([run.body.file.name])
      expect(await db.selectFrom('ach_files').select('id').execute()).to.deep.equal([])
      expect(await db.selectFrom('ach_sandbox_files').select('name').execute()).to.deep.equal([])
    })

    it('changes nothing before the bank answers: the inbox on the effective day holds nothing', async () => {
      const before = await ok(t.borrower, 'GET', `${t.loan}/payments?limit=100`, undefined, 200)
      await runJob(achInboxJobName('test'), `${effectiveDate}T08:00`)
      expect(await ok(t.borrower, 'GET', `${t.loan}/payments?limit=100`, undefined, 200)).to.deep.equal(before)
    })

    it("applies the bank's R01 and notice of change two banking days on, and settles the rest that evening", async () => {
      const day = calendar.addBankingDays(effectiveDate, 2)
      await runJob(achInboxJobName('test'), `${day}T08:00`)
      expect(await paymentOf('r01')).to.include({ status: 'RETURNED', return_code: 'R01' })
      const ledger = (await ok(t.borrower, 'GET', `${t.loan}/transactions?limit=100`, undefined, 200)).data as Record<string, unknown>[]
      expect(ledger.filter((e) => e.type === 'REVERSAL').map((e) => [e.amount, e.payment_id])).to.deep.equal([[10_001, payments.r01]])
      expect((await eventsOf('payment.returned')).map((e) => (e.data as Record<string, unknown>).payment_id)).to.deep.equal([payments.r01])
      expect(await methodOf('c01')).to.include({ status: 'active', last4: '0000' })
      expect(await methodOf('r01')).to.include({ status: 'active' })

      await runJob(achSettlementJobName('test'), `${day}T21:00`)
      expect(await paymentOf('settles')).to.include({ status: 'SETTLED' })
      expect(await paymentOf('c01')).to.include({ status: 'SETTLED' })
      expect(await paymentOf('r10')).to.include({ status: 'SETTLED' })
      expect(await paymentOf('r01')).to.include({ status: 'RETURNED' })
      expect((await eventsOf('payment.settled')).map((e) => (e.data as Record<string, unknown>).payment_id).sort()).to.deep.equal([payments.settles, payments.c01, payments.r10].sort())
    })

    it('applies the late R10 ten banking days on, to the debit settled since', async () => {
      await runJob(achInboxJobName('test'), `${calendar.addBankingDays(effectiveDate, 9)}T08:00`)
      expect(await paymentOf('r10')).to.include({ status: 'SETTLED' })
      await runJob(achInboxJobName('test'), `${calendar.addBankingDays(effectiveDate, 10)}T08:00`)
      expect(await paymentOf('r10')).to.include({ status: 'RETURNED', return_code: 'R10' })
      // An unauthorized return forbids another debit from the account.
      expect(await methodOf('r10')).to.include({ status: 'blocked' })
    })

    it('returns a settled debit through the test helper as its bank would: RETURNED, and an R02 blocks its account', async () => {
      const returned = await ok(t.borrower, 'POST', `/public/test-helpers/parties/${t.partyId}/loans/${t.loanId}/payments/${payments.settles}/return`, { return_code: 'R02' }, 200)
      expect(returned).to.include({ payment_id: payments.settles, status: 'RETURNED', return_code: 'R02' })
      expect(await methodOf('settles')).to.include({ status: 'blocked' })
      const refused = await pay('settles', 5_000)
      expect([refused.status, refused.body.error], refused.text).to.deep.equal([409, 'invalid_state'])
      const again = await call(t.borrower, 'POST', `/public/test-helpers/parties/${t.partyId}/loans/${t.loanId}/payments/${payments.settles}/return`, {})
      expect([again.status, again.body.error], again.text).to.deep.equal([409, 'invalid_state'])
    })

    it("moves a clocked party's debits with its clock: cut, returned after two banking days, the installment past due again; the rest settled", async function () {
      this.timeout(120_000)
      const c = await testModeLoan(server, { clock: true })
      const { clockPath, advanceTo } = clockOf(c)
      const frozen = new Date((await ok(c.borrower, 'GET', clockPath, undefined, 200)).frozen_time as string)
      const [first] = (await ok(c.borrower, 'GET', `${c.loan}/schedule?limit=1`, undefined, 200)).data as Record<string, unknown>[]
      const dueDate = first!.due_date as string
      const daysTo = (date: string) => Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${frozen.toISOString().slice(0, 10)}T00:00:00Z`)) / 86_400_000)
      // Five days before the first installment falls due, the borrower pays it from an R01 account, and 100.00 from one that settles.
      await advanceTo(new Date(frozen.getTime() + (daysTo(dueDate) - 5) * 86_400_000))
      const account = async (accountNumber: string) => (await ok(c.borrower, 'POST', `${c.loan}/payment-methods`, { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: accountNumber }, 201)).payment_method_id as string
      const payClocked = async (methodId: string, amount: number) => ok(c.borrower, 'POST', `${c.loan}/payments`, { amount, currency: 'USD', payment_method_id: methodId }, 201, { 'Idempotency-Key': randomUUID() })
      const installment = await payClocked(await account('000000590001'), first!.total_due as number)
      const settling = await payClocked(await account('000000590000'), 10_000)
      for (const p of [installment, settling]) expect(p).to.include({ status: 'PENDING' })

      await advanceTo(new Date(frozen.getTime() + (daysTo(dueDate) + 12) * 86_400_000))
      const listed = (await ok(c.borrower, 'GET', `${c.loan}/payments?limit=100`, undefined, 200)).data as Record<string, unknown>[]
      const find = (id: unknown) => listed.find((p) => p.payment_id === id) ?? expect.fail(`payment ${String(id)} is not listed`)
      expect(find(installment.payment_id)).to.include({ status: 'RETURNED', return_code: 'R01' })
      expect(find(settling.payment_id)).to.include({ status: 'SETTLED' })
      // What the return undid is owed again, and the installment is past due.
      const loan = await ok(c.borrower, 'GET', c.loan, undefined, 200)
      expect(loan.days_past_due).to.be.greaterThan(0)
      expect(loan.delinquency_bucket).to.equal('DPD_1_30')
      const types = (await ok(c.borrower, 'GET', `/public/events?limit=100`, undefined, 200)).data.map((e: Record<string, unknown>) => e.type) as string[]
      for (const type of ['payment.submitted', 'payment.settled', 'payment.returned', 'loan.delinquency_changed']) expect(types, type).to.include(type)
      // Both went in the party's own files, dated in its clock's time: none in the world's.
      const test = worldDb(scratch.database.db, 'test')
      const files = await test
        .selectFrom('ach_entries')
        .innerJoin('ach_files', 'ach_files.id', 'ach_entries.file_id')
        .select(['ach_files.party_id', 'ach_files.creation_date', 'ach_entries.status'])
        .where('ach_entries.payment_id', 'in', [installment.payment_id, settling.payment_id] as PaymentId[])
        .execute()
      expect(files.map((f) => [f.party_id, f.status])).to.have.deep.members([
        [c.partyId, 'returned'],
        [c.partyId, 'settled'],
      ])
      for (const f of files) expect(f.creation_date > frozen.toISOString().slice(0, 10)).to.equal(true)
    })

    it("debits a clocked loan's installment by autopay in the party's NACHA file, laid out as the fixtures; the sandbox bank returns it and the loan is past due again", async function () {
      this.timeout(120_000)
      const c = await testModeLoan(server, { clock: true })
      const { clockPath, advanceTo } = clockOf(c)
      // The loan's first method is its default: an account the sandbox bank returns R01.
      const method = await ok(c.borrower, 'POST', `${c.loan}/payment-methods`, { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: '000000590001' }, 201)
      expect(method.is_default).to.equal(true)
      expect(await ok(c.borrower, 'PUT', `${c.loan}/autopay`, { enabled: true }, 200)).to.include({ loan_id: c.loanId, enabled: true })
      const frozen = new Date((await ok(c.borrower, 'GET', clockPath, undefined, 200)).frozen_time as string)
      const [first] = (await ok(c.borrower, 'GET', `${c.loan}/schedule?limit=1`, undefined, 200)).data as Record<string, unknown>[]
      const dueDate = first!.due_date as string
      const daysTo = (date: string) => Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${frozen.toISOString().slice(0, 10)}T00:00:00Z`)) / 86_400_000)

      await advanceTo(new Date(frozen.getTime() + (daysTo(dueDate) + 12) * 86_400_000))
      const listed = (await ok(c.borrower, 'GET', `${c.loan}/payments?limit=100`, undefined, 200)).data as Record<string, unknown>[]
      expect(listed.map((p) => [p.payment_method_id, p.amount, p.status, p.return_code])).to.deep.equal([[method.payment_method_id, first!.total_due, 'RETURNED', 'R01']])
      const [debit] = listed
      const loan = await ok(c.borrower, 'GET', c.loan, undefined, 200)
      expect([loan.delinquency_bucket, loan.days_past_due > 0]).to.deep.equal(['DPD_1_30', true])
      const types = (await ok(c.borrower, 'GET', `/public/events?limit=100`, undefined, 200)).data
        .filter((e: Record<string, unknown>) => (e.data as Record<string, unknown>).payment_id === debit!.payment_id)
        .map((e: Record<string, unknown>) => e.type) as string[]
      expect(types).to.have.members(['payment.submitted', 'payment.returned'])

      // The file the bank received: the party's own, dated before the due date, effective on or after it, laid out as the fixtures.
      const test = worldDb(scratch.database.db, 'test')
      const [sent, ...others] = await test.selectFrom('ach_sandbox_files').select(['name', 'bytes']).where('party_id', '=', c.partyId as PartyId).where('name', 'not like', '%.returns.ach').execute()
      expect(others).to.deep.equal([])
      const lines = new TextDecoder().decode(sent!.bytes).split('\n').slice(0, -1)
      expect(ccdFileLayoutDifferences(lines)).to.deep.equal([])
      const entries = lines.filter((line) => line.startsWith('6'))
      expect(entries.map((line) => Number(line.slice(29, 39)))).to.deep.equal([first!.total_due])
      expect(lines.filter((line) => line.startsWith('7')).map((line) => line.slice(3, 83).trim())).to.deep.equal([`PAYMENT ${debit!.payment_id as string}`])
      const [fileDate, effective] = [lines[0]!.slice(23, 29), lines[1]!.slice(69, 75)].map((yymmdd) => `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4)}`)
      expect([fileDate! < dueDate, effective! >= dueDate, calendar.nextBankingDay(fileDate!) === effective]).to.deep.equal([true, true, true])
      // Its control totals and entry hash are those of its entries: the NACHA reader takes it whole.
      const parsed = parseNachaFile(new TextDecoder().decode(sent!.bytes))
      expect(parsed.ok && parsed.file.batches.flatMap((batch) => batch.entries.map((entry) => entry.amount))).to.deep.equal([first!.total_due])

      // The bank's return file (as the sandbox bank writes it again from the file it received), sent again by an operator, changes nothing.
      const answers = sandboxBank({ calendar }).answersBy({ name: sent!.name, text: new TextDecoder().decode(sent!.bytes) }, '2099-12-31')
      const [answer, ...moreAnswers] = E.isRight(answers) ? answers.right : expect.fail('the sandbox bank cannot read the file it answered')
      expect(moreAnswers).to.deep.equal([])
      const before = await ok(c.borrower, 'GET', `${c.loan}/transactions?limit=100`, undefined, 200)
      const again = await request(server.url, '/internal/ach/inbound-files', { method: 'POST', headers: { ...operatorHeaders('test'), 'Content-Type': 'text/plain' }, rawBody: answer!.text })
      expect(again.status, again.text).to.equal(200)
      // Answered as the file already ingested by the clock's advance: its return applied once, to this debit.
      expect([again.body.status, (again.body.returns as Record<string, unknown>[]).map((r) => [r.payment_id, r.return_code, r.outcome])]).to.deep.equal(['ingested', [[debit!.payment_id, 'R01', 'applied']]])
      expect(await ok(c.borrower, 'GET', `${c.loan}/transactions?limit=100`, undefined, 200)).to.deep.equal(before)
      expect(((await ok(c.borrower, 'GET', `${c.loan}/payments?limit=100`, undefined, 200)).data as Record<string, unknown>[]).map((p) => p.status)).to.deep.equal(['RETURNED'])
    })

    it("wipes the partner's test data with its ACH records, and the bank's answers still to come then match nothing", async () => {
      // One more debit, to be answered after the wipe: R03 (by its amount) the banking day after its file's.
      const late = await pay('c01', 5503)
      expect(late.body).to.include({ status: 'PENDING' })
      // A cut-off at the end of today, New York time (an operator's cut-off again this minute would answer the same file).
      const cutOn = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date())
      const admin = await mintKey(server.url, { party_id: t.partner.party_id, client_name: t.partner.client_name, environment: 'test' })
      // The run stopped with the debit claimed into its file: while the file is being made, the wipe refuses and deletes nothing.
      // Its steps: the file opened, its autopay debits taken, the claim.
      expect(await attemptJob(achOriginationJobName('test'), `${cutOn}T23:59`, 3)).to.deep.equal({ _tag: 'Right', right: { _tag: 'Stopped' } })
      const refused = await call(admin, 'DELETE', '/public/test-helpers/data')
      expect([refused.status, refused.body.error, refused.body.status], refused.text).to.deep.equal([409, 'invalid_state', 'ach_file_in_progress'])
      expect((await call(t.borrower, 'GET', t.loan)).status).to.equal(200)
      await runJob(achOriginationJobName('test'), `${cutOn}T23:59`, true)
      expect(await ok(t.borrower, 'GET', `${t.loan}/payments?limit=100`, undefined, 200).then((l) => (l.data as Record<string, unknown>[]).find((p) => p.payment_id === late.body.payment_id))).to.include({ status: 'SUBMITTED' })
      const wiped = await call(admin, 'DELETE', '/public/test-helpers/data')
      expect(wiped.status, wiped.text).to.equal(200)
      expect(wiped.body.deleted).to.include({ loans: 1, payments: 6 })
      const test = worldDb(scratch.database.db, 'test')
      const lateId = late.body.payment_id as string
      expect(await test.selectFrom('ach_entries').select('payment_id').where('payment_id', 'in', [...Object.values(payments), lateId] as PaymentId[]).execute()).to.deep.equal([])
      // Its answer is due the banking day after its file's E; the inbox's runs go forward only, so the next is after the R10's.
      expect(calendar.addBankingDays(calendar.nextBankingDay(cutOn), 1) <= calendar.addBankingDays(effectiveDate, 11)).to.equal(true)
      await runJob(achInboxJobName('test'), `${calendar.addBankingDays(effectiveDate, 11)}T08:00`)
      expect((await call(t.borrower, 'GET', t.loan)).status).to.equal(404)
      // The bank's R03 for the wiped debit came, matched nothing, and was recorded so.
      const unmatched = await test.selectFrom('ach_returns').select(['return_code', 'amount', 'outcome', 'payment_id']).where('amount', '=', 5503).execute()
      expect(unmatched).to.deep.equal([{ return_code: 'R03', amount: 5503, outcome: 'unmatched', payment_id: null }])
    })
  })
}
