import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { OPERATIONS } from '../src/routes/operations.js'
import { WORKING_CAPITAL } from './support/booked-loan.js'
import { mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { requestsTo, submittedTestSession } from './support/test-mode-borrower.js'
import { operatorHeaders, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Test mode from a partner's side (issue 56, decision 130): a borrower goes from onboarding to a
 * booked loan, a payment and its return through test keys and the test helpers alone, with no
 * operator token and no delivery URL; the helpers refuse live keys and another client's or
 * party's records; nothing of it shows in the live world.
 */

const TEST_HELPERS = OPERATIONS.filter((op) => op.path.startsWith('/public/test-helpers/'))

for (const database of testDatabases()) {
  describe(`test mode through the partner API alone, on ${database.name}`, () => {
    let server: TestServer
    const { call, ok } = requestsTo(() => server)

    const submitted = (partner: MintedKey): Promise<string> => submittedTestSession(server, partner)

    before(async () => {
      // No delivery URL: the test world sends no code.
      server = await startTestServer(database)
    })
    after(async () => {
      await server.stop()
    })

    it('takes a borrower from onboarding to a booked loan, a payment and its return, with test keys only', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const sessionId = await submitted(partner)
      const approval = await ok(partner, 'POST', `/public/test-helpers/onboarding-sessions/${sessionId}/approve`, {}, 200)
      expect(approval.session).to.deep.include({ session_id: sessionId, status: 'APPROVED' })
      const partyId = approval.party.party_id as string
      expect((await ok(partner, 'GET', `/public/onboarding-sessions/${sessionId}/party`, undefined, 200)).party_id).to.equal(partyId)

      const borrower = await mintKey(server.url, { party_id: partyId, environment: 'test' })
      const draft = await ok(borrower, 'POST', '/public/applications', { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }, 201)
      const applicationId = draft.application_id as string
      await ok(borrower, 'POST', `/public/applications/${applicationId}/submit`, {}, 200)
      const booked = await ok(borrower, 'POST', `/public/test-helpers/applications/${applicationId}/approve`, {}, 200)
      expect(booked.application).to.deep.include({ application_id: applicationId, status: 'APPROVED' })
      expect(booked.loan).to.deep.include({ party_id: partyId, status: 'ACTIVE', principal: 1_200_000 })
      const loan = `/public/parties/${partyId}/loans/${booked.loan.loan_id as string}`

      const method = await ok(borrower, 'POST', `${loan}/payment-methods`, { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: '000123456789' }, 201)
      const paid = await ok(borrower, 'POST', `${loan}/payments`, { amount: 50_000, currency: 'USD', payment_method_id: method.payment_method_id }, 201, { 'Idempotency-Key': randomUUID() })
      expect(paid.status).to.equal('SUCCEEDED')
      const before = await ok(borrower, 'GET', `${loan}/payoff`, undefined, 200)

      const returned = await ok(borrower, 'POST', `/public/test-helpers/parties/${partyId}/loans/${booked.loan.loan_id as string}/payments/${paid.payment_id as string}/return`, { return_code: 'R02' }, 200)
      expect(returned).to.deep.include({ payment_id: paid.payment_id, status: 'REVERSED' })
      const after = await ok(borrower, 'GET', `${loan}/payoff`, undefined, 200)
      expect(after.payoff_amount, 'the return restores what the payment paid').to.be.greaterThan(before.payoff_amount)
      const again = await call(borrower, 'POST', `/public/test-helpers/parties/${partyId}/loans/${booked.loan.loan_id as string}/payments/${paid.payment_id as string}/return`, {})
      expect([again.status, again.body.error]).to.deep.equal([409, 'invalid_state'])

      // Nothing of it exists in the live world, even for a live key of the same party and client.
      const liveBorrower = await mintKey(server.url, { party_id: partyId, client_name: borrower.client_name })
      expect((await call(liveBorrower, 'GET', `/public/parties/${partyId}/loans`)).body).to.deep.equal({ data: [], next_cursor: null })
      expect((await call(liveBorrower, 'GET', loan)).status).to.equal(404)
    })

    it('rejects a session and declines an application as the operator would, with their reasons', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const rejected = await ok(partner, 'POST', `/public/test-helpers/onboarding-sessions/${await submitted(partner)}/reject`, { reason: 'test: incomplete documents' }, 200)
      expect(rejected.status).to.equal('REJECTED')

      const approved = await ok(partner, 'POST', `/public/test-helpers/onboarding-sessions/${await submitted(partner)}/approve`, {}, 200)
      const borrower = await mintKey(server.url, { party_id: approved.party.party_id, environment: 'test' })
      const draft = await ok(borrower, 'POST', '/public/applications', { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }, 201)
      await ok(borrower, 'POST', `/public/applications/${draft.application_id as string}/submit`, {}, 200)
      const declined = await ok(borrower, 'POST', `/public/test-helpers/applications/${draft.application_id as string}/decline`, { reason: 'test: thin file' }, 200)
      expect(declined.status).to.equal('DECLINED')
      // A decision taken stays taken.
      const twice = await call(borrower, 'POST', `/public/test-helpers/applications/${draft.application_id as string}/approve`, {})
      expect([twice.status, twice.body.error]).to.deep.equal([409, 'invalid_state'])
    })

    it('refuses every test helper to a live key with 403 test_mode_only, before looking at anything', async () => {
      const live = await mintKey(server.url)
      expect(TEST_HELPERS.length).to.be.greaterThanOrEqual(5)
      for (const op of TEST_HELPERS) {
        const path = op.path.replace(':partyId', live.party_id).replace(/:[A-Za-z]+/g, () => randomUUID())
        const reply = await call(live, op.method, path, op.method === 'GET' ? undefined : {})
        expect([reply.status, reply.body], `${op.operationId}: ${reply.text}`).to.deep.equal([
          403,
          { error: 'test_mode_only', detail: 'Test helpers act on the test world: call them with a test key (lgk_test_…).' },
        ])
      }
    })

    it('lets an operator act on the test world with Lendgate-Mode: test, and refuses any other mode by name', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const sessionId = await submitted(partner)
      const review = (mode: string, cursor?: string) =>
        request(server.url, `/internal/onboarding-sessions?status=SUBMITTED&limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, {
          headers: { ...operatorHeaders('live'), 'Lendgate-Mode': mode },
        })
      /** Every submitted session the operator sees in `mode`'s world, page after page. */
      const everySubmitted = async (mode: string): Promise<{ session_id: string; livemode: boolean }[]> => {
        const seen: { session_id: string; livemode: boolean }[] = []
        for (let cursor: string | undefined, page = 0; page === 0 || cursor !== undefined; page++) {
          const reply = await review(mode, cursor)
          expect(reply.status, reply.text).to.equal(200)
          seen.push(...(reply.body.data as { session_id: string; livemode: boolean }[]))
          cursor = (reply.body.next_cursor as string | null) ?? undefined
        }
        return seen
      }
      const inTest = await everySubmitted('test')
      expect(inTest.map((s) => s.session_id)).to.include(sessionId)
      expect(inTest.every((s) => s.livemode === false)).to.equal(true)
      expect((await everySubmitted('live')).map((s) => s.session_id)).to.not.include(sessionId)
      const wrong = await review('sandbox')
      expect([wrong.status, wrong.body.param]).to.deep.equal([400, 'Lendgate-Mode'])
    })

    it("answers 404 for another client's session and another party's application in the test world", async () => {
      const owner = await mintKey(server.url, { environment: 'test' })
      const sessionId = await submitted(owner)
      const stranger = await mintKey(server.url, { environment: 'test' })
      const reply = await call(stranger, 'POST', `/public/test-helpers/onboarding-sessions/${sessionId}/approve`, {})
      expect([reply.status, reply.body.error]).to.deep.equal([404, 'not_found'])
      // The session is still waiting for its decision.
      expect((await ok(owner, 'GET', `/public/onboarding-sessions/${sessionId}`, undefined, 200)).status).to.equal('SUBMITTED')
    })
  })
}

const DAY_MS = 86_400_000

for (const database of testDatabases()) {
  describe(`test clocks (decision 131) on ${database.name}`, () => {
    let server: TestServer
    const { call, ok } = requestsTo(() => server)
    /** A test-world borrower with a booked loan: its partner's session approved by the helper, its application too. */
    const borrowerWithLoan = async (clock?: { readonly frozen_time: string }) => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const id = await submittedTestSession(server, partner)
      const partyId = (await ok(partner, 'POST', `/public/test-helpers/onboarding-sessions/${id}/approve`, {}, 200)).party.party_id as string
      const borrower = await mintKey(server.url, { party_id: partyId, environment: 'test' })
      const testClock = clock === undefined ? undefined : await ok(borrower, 'POST', '/public/test-helpers/clocks', clock, 201)
      const draft = await ok(borrower, 'POST', '/public/applications', { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }, 201)
      await ok(borrower, 'POST', `/public/applications/${draft.application_id as string}/submit`, {}, 200)
      const loan = (await ok(borrower, 'POST', `/public/test-helpers/applications/${draft.application_id as string}/approve`, {}, 200)).loan
      return { partyId, borrower, testClock, loan, loanPath: `/public/parties/${partyId}/loans/${loan.loan_id as string}` }
    }
    /** The clock once its advance is done (polled as a partner would). */
    const whenReady = async (borrower: MintedKey, clockId: string): Promise<Reply['body']> => {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        const clock = await ok(borrower, 'GET', `/public/test-helpers/clocks/${clockId}`, undefined, 200)
        if (clock.status === 'ready') return clock
      }
      throw new Error(`test clock ${clockId} still advancing after 60 s:\n${server.logs.raw().split('\n').filter((l) => !l.includes('"msg":"request"')).join('\n')}`)
    }

    before(async () => {
      server = await startTestServer(database, { runJobs: true })
    })
    after(async () => {
      await server.stop()
    })

    it('takes a test loan 90 days past due in one advance, day by day as the daily job would, then to paid off', async function () {
      this.timeout(90_000)
      const start = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS + 15 * 3_600_000)
      const { borrower, testClock, loan, loanPath } = await borrowerWithLoan({ frozen_time: start.toISOString() })
      expect(testClock).to.deep.include({ status: 'ready', frozen_time: start.toISOString(), advancing_to: null, livemode: false })
      // Booked on the clock's day (in the loan's time zone), not today's.
      const booked = await ok(borrower, 'GET', loanPath, undefined, 200)
      expect(booked.start_date, "booked on the clock's date (15:00 UTC is that date in the loan's time zone)").to.equal(start.toISOString().slice(0, 10))
      expect(loan.status).to.equal('ACTIVE')

      const target = new Date(start.getTime() + 130 * DAY_MS)
      const advancing = await ok(borrower, 'POST', `/public/test-helpers/clocks/${testClock.test_clock_id as string}/advance`, { frozen_time: target.toISOString() }, 200)
      expect(advancing).to.deep.include({ status: 'advancing', advancing_to: target.toISOString() })
      // The same advance again is the same request; another destination waits its turn.
      expect((await ok(borrower, 'POST', `/public/test-helpers/clocks/${testClock.test_clock_id as string}/advance`, { frozen_time: target.toISOString() }, 200)).test_clock_id).to.equal(testClock.test_clock_id)
      const elsewhere = await call(borrower, 'POST', `/public/test-helpers/clocks/${testClock.test_clock_id as string}/advance`, { frozen_time: new Date(target.getTime() + DAY_MS).toISOString() })
      if (elsewhere.status !== 200) expect([elsewhere.status, elsewhere.body.error]).to.deep.equal([409, 'invalid_state'])

      const ready = await whenReady(borrower, testClock.test_clock_id as string)
      expect(ready).to.deep.include({ frozen_time: target.toISOString(), advancing_to: null })
      const late = await ok(borrower, 'GET', loanPath, undefined, 200)
      expect(late.days_past_due, JSON.stringify(late)).to.be.at.least(90)
      const delinquent = await ok(borrower, 'GET', `/public/parties/${late.party_id as string}/loans?delinquency=${late.delinquency_bucket as string}`, undefined, 200)
      expect(delinquent.data.map((l: { loan_id: string }) => l.loan_id)).to.deep.equal([loan.loan_id])
      const ledger = await ok(borrower, 'GET', `${loanPath}/transactions?limit=100`, undefined, 200)
      expect(ledger.data.filter((t: { type: string }) => t.type === 'INTEREST_ACCRUAL').length, 'interest accrued as the days went by').to.be.greaterThan(3)
      // Each day crossed is audited as the daily job's run is, as the party's, in the test world only.
      const runs = await request(server.url, `/internal/audit-events?party_id=${late.party_id as string}&action=interest_accrual.completed&limit=100`, { headers: operatorHeaders('test') })
      expect(runs.status, runs.text).to.equal(200)
      const days = (runs.body.data as { details: { as_of: string; loans_examined: number } }[]).map((e) => [e.details.as_of, e.details.loans_examined])
      const expectedDays = Array.from({ length: 100 }, (_, n) => [new Date(target.getTime() - n * DAY_MS).toISOString().slice(0, 10), 1])
      expect(days, 'the newest 100 runs, one a day back from the destination').to.deep.equal(expectedDays)
      const live = await request(server.url, `/internal/audit-events?party_id=${late.party_id as string}&action=interest_accrual.completed`, { headers: operatorHeaders('live') })
      expect(live.body.data).to.deep.equal([])

      // Paid off at the clock's time: the payoff quote then a payment of it.
      const payoff = await ok(borrower, 'GET', `${loanPath}/payoff`, undefined, 200)
      const method = await ok(borrower, 'POST', `${loanPath}/payment-methods`, { type: 'bank_account', account_holder_name: 'Acme', routing_number: '110000000', account_number: '000123456789' }, 201)
      const paid = await ok(borrower, 'POST', `${loanPath}/payments`, { amount: payoff.payoff_amount, currency: 'USD', payment_method_id: method.payment_method_id }, 201, { 'Idempotency-Key': randomUUID() })
      expect(paid.status).to.equal('SUCCEEDED')
      expect((await ok(borrower, 'GET', loanPath, undefined, 200)).status).to.equal('PAID_OFF')
    })

    it('refuses a clock in the past, a second clock, an advance backwards or of more than two years, and another party\'s clock', async () => {
      const { borrower, testClock } = await borrowerWithLoan({ frozen_time: new Date(Date.now() + DAY_MS).toISOString() })
      const clockPath = `/public/test-helpers/clocks/${testClock.test_clock_id as string}`
      const second = await call(borrower, 'POST', '/public/test-helpers/clocks', {})
      expect([second.status, second.body.error]).to.deep.equal([409, 'conflict'])
      const backwards = await call(borrower, 'POST', `${clockPath}/advance`, { frozen_time: new Date(Date.now()).toISOString() })
      expect([backwards.status, backwards.body.param]).to.deep.equal([400, 'frozen_time'])
      const far = await call(borrower, 'POST', `${clockPath}/advance`, { frozen_time: new Date(Date.now() + 800 * DAY_MS).toISOString() })
      expect([far.status, far.body.param]).to.deep.equal([400, 'frozen_time'])
      const { borrower: other } = await borrowerWithLoan()
      const past = await call(other, 'POST', '/public/test-helpers/clocks', { frozen_time: new Date(Date.now() - 3_600_000).toISOString() })
      expect([past.status, past.body.param]).to.deep.equal([400, 'frozen_time'])
      expect((await call(other, 'GET', clockPath)).status, "another party's clock").to.equal(404)
      expect((await call(other, 'POST', `${clockPath}/advance`, { frozen_time: new Date(Date.now() + 2 * DAY_MS).toISOString() })).status).to.equal(404)
    })

    it("leaves a loan on a clock to its clock: the daily job moves the others and not it", async () => {
      const clocked = await borrowerWithLoan({ frozen_time: new Date(Date.now() + 3 * DAY_MS).toISOString() })
      const plain = await borrowerWithLoan()
      const before = await ok(clocked.borrower, 'GET', `${clocked.loanPath}/transactions?limit=100`, undefined, 200)
      const run = await request(server.url, '/internal/jobs/accrue-interest', { method: 'POST', headers: operatorHeaders('test') })
      expect(run.status, run.text).to.equal(200)
      expect(await ok(clocked.borrower, 'GET', `${clocked.loanPath}/transactions?limit=100`, undefined, 200)).to.deep.equal(before)
      expect((await ok(plain.borrower, 'GET', plain.loanPath, undefined, 200)).status).to.equal('ACTIVE')
    })
  })
}
