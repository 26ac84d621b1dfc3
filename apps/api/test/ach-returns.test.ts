import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '@lendgate/adapters/testing'
import { parseNachaFile, type EntryDetail } from '@lendgate/nacha'
import { expect } from 'chai'
import { addBankAccount, payFrom, ROUTING_NUMBER } from './support/ach-debits.js'
import { bankFile, ODFI, ODFI_CHECK_DIGIT, RDFI, returnFile } from './support/ach-files.js'
import { achSettings as settings } from './support/ach-settings.js'
import { bookLoan, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply, type RequestOptions } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { expectInvalid, expectInvalidState } from './support/expectations.js'
import { findLeaks } from './support/secret-scan.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Bank returns over HTTP (docs/ach.md "Returns and notices of change"): a debit cut into a NACHA
 * file comes back in a return file the operator posts to `POST /internal/ach/inbound-files`; the
 * return is matched by its original trace number, the payment becomes `RETURNED` with its code and
 * is undone in the ledger, codes that forbid another debit block the method, and a file sent twice
 * changes nothing the second time.
 */

/** An account number no other test uses. */
const ACCOUNT_NUMBER = '59013374620188'

const INBOUND = '/internal/ach/inbound-files'


/** `text` with the character at 1-based position `position` of line `no` (1-based) replaced by another digit. */
const corruptDigit = (text: string, no: number, position: number): string => {
  const lines = text.split('\n')
  const line = lines[no - 1] ?? expect.fail(`no line ${no}`)
  const c = line.charAt(position - 1)
  expect(c, `line ${no} position ${position}`).to.match(/[0-9]/)
  lines[no - 1] = line.slice(0, position - 1) + String((Number(c) + 1) % 10) + line.slice(position)
  return lines.join('\n')
}

/** The file as the route takes it: `text/plain`. */
const FILE_TYPE = { 'Content-Type': 'text/plain' } as const

for (const database of testDatabases()) {
  describe(`ACH return files over HTTP on ${database.name}`, () => {
    let scratch: ScratchDatabase
    let server: TestServer
    let off: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let outbox: string
    /** Every answer of the suite: none may be a 5xx or show the account number. */
    const replies: { readonly what: string; readonly reply: Reply }[] = []

    const send = async (on: TestServer, path: string, options: RequestOptions = {}): Promise<Reply> => {
      const reply = await request(on.url, path, options)
      replies.push({ what: `${options.method ?? 'GET'} ${path}`, reply })
      return reply
    }
    const ingest = (text: string, on: TestServer = server, headers: Record<string, string> = bearer(INTERNAL_TOKEN)): Promise<Reply> =>
      send(on, INBOUND, { method: 'POST', headers: { ...headers, ...FILE_TYPE }, rawBody: text })
    const inboundFile = (id: string, on: TestServer = server): Promise<Reply> => send(on, `${INBOUND}/${id}`, { headers: bearer(INTERNAL_TOKEN) })

    /** A borrower's booked loan, its bank account, and a debit from it accepted PENDING. */
    type Debit = { readonly borrower: Borrower; readonly loan: BookedLoan; readonly methodId: string; readonly paymentId: string; readonly amount: number; trace: string }
    const debit = async (amount: number): Promise<Debit> => {
      const borrower = await onboardBorrower(server, receiver)
      const loan = await bookLoan(server, borrower)
      const methodId = await addBankAccount(server, borrower, loan, ACCOUNT_NUMBER, send)
      const paid = await payFrom(server, borrower, loan, methodId, amount, send)
      expect(paid.status, paid.text).to.equal(201)
      expect(paid.body).to.include({ status: 'PENDING', amount })
      return { borrower, loan, methodId, paymentId: paid.body.payment_id as string, amount, trace: '' }
    }

    /** What a borrower's loan looks like to the partner and the operator: compared before and after what must change nothing. */
    const stateOf = async (d: Debit): Promise<Record<string, unknown>> => {
      const asBorrower = { headers: bearer(d.borrower.key.api_key) }
      const [payments, ledger, methods, balance, events, audit] = await Promise.all([
        send(server, `${d.loan.paths.payments}?limit=100`, asBorrower),
        send(server, `${d.loan.paths.transactions}?limit=100`, asBorrower),
        send(server, `${d.loan.paths.paymentMethods}?limit=100`, asBorrower),
        send(server, d.loan.paths.latestBalance, asBorrower),
        send(server, '/public/events?limit=100', asBorrower),
        send(server, `/internal/audit-events?party_id=${d.borrower.partyId}&limit=100`, { headers: bearer(INTERNAL_TOKEN) }),
      ])
      for (const reply of [payments, ledger, methods, balance, events, audit]) expect(reply.status, reply.text).to.equal(200)
      return { payments: payments.body, ledger: ledger.body, methods: methods.body, balance: balance.body, events: events.body, audit: audit.body }
    }
    const paymentOf = async (d: Debit): Promise<Record<string, unknown>> => {
      const list = await send(server, `${d.loan.paths.payments}?limit=100`, { headers: bearer(d.borrower.key.api_key) })
      expect(list.status, list.text).to.equal(200)
      return (list.body.data as Record<string, unknown>[]).find((p) => p.payment_id === d.paymentId) ?? expect.fail(`payment ${d.paymentId} is not listed`)
    }
    const ledgerOf = async (d: Debit): Promise<Record<string, unknown>[]> => {
      const ledger = await send(server, `${d.loan.paths.transactions}?limit=100`, { headers: bearer(d.borrower.key.api_key) })
      expect(ledger.status, ledger.text).to.equal(200)
      return ledger.body.data as Record<string, unknown>[]
    }

    // Three debits cut into one file (one origination per minute): R01 (a), R02 (b), and one only refused files name (c).
    let a: Debit
    let b: Debit
    let c: Debit

    before(async function () {
      this.timeout(120_000)
      receiver = await startCodeReceiver()
      // A database of its own: the file takes every PENDING payment of the live world.
      scratch = await scratchDatabase(database.kind)
      outbox = join(mkdtempSync(join(tmpdir(), 'lendgate-ach-returns-')), 'outbox')
      const own = { name: database.name, kind: database.kind, open: async () => scratch.database }
      server = await startTestServer(own, { verificationDeliveryUrl: receiver.url, ach: settings(outbox) })
      off = await startTestServer(own, { verificationDeliveryUrl: receiver.url })

      a = await debit(50_000)
      b = await debit(30_000)
      c = await debit(20_000)
      const run = await send(server, '/internal/jobs/ach-origination', { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
      expect(run.status, run.text).to.equal(200)
      expect(run.body).to.deep.include({ outcome: 'completed' })
      const file = run.body.file as Record<string, unknown>
      expect(file).to.include({ status: 'written', entry_count: 3, debit_total: 100_000 })

      // Our file's entries, by the payment each names in its addenda: their trace numbers.
      expect(readdirSync(outbox)).to.deep.equal([file.name])
      const parsed = parseNachaFile(readFileSync(join(outbox, file.name as string), 'utf8'))
      if (!parsed.ok) return expect.fail(`our own file is refused: ${JSON.stringify(parsed.error)}`)
      const traces = new Map<string, string>()
      for (const batch of parsed.file.batches) {
        for (const entry of batch.entries) {
          expect(entry).to.include({ transactionCode: 27, rdfiIdentification: RDFI, dfiAccountNumber: ACCOUNT_NUMBER })
          for (const addenda of entry.addenda) if ('paymentRelatedInformation' in addenda) traces.set(addenda.paymentRelatedInformation.replace(/^PAYMENT /, ''), entry.traceNumber)
        }
      }
      for (const d of [a, b, c]) {
        d.trace = traces.get(d.paymentId) ?? expect.fail(`no entry names payment ${d.paymentId}`)
        expect(d.trace).to.match(new RegExp(`^${ODFI}[0-9]{7}$`))
        expect(await paymentOf(d)).to.include({ status: 'SUBMITTED', amount: d.amount, return_code: null })
      }
      expect(new Set([a.trace, b.trace, c.trace]).size).to.equal(3)
    })
    after(async () => {
      await server?.stop()
      await off?.stop()
      await receiver?.close()
      await scratch?.drop()
      if (outbox !== undefined) rmSync(join(outbox, '..'), { recursive: true, force: true })
    })

    /** The first ingestion of the R01 file of debit `a`, for the tests that follow it. */
    let r01: { readonly text: string; readonly reply: Reply }

    it('applies an R01 return: the debit RETURNED with its code, a REVERSAL in the ledger, payment.returned to the partner and in the audit log', async () => {
      const paymentEntry = (await ledgerOf(a)).find((t) => t.type === 'PAYMENT' && t.payment_id === a.paymentId) ?? expect.fail('no PAYMENT entry')
      expect(paymentEntry.amount).to.equal(50_000)
      const text = returnFile([{ originalTrace: a.trace, amount: 50_000, code: 'R01' }], { account: ACCOUNT_NUMBER })
      expect(parseNachaFile(text).ok, 'the return file parses').to.equal(true)

      const reply = await ingest(text)
      expect(reply.status, reply.text).to.equal(200)
      r01 = { text, reply }
      expect(Object.keys(reply.body).sort()).to.deep.equal(['inbound_file_id', 'livemode', 'notices', 'others', 'received_at', 'returns', 'sha256', 'status'])
      expect(reply.body.livemode).to.equal(true)
      expect(reply.body.inbound_file_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(reply.body).to.include({ status: 'ingested', sha256: createHash('sha256').update(text, 'latin1').digest('hex') })
      expect(Date.parse(reply.body.received_at as string)).to.be.closeTo(Date.now(), 120_000)
      expect(reply.body.returns).to.deep.equal([{ record: 3, original_trace: a.trace, return_code: 'R01', amount: 50_000, payment_id: a.paymentId, outcome: 'applied', late: false }])
      expect(reply.body.others).to.deep.equal([])
      expect(reply.body.notices).to.deep.equal([])

      // The partner's payment list: RETURNED with its code.
      expect(await paymentOf(a)).to.include({ payment_id: a.paymentId, status: 'RETURNED', return_code: 'R01', amount: 50_000 })
      // The ledger: a REVERSAL of the PAYMENT's 50,000.
      const reversals = (await ledgerOf(a)).filter((t) => t.type === 'REVERSAL')
      expect(reversals.map((t) => [t.amount, t.payment_id, t.reverses_transaction_id])).to.deep.equal([[50_000, a.paymentId, paymentEntry.transaction_id]])
      // The partner's events: payment.returned, from SUBMITTED.
      const events = await send(server, '/public/events?limit=100', { headers: bearer(a.borrower.key.api_key) })
      expect(events.status, events.text).to.equal(200)
      const returned = (events.body.data as { type: string; data: Record<string, unknown>; previous_attributes?: unknown }[]).filter((e) => e.type === 'payment.returned')
      expect(returned).to.have.length(1)
      expect(returned[0]!.data).to.include({ payment_id: a.paymentId, status: 'RETURNED', return_code: 'R01', amount: 50_000 })
      expect(returned[0]!.previous_attributes).to.deep.equal({ status: 'SUBMITTED' })
      // The audit log: payment.returned, by the operator, naming the file and the reversal.
      const audit = await send(server, `/internal/audit-events?action=payment.returned&party_id=${a.borrower.partyId}&limit=100`, { headers: bearer(INTERNAL_TOKEN) })
      expect(audit.status, audit.text).to.equal(200)
      const auditEvents = audit.body.data as Record<string, unknown>[]
      expect(auditEvents).to.have.length(1)
      expect(auditEvents[0]).to.deep.include({
        action: 'payment.returned',
        actor: { type: 'operator' },
        subject: { type: 'payment', id: a.paymentId },
        api_client_id: a.borrower.key.client_id,
        party_id: a.borrower.partyId,
        details: { loan_id: a.loan.loanId, amount: 50_000, currency: 'USD', return_code: 'R01', inbound_file_id: reply.body.inbound_file_id, reversal_transaction_id: reversals[0]!.transaction_id },
      })
      // R01 does not block the account.
      const methods = await send(server, a.loan.paths.paymentMethods, { headers: bearer(a.borrower.key.api_key) })
      expect((methods.body.data as Record<string, unknown>[]).map((m) => [m.payment_method_id, m.status])).to.deep.equal([[a.methodId, 'active']])

      // The file as recorded answers the same body.
      const read = await inboundFile(reply.body.inbound_file_id as string)
      expect(read.status, read.text).to.equal(200)
      expect(read.body).to.deep.equal(reply.body)
    })

    it('answers a file sent again with its record as it was, changing nothing; the same return in another file is a duplicate', async () => {
      if (r01 === undefined) return expect.fail('the R01 file was not ingested')
      const before = await stateOf(a)
      const again = await ingest(r01.text)
      expect(again.status, again.text).to.equal(200)
      expect(again.body).to.deep.equal(r01.reply.body)
      expect(await stateOf(a)).to.deep.equal(before)
      // Sent gzipped (Content-Encoding), it is the same file.
      const gzipped = await send(server, INBOUND, { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }, rawBody: new Uint8Array(gzipSync(Buffer.from(r01.text, 'latin1'))) })
      expect(gzipped.status, gzipped.text).to.equal(200)
      expect(gzipped.body).to.deep.equal(r01.reply.body)
      expect(await stateOf(a)).to.deep.equal(before)

      // Another file (another modifier: another SHA-256) returning the same entry: reported duplicate, nothing applied again.
      const other = await ingest(returnFile([{ originalTrace: a.trace, amount: 50_000, code: 'R01' }], { modifier: 'B', account: ACCOUNT_NUMBER }))
      expect(other.status, other.text).to.equal(200)
      expect(other.body.inbound_file_id).to.not.equal(r01.reply.body.inbound_file_id)
      expect(other.body.returns).to.deep.equal([{ record: 3, original_trace: a.trace, return_code: 'R01', amount: 50_000, payment_id: a.paymentId, outcome: 'duplicate', late: false }])
      expect(await stateOf(a)).to.deep.equal(before)
    })

    it('blocks the payment method on an R02 return: listed blocked, and a new payment with it is 409 invalid_state', async () => {
      const reply = await ingest(returnFile([{ originalTrace: b.trace, amount: 30_000, code: 'R02' }], { account: ACCOUNT_NUMBER }))
      expect(reply.status, reply.text).to.equal(200)
      expect(reply.body.returns).to.deep.equal([{ record: 3, original_trace: b.trace, return_code: 'R02', amount: 30_000, payment_id: b.paymentId, outcome: 'applied', late: false }])
      expect(await paymentOf(b)).to.include({ status: 'RETURNED', return_code: 'R02' })
      expect((await ledgerOf(b)).filter((t) => t.type === 'REVERSAL').map((t) => [t.amount, t.payment_id])).to.deep.equal([[30_000, b.paymentId]])

      const methods = await send(server, b.loan.paths.paymentMethods, { headers: bearer(b.borrower.key.api_key) })
      expect(methods.status, methods.text).to.equal(200)
      expect((methods.body.data as Record<string, unknown>[]).map((m) => [m.payment_method_id, m.status])).to.deep.equal([[b.methodId, 'blocked']])

      const paymentsBefore = await send(server, `${b.loan.paths.payments}?limit=100`, { headers: bearer(b.borrower.key.api_key) })
      const refused = await send(server, b.loan.paths.payments, {
        method: 'POST',
        headers: { ...bearer(b.borrower.key.api_key), 'Idempotency-Key': `blocked-${randomUUID()}` },
        json: { amount: 10_000, currency: 'USD', payment_method_id: b.methodId },
      })
      expectInvalidState(refused, 'blocked', 'a payment from a blocked method')
      expect((await send(server, `${b.loan.paths.payments}?limit=100`, { headers: bearer(b.borrower.key.api_key) })).body).to.deep.equal(paymentsBefore.body)
      // Another borrower's method with the same account number is not blocked.
      const others = await send(server, a.loan.paths.paymentMethods, { headers: bearer(a.borrower.key.api_key) })
      expect((others.body.data as Record<string, unknown>[]).map((m) => [m.payment_method_id, m.status])).to.deep.equal([[a.methodId, 'active']])
    })

    it('reports a return that matches none of our entries as unmatched, and forward entries as others', async () => {
      const unknownTrace = `${ODFI}9999999`
      const states = await Promise.all([a, b, c].map(stateOf))
      const reply = await ingest(returnFile([{ originalTrace: unknownTrace, amount: 12_345, code: 'R03' }], { others: [777], account: ACCOUNT_NUMBER }))
      expect(reply.status, reply.text).to.equal(200)
      expect(reply.body.status).to.equal('ingested')
      expect(reply.body.returns).to.deep.equal([{ record: 3, original_trace: unknownTrace, return_code: 'R03', amount: 12_345, payment_id: null, outcome: 'unmatched', late: false }])
      expect(reply.body.others).to.deep.equal([{ record: 5, trace_number: `${RDFI}0000002`, amount: 777 }])
      expect(await Promise.all([a, b, c].map(stateOf))).to.deep.equal(states)
      const read = await inboundFile(reply.body.inbound_file_id as string)
      expect(read.status, read.text).to.equal(200)
      expect(read.body).to.deep.equal(reply.body)
    })

    it('refuses a file that does not parse, a body that is not text/plain or is missing, the test world, rails that are off and no token: changing nothing', async () => {
      const valid = returnFile([{ originalTrace: c.trace, amount: 20_000, code: 'R01' }], { account: ACCOUNT_NUMBER })
      const before = await stateOf(c)

      // Line 6 is the file control (header, batch header, entry, addenda, batch control): its total debit, positions 32–43.
      const corrupt = corruptDigit(valid, 6, 43)
      expect(parseNachaFile(corrupt).ok, 'the corrupted file is refused by the parser').to.equal(false)
      const unparsable = await ingest(corrupt)
      expectInvalid(unparsable, 'file', 'a corrupted control record')
      expect(unparsable.body.detail).to.match(/record 6\b/)
      expect(unparsable.body.detail).to.include('total debit')

      // An addenda whose return code is not one: refused at record 4.
      const badCode = await ingest(valid.replace(/^799R01/m, '799X01'))
      expectInvalid(badCode, 'file', 'a return reason code that is not one')
      expect(badCode.body.detail).to.match(/record 4\b/)

      const asJson = await send(server, INBOUND, { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'application/json' }, rawBody: valid })
      expect(asJson.status, asJson.text).to.equal(400)
      expect(asJson.body.error).to.equal('invalid_request')
      const asJsonString = await send(server, INBOUND, { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: valid })
      expect(asJsonString.status, asJsonString.text).to.equal(400)
      expect(asJsonString.body.error).to.equal('invalid_request')

      const noBody = await send(server, INBOUND, { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
      expect(noBody.status, noBody.text).to.equal(400)
      expect(noBody.body.error).to.equal('invalid_request')
      const emptyBody = await send(server, INBOUND, { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain' }, rawBody: '' })
      expect(emptyBody.status, emptyBody.text).to.equal(400)
      expect(emptyBody.body.error).to.equal('invalid_request')

      // The test world has rails of its own (the sandbox bank's): the file is its own record there, and matches none of its debits.
      const inTestWorld = await ingest(valid, server, { ...bearer(INTERNAL_TOKEN), 'Lendgate-Mode': 'test' })
      expect(inTestWorld.status, inTestWorld.text).to.equal(200)
      expect(inTestWorld.body).to.include({ livemode: false, status: 'ingested' })
      expect(inTestWorld.body.returns).to.deep.equal([{ record: 3, original_trace: c.trace, return_code: 'R01', amount: 20_000, payment_id: null, outcome: 'unmatched', late: false }])
      expectInvalidState(await ingest(valid, off), 'disabled', 'the rails off')
      expectInvalidState(await inboundFile(randomUUID(), off), 'disabled', 'reading a file with the rails off')

      const noToken = await ingest(valid, server, {})
      expect(noToken.status, noToken.text).to.equal(401)
      const wrongToken = await ingest(valid, server, bearer(`not-the-${INTERNAL_TOKEN}`))
      expect(wrongToken.status, wrongToken.text).to.equal(401)

      const unknown = await inboundFile(randomUUID())
      expect(unknown.status, unknown.text).to.equal(404)
      expect(unknown.body.error).to.equal('not_found')
      expectInvalid(await inboundFile('not-a-uuid'), 'inboundFileId')

      expect(await stateOf(c)).to.deep.equal(before)
      expect(await paymentOf(c)).to.include({ status: 'SUBMITTED', return_code: null })

      // The very file every refused request carried is accepted as it is: they were refused for what the request was, not for the file.
      const accepted = await ingest(valid)
      expect(accepted.status, accepted.text).to.equal(200)
      expect(accepted.body.returns).to.deep.equal([{ record: 3, original_trace: c.trace, return_code: 'R01', amount: 20_000, payment_id: c.paymentId, outcome: 'applied', late: false }])
      expect(await paymentOf(c)).to.include({ status: 'RETURNED', return_code: 'R01' })
    })

    it('answers deliveries of one file at once with its one record, reporting none of its returns a duplicate of itself', async () => {
      // Rounds of three deliveries at once of a file of 30 returns (unmatched: no debit is touched).
      for (let round = 0; round < 3; round++) {
        const traces = Array.from({ length: 30 }, (_, k) => `${ODFI}6${String(round).padStart(2, '0')}${String(k).padStart(4, '0')}`)
        const text = returnFile(
          traces.map((originalTrace) => ({ originalTrace, amount: 100, code: 'R01' })),
          { modifier: 'C', account: ACCOUNT_NUMBER },
        )
        const answers = await Promise.all([ingest(text), ingest(text), ingest(text)])
        for (const answer of answers) expect(answer.status, answer.text).to.equal(200)
        const stored = await inboundFile(answers[0]!.body.inbound_file_id as string)
        expect(stored.status, stored.text).to.equal(200)
        /** How many returns of an answer have each outcome. */
        const tally = (body: Record<string, unknown>): Record<string, number> =>
          (body.returns as { outcome: string }[]).reduce<Record<string, number>>((counts, r) => ({ ...counts, [r.outcome]: (counts[r.outcome] ?? 0) + 1 }), {})
        // The file's own returns, recorded by it: unmatched, each of them, in the record and in every answer.
        expect(tally(stored.body), `round ${round}: the stored record`).to.deep.equal({ unmatched: 30 })
        expect(answers.map((answer) => [answer.body.inbound_file_id, tally(answer.body)]), `round ${round}: the answers`).to.deep.equal(answers.map(() => [stored.body.inbound_file_id, { unmatched: 30 }]))
        for (const answer of answers) expect(answer.body).to.deep.equal(stored.body)
      }
    })

    it('answers no 5xx, and shows the account number in no answer and no log', () => {
      expect(replies.length).to.be.greaterThan(20)
      expect(replies.filter(({ reply }) => reply.status >= 500).map(({ what, reply }) => `${what}: ${reply.status} ${reply.text}`)).to.deep.equal([])
      expect(replies.filter(({ reply }) => reply.text.includes(ACCOUNT_NUMBER)).map(({ what }) => what)).to.deep.equal([])
      expect(findLeaks([server.logs.raw(), off.logs.raw()], [ACCOUNT_NUMBER])).to.deep.equal([])
    })

    /**
     * Notices of change (docs/ach.md "Returns and notices of change"): a COR batch whose entries
     * carry an addenda 98 naming the trace of one of our debits and the account as it should be.
     * It runs after the returns above, on their debits: a (R01, its method active), b (R02, its
     * method blocked) and c (R01, its method active).
     */
    describe('notices of change', () => {
      /** The account number debit a's bank corrects it to (C01), and one a later notice names (never applied). */
      const NEW_ACCOUNT_NUMBER = '73920584116203'
      const OTHER_ACCOUNT_NUMBER = '48151623420911'
      /** The real moov-io COR fixture, and what its one notice names. */
      const FIXTURE = new URL('../../../packages/nacha/test/fixtures/moov-io/cor-example.ach', import.meta.url)
      const FIXTURE_TRACE = '121042880000001'
      const FIXTURE_ACCOUNT_NUMBER = '1918171614'

      /** One notice of a COR file: the trace of our entry, the change code and the corrected data (29 characters at most). */
      type NoticeItem = { readonly originalTrace: string; readonly code: string; readonly correctedData: string }

      /**
       * A COR file as the borrower's bank sends it: one batch (debits, 225) of notices of change
       * (26: NOC for a checking debit, amount 0, the account number as our entry had it) to our
       * ODFI, each with its addenda 98. `modifier` tells apart files of the same content.
       */
      const noticeFile = (items: readonly NoticeItem[], modifier = 'A'): string => {
        let sequence = 0
        const entries = items.map((item): EntryDetail => {
          const traceNumber = `${RDFI}${String(++sequence).padStart(7, '0')}`
          return {
            transactionCode: 26,
            rdfiIdentification: ODFI,
            checkDigit: ODFI_CHECK_DIGIT,
            dfiAccountNumber: ACCOUNT_NUMBER,
            amount: 0,
            identificationNumber: '',
            name: 'ACME WIDGETS LLC',
            discretionaryData: '',
            addendaRecordIndicator: 1,
            traceNumber,
            addenda: [{ typeCode: '98', changeCode: item.code, originalTraceNumber: item.originalTrace, originalRdfiIdentification: RDFI, correctedData: item.correctedData, traceNumber }],
          }
        })
        const text = bankFile('COR', 225, entries, '0700', modifier)
        const parsed = parseNachaFile(text)
        if (!parsed.ok) return expect.fail(`the COR file is refused by the parser: ${JSON.stringify(parsed.error)}`)
        expect(parsed.file.batches.map((batch) => batch.header.secCode)).to.deep.equal(['COR'])
        return text
      }

      /** The payment method `methodId` as the partner lists it on `d`'s loan. */
      const methodOf = async (d: Debit, methodId: string = d.methodId): Promise<Record<string, unknown>> => {
        const list = await send(server, `${d.loan.paths.paymentMethods}?limit=100`, { headers: bearer(d.borrower.key.api_key) })
        expect(list.status, list.text).to.equal(200)
        return (list.body.data as Record<string, unknown>[]).find((m) => m.payment_method_id === methodId) ?? expect.fail(`method ${methodId} is not listed`)
      }
      /** The `payment_method.corrected` audit events of `d`'s borrower. */
      const correctionsOf = async (d: Debit): Promise<Record<string, unknown>[]> => {
        const audit = await send(server, `/internal/audit-events?action=payment_method.corrected&party_id=${d.borrower.partyId}&limit=100`, { headers: bearer(INTERNAL_TOKEN) })
        expect(audit.status, audit.text).to.equal(200)
        return audit.body.data as Record<string, unknown>[]
      }

      /** The first ingestion of the C01 file of debit a; a's method as it was before it. */
      let c01: { readonly text: string; readonly reply: Reply; readonly before: Record<string, unknown> } | undefined

      it('applies a C01 notice: the method shows the new last4, a payment_method.corrected audit event shows last4 before and after, and no answer or log shows the number', async () => {
        const before = await methodOf(a)
        expect(before).to.include({ status: 'active', last4: ACCOUNT_NUMBER.slice(-4) })
        expect(await correctionsOf(a)).to.deep.equal([])
        const text = noticeFile([{ originalTrace: a.trace, code: 'C01', correctedData: NEW_ACCOUNT_NUMBER }])

        const reply = await ingest(text)
        expect(reply.status, reply.text).to.equal(200)
        c01 = { text, reply, before }
        expect(reply.body).to.include({ status: 'ingested', livemode: true, sha256: createHash('sha256').update(text, 'latin1').digest('hex') })
        expect(reply.body.returns).to.deep.equal([])
        expect(reply.body.others).to.deep.equal([])
        expect(reply.body.notices).to.deep.equal([{ record: 3, original_trace: a.trace, change_code: 'C01', payment_method_id: a.methodId, outcome: 'applied', detail: null }])
        expect(reply.text).to.not.include(NEW_ACCOUNT_NUMBER)

        // The partner's list of payment methods: the new last four digits, the rest as it was.
        const after = await methodOf(a)
        expect(after).to.include({ payment_method_id: a.methodId, status: 'active', last4: NEW_ACCOUNT_NUMBER.slice(-4), account_type: before.account_type })
        const { last4: _l1, updated_at: _u1, ...restAfter } = after
        const { last4: _l2, updated_at: _u2, ...restBefore } = before
        expect(restAfter).to.deep.equal(restBefore)

        // The audit log: payment_method.corrected, by the operator, last4 before and after, never the number.
        const events = await correctionsOf(a)
        expect(events).to.have.length(1)
        expect(events[0]).to.deep.include({
          action: 'payment_method.corrected',
          actor: { type: 'operator' },
          subject: { type: 'payment_method', id: a.methodId },
          api_client_id: a.borrower.key.client_id,
          party_id: a.borrower.partyId,
          details: {
            loan_id: a.loan.loanId,
            change_code: 'C01',
            inbound_file_id: reply.body.inbound_file_id,
            original_trace: a.trace,
            before: { last4: ACCOUNT_NUMBER.slice(-4), routing_number: ROUTING_NUMBER, account_type: before.account_type },
            after: { last4: NEW_ACCOUNT_NUMBER.slice(-4), routing_number: ROUTING_NUMBER, account_type: before.account_type },
          },
        })
        expect(JSON.stringify(events)).to.not.include(NEW_ACCOUNT_NUMBER)

        // The file as recorded answers the same body.
        const read = await inboundFile(reply.body.inbound_file_id as string)
        expect(read.status, read.text).to.equal(200)
        expect(read.body).to.deep.equal(reply.body)

        expect(replies.filter(({ reply: r }) => r.text.includes(NEW_ACCOUNT_NUMBER)).map(({ what }) => what)).to.deep.equal([])
        expect(findLeaks([server.logs.raw(), off.logs.raw()], [NEW_ACCOUNT_NUMBER])).to.deep.equal([])
      })

      it('applies a C05 notice: the method becomes a savings account, its last4 unchanged', async () => {
        const before = await methodOf(c)
        expect(before).to.include({ status: 'active', last4: ACCOUNT_NUMBER.slice(-4) })
        expect(before.account_type).to.not.equal('savings')
        const reply = await ingest(noticeFile([{ originalTrace: c.trace, code: 'C05', correctedData: '37' }]))
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body.notices).to.deep.equal([{ record: 3, original_trace: c.trace, change_code: 'C05', payment_method_id: c.methodId, outcome: 'applied', detail: null }])
        expect(await methodOf(c)).to.include({ status: 'active', last4: ACCOUNT_NUMBER.slice(-4), account_type: 'savings' })
        const events = await correctionsOf(c)
        expect(events).to.have.length(1)
        expect(events[0]).to.deep.include({
          subject: { type: 'payment_method', id: c.methodId },
          details: {
            loan_id: c.loan.loanId,
            change_code: 'C05',
            inbound_file_id: reply.body.inbound_file_id,
            original_trace: c.trace,
            before: { last4: ACCOUNT_NUMBER.slice(-4), routing_number: ROUTING_NUMBER, account_type: before.account_type },
            after: { last4: ACCOUNT_NUMBER.slice(-4), routing_number: ROUTING_NUMBER, account_type: 'savings' },
          },
        })
      })

      it('answers the same COR file again with its record, changing nothing; another notice of the same entry is a duplicate; an unknown trace unmatched', async () => {
        if (c01 === undefined) return expect.fail('the C01 file was not ingested')
        const methodBefore = await methodOf(a)
        expect(methodBefore.last4).to.equal(NEW_ACCOUNT_NUMBER.slice(-4))
        const state = await stateOf(a)

        const again = await ingest(c01.text)
        expect(again.status, again.text).to.equal(200)
        expect(again.body).to.deep.equal(c01.reply.body)
        expect(await stateOf(a)).to.deep.equal(state)
        expect(await correctionsOf(a)).to.have.length(1)

        // Another file (another number, another modifier) noticing the same entry: a duplicate, nothing applied.
        const other = await ingest(noticeFile([{ originalTrace: a.trace, code: 'C01', correctedData: OTHER_ACCOUNT_NUMBER }], 'B'))
        expect(other.status, other.text).to.equal(200)
        expect(other.body.inbound_file_id).to.not.equal(c01.reply.body.inbound_file_id)
        expect(other.body.notices).to.deep.equal([{ record: 3, original_trace: a.trace, change_code: 'C01', payment_method_id: a.methodId, outcome: 'duplicate', detail: null }])
        expect(await stateOf(a)).to.deep.equal(state)

        // A trace of no entry of ours: reported, nothing applied (the other outcomes: ach-notices.test.ts).
        const unknownTrace = `${ODFI}8888888`
        const mixed = await ingest(noticeFile([{ originalTrace: unknownTrace, code: 'C01', correctedData: OTHER_ACCOUNT_NUMBER }], 'C'))
        expect(mixed.status, mixed.text).to.equal(200)
        expect(mixed.body.notices).to.deep.equal([{ record: 3, original_trace: unknownTrace, change_code: 'C01', payment_method_id: null, outcome: 'unmatched', detail: null }])
        expect(await stateOf(a)).to.deep.equal(state)
        const read = await inboundFile(mixed.body.inbound_file_id as string)
        expect(read.status, read.text).to.equal(200)
        expect(read.body).to.deep.equal(mixed.body)
      })

      it('ingests the real moov-io COR fixture as it is: its trace is our first debit\'s, already noticed, so a duplicate that changes nothing', async () => {
        const text = readFileSync(FIXTURE, 'latin1')
        const parsed = parseNachaFile(text)
        if (!parsed.ok) return expect.fail(`the fixture is refused by the parser: ${JSON.stringify(parsed.error)}`)
        // moov-io's example names ODFI 12104288 (the test settings' own) and trace …0000001: the first trace this world cut, debit a's.
        expect(a.trace).to.equal(FIXTURE_TRACE)
        const state = await stateOf(a)
        const reply = await ingest(text)
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body).to.include({ status: 'ingested' })
        expect(reply.body.returns).to.deep.equal([])
        expect(reply.body.others).to.deep.equal([])
        expect(reply.body.notices).to.deep.equal([{ record: 3, original_trace: FIXTURE_TRACE, change_code: 'C01', payment_method_id: a.methodId, outcome: 'duplicate', detail: null }])
        expect(await stateOf(a)).to.deep.equal(state)
        expect((await methodOf(a)).last4).to.equal(NEW_ACCOUNT_NUMBER.slice(-4))
      })

      it('reports a notice of a blocked method (R02) as method_blocked, changing nothing', async () => {
        // Blocked by an R02 return first (applied above, or here when run alone).
        const r02 = await ingest(returnFile([{ originalTrace: b.trace, amount: 30_000, code: 'R02' }], { modifier: 'N', account: ACCOUNT_NUMBER }))
        expect(r02.status, r02.text).to.equal(200)
        const returned = (r02.body.returns as Record<string, unknown>[])[0]
        expect(returned).to.include({ original_trace: b.trace, return_code: 'R02', payment_id: b.paymentId })
        expect(['applied', 'duplicate']).to.include(returned!.outcome)
        const before = await methodOf(b)
        expect(before).to.include({ status: 'blocked', last4: ACCOUNT_NUMBER.slice(-4) })
        const state = await stateOf(b)

        const reply = await ingest(noticeFile([{ originalTrace: b.trace, code: 'C01', correctedData: OTHER_ACCOUNT_NUMBER }], 'D'))
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body.notices).to.deep.equal([{ record: 3, original_trace: b.trace, change_code: 'C01', payment_method_id: b.methodId, outcome: 'method_blocked', detail: null }])
        expect(await methodOf(b)).to.deep.equal(before)
        expect(await correctionsOf(b)).to.deep.equal([])
        expect(await stateOf(b)).to.deep.equal(state)
      })

      it('answers no 5xx, and shows no account number in any answer or log', () => {
        expect(replies.filter(({ reply }) => reply.status >= 500).map(({ what, reply }) => `${what}: ${reply.status} ${reply.text}`)).to.deep.equal([])
        const numbers = [ACCOUNT_NUMBER, NEW_ACCOUNT_NUMBER, OTHER_ACCOUNT_NUMBER, FIXTURE_ACCOUNT_NUMBER]
        expect(replies.filter(({ reply }) => numbers.some((n) => reply.text.includes(n))).map(({ what }) => what)).to.deep.equal([])
        expect(findLeaks([server.logs.raw(), off.logs.raw()], numbers)).to.deep.equal([])
      })
    })
  })
}
