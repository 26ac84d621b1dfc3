import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ReturnRateReport } from '@lendgate/core'
import { testId } from '@lendgate/core/testing'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '@lendgate/adapters/testing'
import { parseNachaFile } from '@lendgate/nacha'
import { expect } from 'chai'
import { createMetrics } from '../src/metrics.js'
import { returnFile } from './support/ach-files.js'
import { addBankAccount, payFrom } from './support/ach-debits.js'
import { achSettings as settings } from './support/ach-settings.js'
import { bookLoan, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply, type RequestOptions } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { expectInvalid, expectInvalidState } from './support/expectations.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Nacha's return rates (docs/ach.md section 7 "Risk counters"): `GET /internal/ach/return-rates`
 * over real debits cut into a file (counted from their effective date, a later banking day: the
 * test moves it to today in the database) and a real return file posted back, and the three gauges of
 * `/metrics` (`lendgate_ach_debits_60d`, `lendgate_ach_returns_60d`, `lendgate_ach_return_rate`)
 * from a report, refreshed at most once a minute.
 */

const RATES = '/internal/ach/return-rates'
const INBOUND = '/internal/ach/inbound-files'

/** An account number no other test uses. */
const ACCOUNT_NUMBER = '59027716430519'

/** The New York date of `at` (`YYYY-MM-DD`). */
const newYorkDate = (at: Date): string => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at)
/** `date` moved `days` days. */
const shift = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10)

for (const database of testDatabases()) {
  describe(`Return rates over HTTP on ${database.name}`, () => {
    let scratch: ScratchDatabase
    let server: TestServer
    let off: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let outbox: string
    /** Every answer of the suite: none may be a 5xx. */
    const replies: { readonly what: string; readonly reply: Reply }[] = []

    const send = async (on: TestServer, path: string, options: RequestOptions = {}): Promise<Reply> => {
      const reply = await request(on.url, path, options)
      replies.push({ what: `${options.method ?? 'GET'} ${path}`, reply })
      return reply
    }
    /** The return rates as `on` answers them, with the New York dates before and after the request (the day may turn meanwhile). */
    const rates = async (on: TestServer = server, headers: Record<string, string> = bearer(INTERNAL_TOKEN)) => {
      const before = newYorkDate(new Date())
      const reply = await send(on, RATES, { headers })
      return { reply, days: [before, newYorkDate(new Date())] }
    }
    const expectWindow = (body: Record<string, unknown>, days: readonly string[]): void => {
      expect(days).to.include(body.to)
      expect(body.from).to.equal(shift(body.to as string, -59))
    }

    let borrower: Borrower
    let loan: BookedLoan
    /** The two debits: their payments, amounts and (once cut) trace numbers. */
    const debits: { paymentId: string; amount: number; trace: string }[] = []
    /** The file's effective entry date: the next banking day after its cut-off's, so never today. */
    let effectiveOn: string
    /** The rates answered before any debit was sent. */
    let beforeAny: Awaited<ReturnType<typeof rates>>

    before(async function () {
      this.timeout(120_000)
      receiver = await startCodeReceiver()
      // A database of its own: the file takes every PENDING payment of the live world, and the report lists every client.
      scratch = await scratchDatabase(database.kind)
      outbox = join(mkdtempSync(join(tmpdir(), 'lendgate-ach-rates-')), 'outbox')
      const own = { name: database.name, kind: database.kind, open: async () => scratch.database }
      server = await startTestServer(own, { verificationDeliveryUrl: receiver.url, ach: settings(outbox) })
      off = await startTestServer(own, { verificationDeliveryUrl: receiver.url })

      // One borrower (one API client), one loan, one bank account, two debits accepted PENDING.
      borrower = await onboardBorrower(server, receiver)
      loan = await bookLoan(server, borrower)
      const methodId = await addBankAccount(server, borrower, loan, ACCOUNT_NUMBER, send)
      for (const amount of [40_000, 25_000]) {
        const paid = await payFrom(server, borrower, loan, methodId, amount, send)
        expect(paid.status, paid.text).to.equal(201)
        expect(paid.body).to.include({ status: 'PENDING', amount })
        debits.push({ paymentId: paid.body.payment_id as string, amount, trace: '' })
      }
      beforeAny = await rates()

      const run = await send(server, '/internal/jobs/ach-origination', { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
      expect(run.status, run.text).to.equal(200)
      expect(run.body).to.deep.include({ outcome: 'completed' })
      const file = run.body.file as Record<string, unknown>
      expect(file).to.include({ status: 'written', entry_count: 2, debit_total: 65_000 })
      effectiveOn = file.effective_entry_date as string
      expect(readdirSync(outbox)).to.deep.equal([file.name])
      const parsed = parseNachaFile(readFileSync(join(outbox, file.name as string), 'utf8'))
      if (!parsed.ok) return expect.fail(`our own file is refused: ${JSON.stringify(parsed.error)}`)
      const traces = new Map<string, string>()
      for (const batch of parsed.file.batches) {
        for (const entry of batch.entries) {
          for (const addenda of entry.addenda) if ('paymentRelatedInformation' in addenda) traces.set(addenda.paymentRelatedInformation.replace(/^PAYMENT /, ''), entry.traceNumber)
        }
      }
      for (const d of debits) d.trace = traces.get(d.paymentId) ?? expect.fail(`no entry names payment ${d.paymentId}`)
    })
    after(async () => {
      await server?.stop()
      await off?.stop()
      await receiver?.close()
      await scratch?.drop()
      if (outbox !== undefined) rmSync(join(outbox, '..'), { recursive: true, force: true })
    })

    it('lists no client before a debit is sent: accepted payments are not debits yet', () => {
      expect(beforeAny.reply.status, beforeAny.reply.text).to.equal(200)
      expect(Object.keys(beforeAny.reply.body).sort()).to.deep.equal(['clients', 'from', 'livemode', 'to'])
      expect(beforeAny.reply.body.livemode).to.equal(true)
      expectWindow(beforeAny.reply.body, beforeAny.days)
      expect(beforeAny.reply.body.clients).to.deep.equal([])
    })

    it('does not count the two debits cut into the file yet: they are effective on a later banking day, after the window', async () => {
      const { reply, days } = await rates()
      expect(reply.status, reply.text).to.equal(200)
      expectWindow(reply.body, days)
      expect(effectiveOn > (reply.body.to as string), `effective ${effectiveOn}, window to ${String(reply.body.to)}`).to.equal(true)
      expect(reply.body.clients).to.deep.equal([])
    })

    it('counts the two debits cut into the file once effective, with no return yet: rates 0, not over', async () => {
      // As on their effective date: the entries' date moved to today (New York), in the window whether or not the day turns before the request.
      const moved = await scratch.database.db
        .updateTable('ach_entries')
        .set({ submitted_on: newYorkDate(new Date()) })
        .where('payment_id', 'in', debits.map((d) => testId(d.paymentId)))
        .where('submitted_on', '=', effectiveOn)
        .executeTakeFirst()
      expect(Number(moved.numUpdatedRows)).to.equal(2)
      const { reply, days } = await rates()
      expect(reply.status, reply.text).to.equal(200)
      expectWindow(reply.body, days)
      expect(reply.body.clients).to.deep.equal([
        {
          client_id: borrower.key.client_id,
          debits: 2,
          unauthorized: { returns: 0, rate: 0, threshold: 0.005, over: false },
          administrative: { returns: 0, rate: 0, threshold: 0.03, over: false },
          overall: { returns: 0, rate: 0, threshold: 0.15, over: false },
        },
      ])
    })

    it('counts an R10 return of one of them: 1 unauthorized of 2 debits, rate 0.5, over; overall 1', async () => {
      const [returned] = debits
      const ingested = await send(server, INBOUND, { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain' }, rawBody: returnFile([{ originalTrace: returned!.trace, amount: returned!.amount, code: 'R10' }], { account: ACCOUNT_NUMBER }) })
      expect(ingested.status, ingested.text).to.equal(200)
      expect(ingested.body.returns).to.deep.equal([{ record: 3, original_trace: returned!.trace, return_code: 'R10', amount: returned!.amount, payment_id: returned!.paymentId, outcome: 'applied', late: false }])

      const { reply, days } = await rates()
      expect(reply.status, reply.text).to.equal(200)
      expectWindow(reply.body, days)
      expect(reply.body.clients).to.deep.equal([
        {
          client_id: borrower.key.client_id,
          debits: 2,
          unauthorized: { returns: 1, rate: 0.5, threshold: 0.005, over: true },
          administrative: { returns: 0, rate: 0, threshold: 0.03, over: false },
          overall: { returns: 1, rate: 0.5, threshold: 0.15, over: true },
        },
      ])
    })

    it('counts a return file ingested again once: the same figures', async () => {
      const [returned] = debits
      const again = await send(server, INBOUND, { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain' }, rawBody: returnFile([{ originalTrace: returned!.trace, amount: returned!.amount, code: 'R10' }], { account: ACCOUNT_NUMBER }) })
      expect(again.status, again.text).to.equal(200)
      const { reply } = await rates()
      expect(reply.status, reply.text).to.equal(200)
      expect((reply.body.clients as Record<string, unknown>[]).map((c) => [c.client_id, c.debits, (c.unauthorized as Record<string, unknown>).returns, (c.overall as Record<string, unknown>).returns])).to.deep.equal([
        [borrower.key.client_id, 2, 1, 1],
      ])
    })

    it('answers 409 invalid_state with the rails off or for the test world, and 401 without the operator token', async () => {
      expectInvalidState((await rates(off)).reply, 'disabled', 'the rails off')
      expectInvalidState((await rates(off, { ...bearer(INTERNAL_TOKEN), 'Lendgate-Mode': 'test' })).reply, 'disabled', 'the rails off, the test world')
      expectInvalidState((await rates(server, { ...bearer(INTERNAL_TOKEN), 'Lendgate-Mode': 'test' })).reply, 'disabled', 'the test world')
      // Lendgate-Mode: live is the live world, as without the header.
      const live = await rates(server, { ...bearer(INTERNAL_TOKEN), 'Lendgate-Mode': 'live' })
      expect(live.reply.status, live.reply.text).to.equal(200)
      expect((live.reply.body.clients as unknown[]).length).to.equal(1)
      expect((await rates(server, {})).reply.status).to.equal(401)
      expect((await rates(server, bearer(`not-the-${INTERNAL_TOKEN}`))).reply.status).to.equal(401)
      // A partner's key is no operator's.
      expect((await rates(server, bearer(borrower.key.api_key))).reply.status).to.equal(401)
    })

    it('answers 400 invalid_request to a query parameter: the window is not chosen by the caller', async () => {
      for (const [query, param] of [['since=2026-01-01', 'since'], ['limit=10', 'limit']] as const) {
        const reply = await send(server, `${RATES}?${query}`, { headers: bearer(INTERNAL_TOKEN) })
        expectInvalid(reply, param, query)
      }
    })

    it('answers no 5xx', () => {
      expect(replies.filter((r) => r.what.endsWith(RATES)).length).to.be.greaterThan(8)
      expect(replies.filter(({ reply }) => reply.status >= 500).map(({ what, reply }) => `${what}: ${reply.status} ${reply.text}`)).to.deep.equal([])
    })
  })
}

/** One sample of the Prometheus text: its metric name, labels and value. */
type Sample = { readonly name: string; readonly labels: Readonly<Record<string, string>>; readonly value: number }

/** The samples of `text` (Prometheus exposition format) named `name`, as `[labels, value]`, in a stable order. */
const samplesOf = (text: string, name: string): [Record<string, string>, number][] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line): Sample => {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line) ?? expect.fail(`not a sample: ${line}`)
      const labels: Record<string, string> = {}
      for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
      return { name: m[1]!, labels, value: Number(m[3]) }
    })
    .filter((s) => s.name === name)
    .map((s): [Record<string, string>, number] => [s.labels, s.value])
    .sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b)))

describe('the return-rate gauges', () => {
  const A = testId('0a6f2b9e-3c41-4d7a-9b8e-5f1c2d3e4a01')
  const B = testId('0b7e3c8d-4d52-4e8b-8c9f-6a2d3e4f5b02')
  const C = testId('0c8f4d7c-5e63-4f9c-9da0-7b3e4f5a6c03')

  /**
   * A: 400 debits, 3 unauthorized (0.75 %, over), 8 administrative (2 %), 20 in all (5 %). B: 10
   * debits, no return. C: returns and no debit in the window (rate null).
   */
  const report: ReturnRateReport = {
    from: '2026-05-01',
    to: '2026-06-29',
    clients: [
      {
        clientId: A,
        debits: 400,
        unauthorized: { returns: 3, rate: 0.0075, threshold: 0.005, over: true },
        administrative: { returns: 8, rate: 0.02, threshold: 0.03, over: false },
        overall: { returns: 20, rate: 0.05, threshold: 0.15, over: false },
      },
      {
        clientId: B,
        debits: 10,
        unauthorized: { returns: 0, rate: 0, threshold: 0.005, over: false },
        administrative: { returns: 0, rate: 0, threshold: 0.03, over: false },
        overall: { returns: 0, rate: 0, threshold: 0.15, over: false },
      },
      {
        clientId: C,
        debits: 0,
        unauthorized: { returns: 1, rate: null, threshold: 0.005, over: false },
        administrative: { returns: 0, rate: null, threshold: 0.03, over: false },
        overall: { returns: 2, rate: null, threshold: 0.15, over: false },
      },
    ],
  }
  /** A alone, later: 401 debits, 4 unauthorized, 8 administrative, 21 in all. */
  const later: ReturnRateReport = {
    from: '2026-05-02',
    to: '2026-06-30',
    clients: [
      {
        clientId: A,
        debits: 401,
        unauthorized: { returns: 4, rate: 4 / 401, threshold: 0.005, over: true },
        administrative: { returns: 8, rate: 8 / 401, threshold: 0.03, over: false },
        overall: { returns: 21, rate: 21 / 401, threshold: 0.15, over: false },
      },
    ],
  }

  const debitsOf = (text: string) => samplesOf(text, 'lendgate_ach_debits_60d')
  const returnsOf = (text: string) => samplesOf(text, 'lendgate_ach_returns_60d')
  const ratesOf = (text: string) => samplesOf(text, 'lendgate_ach_return_rate')

  it('reports the debits per client, and the returns and rates per client and category, from one read of the report', async () => {
    let reads = 0
    const metrics = createMetrics({
      achReturnRates: async () => {
        reads += 1
        return report
      },
    })
    const text = await metrics.registry.metrics()
    expect(reads, 'one read serves the three gauges').to.equal(1)
    for (const name of ['lendgate_ach_debits_60d', 'lendgate_ach_returns_60d', 'lendgate_ach_return_rate']) expect(text).to.include(`# TYPE ${name} gauge`)
    expect(debitsOf(text)).to.deep.equal([
      [{ client_id: A }, 400],
      [{ client_id: B }, 10],
      [{ client_id: C }, 0],
    ])
    expect(returnsOf(text)).to.deep.equal(
      [
        [{ client_id: A, category: 'administrative' }, 8],
        [{ client_id: A, category: 'overall' }, 20],
        [{ client_id: A, category: 'unauthorized' }, 3],
        [{ client_id: B, category: 'administrative' }, 0],
        [{ client_id: B, category: 'overall' }, 0],
        [{ client_id: B, category: 'unauthorized' }, 0],
        [{ client_id: C, category: 'administrative' }, 0],
        [{ client_id: C, category: 'overall' }, 2],
        [{ client_id: C, category: 'unauthorized' }, 1],
      ].sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    )
    // C's rates are null (no debit): no rate series for C (docs/deployment.md "Metrics").
    expect(ratesOf(text)).to.deep.equal(
      [
        [{ client_id: A, category: 'administrative' }, 0.02],
        [{ client_id: A, category: 'overall' }, 0.05],
        [{ client_id: A, category: 'unauthorized' }, 0.0075],
        [{ client_id: B, category: 'administrative' }, 0],
        [{ client_id: B, category: 'overall' }, 0],
        [{ client_id: B, category: 'unauthorized' }, 0],
      ].sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    )
  })

  it('reads the report at most once a minute; past the minute, a client gone from it is gone from the gauges', async () => {
    let reads = 0
    let current = report
    const metrics = createMetrics({
      achReturnRates: async () => {
        reads += 1
        return current
      },
    })
    const realNow = Date.now
    let skew = 0
    Date.now = () => realNow.call(Date) + skew
    try {
      expect(debitsOf(await metrics.registry.metrics())).to.deep.equal([
        [{ client_id: A }, 400],
        [{ client_id: B }, 10],
        [{ client_id: C }, 0],
      ])
      current = later
      // Within the minute: the first report still serves.
      skew = 59_000
      const within = await metrics.registry.metrics()
      expect(reads).to.equal(1)
      expect(debitsOf(within)).to.deep.equal([
        [{ client_id: A }, 400],
        [{ client_id: B }, 10],
        [{ client_id: C }, 0],
      ])
      // Past it: the later report, B and C gone from all three gauges.
      skew = 60_500
      const past = await metrics.registry.metrics()
      expect(reads).to.equal(2)
      expect(debitsOf(past)).to.deep.equal([[{ client_id: A }, 401]])
      expect(returnsOf(past).map(([labels]) => labels.client_id)).to.deep.equal([A, A, A])
      expect(ratesOf(past).map(([labels]) => labels.client_id)).to.deep.equal([A, A, A])
      expect(Object.fromEntries(ratesOf(past).map(([labels, value]) => [labels.category, value]))).to.deep.equal({ administrative: 8 / 401, overall: 21 / 401, unauthorized: 4 / 401 })
      expect(Object.fromEntries(returnsOf(past).map(([labels, value]) => [labels.category, value]))).to.deep.equal({ administrative: 8, overall: 21, unauthorized: 4 })
    } finally {
      Date.now = realNow
    }
  })

  it('reports none of the gauges without the source (a process that runs no ACH job)', async () => {
    const text = await createMetrics().registry.metrics()
    expect(text).to.not.include('lendgate_ach_')
  })
})
