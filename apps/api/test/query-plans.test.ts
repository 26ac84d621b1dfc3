import { randomUUID } from 'node:crypto'
import type { QueryLog } from '@lendgate/adapters'
import {
  bookRecords,
  explainable,
  largeTables,
  partitionsOf,
  relationsRead,
  scratchDatabase,
  seedLargeBook,
  seedWebhookDeliveries,
  sequentialScans,
  testDatabases,
  BOOK_BORROWER_CLIENT,
  BOOK_PARTNER_CLIENT,
  type BookSizes,
  type BookSubject,
  type LoggedStatement,
  type ScratchDatabase,
} from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { DELINQUENCY_BUCKETS, type PartyId } from '@lendgate/core'
import { OPERATIONS, type Operation } from '../src/routes/operations.js'
import { WORKING_CAPITAL } from './support/booked-loan.js'
import { bearer, mintKey, request, type MintedKey } from './support/client.js'
import { callOperation, fillPath, ownerOfPath, type IdMap } from './support/isolation-fixtures.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Issue 40: no statement a partner route runs reads a large table from end to end. On a database
 * seeded with a book (`seedLargeBook`, small enough for a test run and large enough that the
 * planner prefers an index wherever one serves) and `ANALYZE`d, every partner operation is called
 * on the book's records, lists also at their second page (reached by cursor), and every statement
 * it ran is `EXPLAIN`ed with its parameters: a sequential scan of a large table fails the test,
 * naming the operation and the statement. A missing or unusable index then fails here rather than
 * in production.
 */

const BOOK: BookSizes = {
  historyMonths: 1,
  paymentEveryDays: 9,
  longLedger: 300,
  subjectLoans: 25,
  parties: 3_000,
  loans: 3_000,
  bigParties: 3,
  loansPerBigParty: 200,
  openSessions: 20_000,
}

/** Tables with at least this many rows (by the planner's estimate) count as large. */
const LARGE = 2_000

/** Tables the book fills past `LARGE`: the check is void if the seeding stops filling them. */
const EXPECTED_LARGE = ['event_deliveries', 'event_delivery_attempts', 'onboarding_sessions', 'onboarding_addresses', 'parties', 'api_clients', 'api_keys', 'loans', 'loan_applications', 'loan_installments', 'loan_transactions', 'loan_balances', 'payments', 'payment_methods']

// The large book is live; test helpers take test keys only, and the test world's tables have the same indexes (worlds.test.ts).
const PARTNER_OPERATIONS = OPERATIONS.filter((op) => op.auth === 'partner' && op.testOnly !== true)

/** Fails listing every problem (a diff of a long list would be cut short). */
const expectNoProblems = (problems: readonly string[]): void => {
  if (problems.length > 0) expect.fail(`${problems.length} problem(s):\n${problems.join('\n\n')}`)
}

for (const database of testDatabases()) {
  describe(`query plans on a large book (${database.name})`, function () {
    this.timeout(600_000)
    let ran: LoggedStatement[] = []
    const log: QueryLog = (event) => {
      if (event.level === 'query') ran.push(event.query)
    }
    let scratch: ScratchDatabase
    let server: TestServer
    let book: BookSubject
    let large: string[]
    let deliveries: { readonly endpointId: string; readonly eventId: string }

    /** The large tables a statement's plan scans sequentially. */
    const largeSeqScans = async (statement: LoggedStatement): Promise<string[]> => (await sequentialScans(scratch.database, statement)).filter((table) => large.includes(table))

    before(async () => {
      scratch = await scratchDatabase(database.kind, log)
      book = await seedLargeBook(scratch.database, BOOK)
      deliveries = await seedWebhookDeliveries(scratch.database, [book.partyId, book.partnerPartyId], 1_500)
      large = await largeTables(scratch.database, LARGE)
      server = await startTestServer({ name: database.name, kind: database.kind, open: async () => scratch.database })
    })

    after(async () => {
      await server?.stop()
      await scratch?.drop()
    })

    it('fills the tables partner routes read past the planner\'s small-table threshold', () => {
      expect(large).to.include.members(EXPECTED_LARGE)
    })

    it('finds a sequential scan of a large table where no index serves the statement', async () => {
      const unindexed = await largeSeqScans({ sql: 'select id from loan_transactions where amount = $1', parameters: [1] })
      expect(unindexed).to.deep.equal(['loan_transactions'])
      expect(await largeSeqScans({ sql: 'select id from loan_transactions where loan_id = $1 order by seq limit 21', parameters: [book.longLedgerLoanId] })).to.deep.equal([])
    })

    it("runs no sequential scan of a large table on the console's reads: a session, an application, the delinquency queue, a loan, webhook deliveries", async () => {
      const records = await bookRecords(scratch.database, book)
      const loans = [book.seasonedLoanId, book.longLedgerLoanId]
      const reads = [
        `/internal/onboarding-sessions/${book.openSessionId}`,
        `/internal/applications/${records.draftApplicationId}`,
        `/internal/applications/${records.draftApplicationId}/schedule-preview`,
        ...loans.map((loanId) => `/internal/loans/${loanId}`),
        `/internal/webhook-endpoints/${deliveries.endpointId}/deliveries/${deliveries.eventId}`,
      ]
      const lists = [
        '/internal/onboarding-sessions?status=SUBMITTED',
        `/internal/onboarding-sessions/${book.openSessionId}/documents`,
        '/internal/applications?status=SUBMITTED',
        '/internal/loans',
        `/internal/loans?party_id=${book.partyId}`,
        ...DELINQUENCY_BUCKETS.map((bucket) => `/internal/loans?delinquency=${bucket}`),
        ...['ACTIVE', 'PAID_OFF', 'CHARGED_OFF'].map((status) => `/internal/loans?status=${status}`),
        ...['oldest_unpaid_due_date', '-principal'].flatMap((sort) => [`/internal/loans?sort=${sort}`, `/internal/loans?delinquency=DPD_1_30&sort=${sort}`, `/internal/loans?party_id=${book.partyId}&sort=${sort}`]),
        ...loans.flatMap((loanId) => ['schedule', 'transactions', 'payments', 'balances'].map((list) => `/internal/loans/${loanId}/${list}`)),
        '/internal/webhook-deliveries',
        '/internal/webhook-deliveries?status=failed',
        `/internal/webhook-deliveries?endpoint_id=${deliveries.endpointId}`,
        `/internal/webhook-deliveries?event_id=${deliveries.eventId}`,
      ]
      const problems: string[] = []
      let explained = 0
      const check = async (label: string): Promise<void> => {
        const statements = ran.filter(explainable)
        ran = []
        for (const statement of statements) {
          explained++
          const scans = await largeSeqScans(statement)
          if (scans.length > 0) problems.push(`${label}: sequential scan of ${scans.join(', ')}:\n${statement.sql}`)
        }
      }
      for (const path of reads) {
        ran = []
        const reply = await request(server.url, path, { headers: bearer(INTERNAL_TOKEN) })
        expect(reply.status, `${path}: ${reply.text}`).to.equal(200)
        await check(`GET ${path}`)
      }
      for (const path of lists) {
        ran = []
        const first = await request(server.url, `${path}${path.includes('?') ? '&' : '?'}limit=2`, { headers: bearer(INTERNAL_TOKEN) })
        expect(first.status, `${path}: ${first.text}`).to.equal(200)
        await check(`GET ${path} first page of 2`)
        const cursor = (first.body as { next_cursor?: unknown }).next_cursor
        if (typeof cursor !== 'string') continue
        const second = await request(server.url, `${path}${path.includes('?') ? '&' : '?'}limit=2&cursor=${encodeURIComponent(cursor)}`, { headers: bearer(INTERNAL_TOKEN) })
        expect(second.status, `${path}'s second page: ${second.text}`).to.equal(200)
        await check(`GET ${path} page by cursor`)
      }
      expect(explained).to.be.greaterThan(reads.length + lists.length)
      expectNoProblems(problems)
    })

    it("reads the portfolio's delinquency in one statement that reads the active loans once and each one's latest snapshot by index", async () => {
      ran = []
      const reply = await request(server.url, '/internal/portfolio/delinquency', { headers: bearer(INTERNAL_TOKEN) })
      expect(reply.status, reply.text).to.equal(200)
      const statements = ran.filter((statement) => explainable(statement) && /"loans"/.test(statement.sql))
      expect(statements, 'one query of the loans in the live world').to.have.length(1)
      // Every active loan is counted, so the book's loans are read whole; their snapshots never are.
      expect(await largeSeqScans(statements[0]!)).to.satisfy((scans: string[]) => scans.every((table) => table === 'loans'))
      const counted = (reply.body as { currencies: { buckets: { loans: number }[] }[] }).currencies.flatMap((c) => c.buckets).reduce((sum, b) => sum + b.loans, 0)
      expect(counted).to.be.greaterThan(BOOK.loans)
    })

    it("reads the event log only from the day a page starts: the days before `since`, or before the cursor's event, are pruned", async () => {
      const partner = await mintKey(server.url, { party_id: book.partnerPartyId, client_name: BOOK_PARTNER_CLIENT })
      // The middle of the partner's events: days on both sides of it hold some.
      const { client_id: clientId } = await scratch.database.db.selectFrom('parties').select('client_id').where('id', '=', book.partyId as PartyId).executeTakeFirstOrThrow()
      const times = await scratch.database.db.selectFrom('events').select('created_at').where('client_id', '=', clientId).orderBy('created_at').execute()
      const since = times[Math.floor(times.length / 2)]!.created_at
      const dayOf = (at: Date) => at.toISOString().slice(0, 10).replaceAll('-', '')
      const allDays = (await partitionsOf(scratch.database.db, 'events')).filter((name) => /^events_p\d{8}$/.test(name))
      expect(allDays.filter((name) => name.slice('events_p'.length) < dayOf(since)), 'days before the page').not.to.be.empty
      /** The day partitions the statements of the last request read. */
      const daysRead = async (): Promise<string[]> => {
        const statements = ran.filter((statement) => explainable(statement) && /"events"/.test(statement.sql))
        ran = []
        expect(statements, 'a read of the event log').not.to.be.empty
        return (await Promise.all(statements.map((statement) => relationsRead(scratch.database, statement)))).flat().filter((name) => /^events_p\d{8}$/.test(name))
      }
      ran = []
      const first = await request(server.url, `/public/events?since=${encodeURIComponent(since.toISOString())}&limit=2`, { headers: bearer(partner.api_key) })
      expect(first.status, first.text).to.equal(200)
      const fromSince = await daysRead()
      expect(fromSince, 'the days from since on').not.to.be.empty
      expect(fromSince.filter((name) => name.slice('events_p'.length) < dayOf(since))).to.deep.equal([])
      // The whole list, page after page, until a cursor's event is of since's day or later: that page reads from the cursor's day on.
      type EventPage = { data: { occurred_at: string }[]; next_cursor: string | null }
      let cursor: string | null = null
      let cursorDay = ''
      for (let pages = 0; cursorDay < dayOf(since) && pages < 100; pages++) {
        const page: { status: number; body: unknown } = await request(server.url, `/public/events?limit=50${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: bearer(partner.api_key) })
        expect(page.status).to.equal(200)
        const { data, next_cursor } = page.body as EventPage
        expect(next_cursor, 'the list goes on past since').to.be.a('string')
        cursor = next_cursor
        cursorDay = dayOf(new Date(data.at(-1)!.occurred_at))
      }
      ran = []
      const second = await request(server.url, `/public/events?limit=50&cursor=${encodeURIComponent(cursor!)}`, { headers: bearer(partner.api_key) })
      expect(second.status, second.text).to.equal(200)
      const fromCursor = await daysRead()
      expect(fromCursor).not.to.be.empty
      expect(fromCursor.filter((name) => name.slice('events_p'.length) < cursorDay)).to.deep.equal([])
    })

    it('runs no sequential scan of a large table on any partner route, first pages and pages by cursor', async () => {
      const partner = await mintKey(server.url, { party_id: book.partnerPartyId, client_name: BOOK_PARTNER_CLIENT })
      const borrower = await mintKey(server.url, { party_id: book.partyId, client_name: BOOK_BORROWER_CLIENT })
      const records = await bookRecords(scratch.database, book)
      const endpoint = await request(server.url, '/public/webhook-endpoints', { method: 'POST', headers: bearer(partner.api_key), json: { url: 'https://93.184.216.34/hooks/book', enabled_events: ['*'] } })
      expect(endpoint.status, endpoint.text).to.equal(201)
      const world = async (sessionId: string, loanId: string): Promise<IdMap> => ({
        sessionId,
        sessionAddressId: await records.sessionAddressId(sessionId),
        eventId: records.eventId,
        // A key of the partner's client of its own: the revocation below revokes it.
        apiKeyId: (await mintKey(server.url, { party_id: book.partnerPartyId, client_name: BOOK_PARTNER_CLIENT })).api_key_id,
        partyId: book.partyId,
        partyAddressId: records.partyAddressId,
        applicationId: records.draftApplicationId,
        loanId,
        paymentMethodId: await records.paymentMethodId(loanId),
        paymentId: await records.paymentId(loanId),
        productId: WORKING_CAPITAL,
        clockId: randomUUID(),
        endpointId: endpoint.body.webhook_endpoint_id as string,
        inboundFileId: randomUUID(),
        operatorRequestId: randomUUID(),
      })
      const worlds = [await world(book.approvedSessionId, book.seasonedLoanId), await world(book.openSessionId, book.longLedgerLoanId)]
      const keysFor = (op: Operation): MintedKey[] => {
        const owner = ownerOfPath(op)
        return owner === 'client' ? [partner] : owner === 'party' ? [borrower] : [partner, borrower]
      }

      const problems: string[] = []
      let explained = 0
      const routesExplained = new Set<string>()
      const pagedByCursor = new Set<string>()
      /** `EXPLAIN`s what ran since the last call, as `label`'s statements. */
      const check = async (op: Operation, label: string): Promise<void> => {
        const statements = ran.filter(explainable)
        ran = []
        for (const statement of statements) {
          explained++
          routesExplained.add(op.operationId)
          const scans = await largeSeqScans(statement)
          if (scans.length > 0) problems.push(`${label}: sequential scan of ${scans.join(', ')}:\n${statement.sql}`)
        }
        ran = []
      }
      // Reads first, so that the changes below do not decide what they find.
      const ordered = [...PARTNER_OPERATIONS.filter((op) => op.method === 'GET'), ...PARTNER_OPERATIONS.filter((op) => op.method !== 'GET')]
      for (const op of ordered) {
        for (const ids of worlds) {
          for (const key of keysFor(op)) {
            ran = []
            const reply = await callOperation(server, op, ids, bearer(key.api_key))
            await check(op, `${op.operationId} (${op.method} ${op.path}) → ${reply.status}`)
            if (op.method !== 'GET' || reply.status !== 200) continue
            // A list at its smallest page, then the page after it by cursor: the statement with a position.
            const first = await request(server.url, `${fillPath(op, ids)}?limit=2`, { headers: bearer(key.api_key) })
            await check(op, `${op.operationId} first page of 2 → ${first.status}`)
            const cursor = (first.body as { next_cursor?: unknown } | undefined)?.next_cursor
            if (typeof cursor !== 'string') continue
            const second = await request(server.url, `${fillPath(op, ids)}?limit=2&cursor=${encodeURIComponent(cursor)}`, { headers: bearer(key.api_key) })
            expect(second.status, `${op.operationId}'s second page: ${second.text}`).to.equal(200)
            await check(op, `${op.operationId} page by cursor → ${second.status}`)
            pagedByCursor.add(op.operationId)
          }
        }
      }
      expect(explained).to.be.greaterThan(100)
      expect([...routesExplained]).to.include.members(PARTNER_OPERATIONS.filter((op) => op.method === 'GET').map((op) => op.operationId))
      expect([...pagedByCursor]).to.include.members(['listLoansForParty', 'listTransactionsForPartyLoan', 'listLoanBalancesForParty', 'listPaymentsForPartyLoan', 'listLoanScheduleForParty', 'listApiKeys'])
      expect(explained).to.be.greaterThan(100)
      expectNoProblems(problems)
    })
  })
}
