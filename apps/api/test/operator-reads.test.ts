import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { allPages, bookLoan, type BookedLoan } from './support/booked-loan.js'
import { BORROWER_EMAIL, BORROWER_PHONE, BORROWER_PROFILE, onboardBorrower, submittedSession, type Borrower } from './support/borrower.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * What the console reads of any party (issue 60, docs/console.md): a session with what a reviewer
 * checks before deciding, an application with its schedule and APR, the delinquency queue, and a
 * loan's records, each the same as its party reads it.
 */

const DOCUMENT = {
  type: 'certificate_of_incorporation',
  storage_ref: 's3://partner-onboarding/acme/articles.pdf',
  file_name: 'articles.pdf',
  content_type: 'application/pdf',
}

for (const database of testDatabases()) {
  describe(`operators' reads on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower
    let other: Borrower
    let loan: BookedLoan
    let theirs: BookedLoan
    let sessionId: string

    const internal = (path: string, headers: Record<string, string> = {}): Promise<Reply> => request(server.url, path, { headers: { ...bearer(INTERNAL_TOKEN), ...headers } })
    const ok = async (path: string): Promise<any> => {
      const reply = await internal(path)
      expect(reply.status, `GET ${path}: ${reply.text}`).to.equal(200)
      return reply.body
    }
    const asParty = async (path: string, b: Borrower = borrower): Promise<any> => {
      const reply = await request(server.url, path, { headers: bearer(b.key.api_key) })
      expect(reply.status, `GET ${path}: ${reply.text}`).to.equal(200)
      return reply.body
    }
    /** Every row of an internal list, page after page. */
    const everyRow = async (path: string): Promise<Record<string, any>[]> => allPages(server, INTERNAL_TOKEN, path)

    before(async () => {
      receiver = await startCodeReceiver()
      // Jobs run: a test clock's advance is one.
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url, runJobs: true })
      borrower = await onboardBorrower(server, receiver)
      other = await onboardBorrower(server, receiver)
      loan = await bookLoan(server, borrower)
      theirs = await bookLoan(server, other)
      // A session waiting for review, with a document its partner sent before submitting it.
      sessionId = await submittedSession(server, receiver, await mintKey(server.url), { documents: [DOCUMENT] })
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    describe('a session before its review', () => {
      it('getOnboardingSessionForReview shows its contacts verified, its profile (tax id masked) and its addresses', async () => {
        const session = await ok(`/internal/onboarding-sessions/${sessionId}`)
        expect(session).to.include({ session_id: sessionId, status: 'SUBMITTED', party_id: null, review: null, livemode: true })
        expect(session.email).to.include({ value: BORROWER_EMAIL, verified: true })
        expect(session.phone).to.include({ value: BORROWER_PHONE, verified: true })
        expect(session.email.verified_at).to.match(/^\d{4}-\d{2}-\d{2}T/)
        expect(session.applicant_profile).to.include({ legal_name: BORROWER_PROFILE.legal_name })
        expect(session.addresses.map((a: { type: string }) => a.type)).to.deep.equal(['registered'])
        expect(session.applicant_profile.tax_id_masked).to.match(/6789$/)
        expect(JSON.stringify(session)).not.to.include(BORROWER_PROFILE.tax_id)
      })

      it('listOnboardingDocumentsForReview lists the documents its partner sent', async () => {
        const page = await ok(`/internal/onboarding-sessions/${sessionId}/documents`)
        expect(page.next_cursor).to.equal(null)
        expect(page.data).to.have.length(1)
        expect(page.data[0]).to.include({ type: DOCUMENT.type, file_name: DOCUMENT.file_name, livemode: true })
      })

      it('an unknown session is 404 and an id that is not a UUID 400, on both', async () => {
        for (const path of ['', '/documents']) {
          const unknown = await internal(`/internal/onboarding-sessions/4f1d2c3b-0000-4000-8000-000000000000${path}`)
          expect(unknown.status, unknown.text).to.equal(404)
          expect(unknown.body.error).to.equal('not_found')
          expect((await internal(`/internal/onboarding-sessions/not-a-uuid${path}`)).status).to.equal(400)
        }
      })
    })

    describe('an application before its decision', () => {
      let applicationId: string
      before(async () => {
        const draft = await request(server.url, '/public/applications', {
          method: 'POST',
          headers: bearer(borrower.key.api_key),
          json: { product_id: loan.loan['product_id'], amount: 500_000, currency: 'USD', term_months: 6 },
        })
        expect(draft.status, draft.text).to.equal(201)
        applicationId = draft.body.application_id as string
        const submitted = await request(server.url, `/public/applications/${applicationId}/submit`, { method: 'POST', headers: bearer(borrower.key.api_key), json: {} })
        expect(submitted.status, submitted.text).to.equal(200)
      })

      it('getLoanApplicationForReview answers what its party reads', async () => {
        expect(await ok(`/internal/applications/${applicationId}`)).to.deep.equal(await asParty(`/public/applications/${applicationId}`))
      })

      it("previewLoanApplicationScheduleForReview answers its party's preview, APR included, on the same start date", async () => {
        const path = `/internal/applications/${applicationId}/schedule-preview?start_date=2027-01-15`
        const preview = await ok(path)
        expect(preview).to.deep.equal(await asParty(`/public/applications/${applicationId}/schedule-preview?start_date=2027-01-15`))
        expect(preview.start_date).to.equal('2027-01-15')
        expect(preview.installments).to.have.length(6)
        // 12 % a year with a 2 % fee taken from the disbursement: the APR is above the rate.
        expect(preview.disclosure.annual_percentage_rate).to.match(/^\d+\.\d{3}$/)
        expect(Number(preview.disclosure.annual_percentage_rate)).to.be.greaterThan(preview.interest_rate_bps / 100)
      })

      it('an unknown application is 404; a bad start date 400', async () => {
        expect((await internal('/internal/applications/4f1d2c3b-0000-4000-8000-000000000000')).status).to.equal(404)
        expect((await internal('/internal/applications/4f1d2c3b-0000-4000-8000-000000000000/schedule-preview')).status).to.equal(404)
        expect((await internal(`/internal/applications/${applicationId}/schedule-preview?start_date=tomorrow`)).status).to.equal(400)
      })
    })

    describe('loans of every party', () => {
      it("listLoans lists every party's loans, oldest first, and one party's with party_id", async () => {
        const all = await everyRow('/internal/loans')
        const ids = all.map((l) => l['loan_id'])
        expect(ids).to.include.members([loan.loanId, theirs.loanId])
        expect(ids.indexOf(loan.loanId)).to.be.lessThan(ids.indexOf(theirs.loanId))
        const mine = await everyRow(`/internal/loans?party_id=${borrower.partyId}`)
        expect(mine.map((l) => l['loan_id'])).to.deep.equal([loan.loanId])
        expect(mine[0]).to.include({ days_past_due: 0, delinquency_bucket: 'CURRENT', livemode: true })
      })

      it('listLoans filters by delinquency bucket: freshly booked loans are current, none is 1–30 days past due', async () => {
        const current = (await everyRow('/internal/loans?delinquency=CURRENT')).map((l) => l['loan_id'])
        expect(current).to.include.members([loan.loanId, theirs.loanId])
        const late = (await everyRow('/internal/loans?delinquency=DPD_1_30')).map((l) => l['loan_id'])
        expect(late).to.not.include.members([loan.loanId])
        expect(late).to.not.include(theirs.loanId)
      })

      it("a charged-off loan leaves the portfolio's buckets and the queue, and is listed by its status", async () => {
        const written = await bookLoan(server, other)
        const before = await ok('/internal/portfolio/delinquency')
        const charged = await request(server.url, `/internal/loans/${written.loanId}/charge-off`, { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: { reason: 'Borrower ceased trading' } })
        expect(charged.status, charged.text).to.equal(200)
        const after = await ok('/internal/portfolio/delinquency')
        const current = (summary: any) => summary.currencies.find((c: { currency: string }) => c.currency === 'USD').buckets[0]
        expect(current(after)).to.deep.equal({
          bucket: 'CURRENT',
          loans: current(before).loans - 1,
          principal_outstanding: current(before).principal_outstanding - written.loan['principal'],
          past_due_amount: current(before).past_due_amount,
        })
        expect(after).to.include({ livemode: true })
        expect(after.as_of).to.match(/^\d{4}-\d{2}-\d{2}T/)
        const queue = (await everyRow('/internal/loans?delinquency=CURRENT')).map((l) => l['loan_id'])
        expect(queue).to.include(loan.loanId).and.not.include(written.loanId)
        const chargedOff = await everyRow('/internal/loans?status=CHARGED_OFF')
        expect(chargedOff.map((l) => l['loan_id'])).to.include(written.loanId).and.not.include(loan.loanId)
        expect(chargedOff.every((l) => l['status'] === 'CHARGED_OFF')).to.equal(true)
        // The partner's own list still shows the loan in the bucket its view shows.
        const ownList = await asParty(`/public/parties/${other.partyId}/loans?delinquency=CURRENT`, other)
        expect(ownList.data.map((l: { loan_id: string }) => l.loan_id)).to.include(written.loanId)
      })

      it('listLoans sorts by the oldest unpaid installment (the longest past due) or largest first, each order paged by its own cursors', async () => {
        // Pages of two, so that every order is read through its cursors.
        const pages = async (path: string): Promise<Record<string, any>[]> => allPages(server, INTERNAL_TOKEN, path, 2)
        const bySort = { created_at: await pages('/internal/loans'), 'oldest_unpaid_due_date': await pages('/internal/loans?sort=oldest_unpaid_due_date'), '-principal': await pages('/internal/loans?sort=-principal') }
        const ids = (rows: Record<string, any>[]) => rows.map((l) => l['loan_id'] as string)
        // The same loans in each order, each once.
        for (const rows of Object.values(bySort)) expect(ids(rows)).to.have.members(ids(bySort.created_at)).and.have.length(new Set(ids(rows)).size)
        const principals = bySort['-principal'].map((l) => l['principal'] as number)
        expect(principals).to.deep.equal([...principals].sort((a, b) => b - a))
        const pastDue = bySort['oldest_unpaid_due_date'].filter((l) => l['status'] === 'ACTIVE').map((l) => l['days_past_due'] as number)
        expect(pastDue).to.deep.equal([...pastDue].sort((a, b) => b - a))
        const first = await ok('/internal/loans?sort=-principal&limit=1')
        const crossed = await internal(`/internal/loans?sort=oldest_unpaid_due_date&cursor=${first.next_cursor}`)
        expect(crossed.status, crossed.text).to.equal(400)
        expect(crossed.body).to.include({ error: 'invalid_request', param: 'cursor' })
        expect((await internal(`/internal/loans?cursor=${first.next_cursor}`)).status).to.equal(400)
      })

      it("getDelinquencySummary refuses any query parameter (400), and every bucket is listed in order", async () => {
        const reply = await internal('/internal/portfolio/delinquency?delinquency=CURRENT')
        expect(reply.status, reply.text).to.equal(400)
        expect(reply.body.error).to.equal('invalid_request')
        const summary = await ok('/internal/portfolio/delinquency')
        for (const { buckets } of summary.currencies) expect(buckets.map((b: { bucket: string }) => b.bucket)).to.deep.equal(['CURRENT', 'DPD_1_30', 'DPD_31_60', 'DPD_61_90', 'DPD_90_PLUS'])
        expect(summary.currencies.map((c: { currency: string }) => c.currency)).to.include('USD')
      })

      it('listLoans refuses an unknown bucket, a party id that is not a UUID and an unknown parameter (400)', async () => {
        for (const query of ['delinquency=LATE', 'party_id=acme', 'status=LATE', 'sort=principal']) {
          const reply = await internal(`/internal/loans?${query}`)
          expect(reply.status, `${query}: ${reply.text}`).to.equal(400)
          expect(reply.body.error).to.equal('invalid_request')
        }
      })

      it("getLoan answers what the loan's party reads", async () => {
        for (const [booked, owner] of [[loan, borrower], [theirs, other]] as const) {
          expect(await ok(`/internal/loans/${booked.loanId}`)).to.deep.equal(await asParty(booked.paths.loan, owner))
        }
      })

      it("the schedule, ledger, payments and balances are the party's own, page after page", async () => {
        for (const [booked, owner] of [[loan, borrower], [theirs, other]] as const) {
          const internalPath = `/internal/loans/${booked.loanId}`
          for (const [list, partyPath] of [
            ['schedule', booked.paths.schedule],
            ['transactions', booked.paths.transactions],
            ['payments', booked.paths.payments],
            ['balances', booked.paths.balances],
          ] as const) {
            const theirsAsRead = await allPages(server, owner.key.api_key, partyPath, 2)
            expect(await allPages(server, INTERNAL_TOKEN, `${internalPath}/${list}`, 2), list).to.deep.equal(theirsAsRead)
            if (list !== 'payments') expect(theirsAsRead, list).to.not.have.length(0)
          }
        }
      })

      it('a ledger read keeps its filters', async () => {
        const opening = await ok(`/internal/loans/${loan.loanId}/transactions?type=DISBURSEMENT`)
        expect(opening.data.map((t: { type: string }) => t.type)).to.deep.equal(['DISBURSEMENT'])
        expect((await internal(`/internal/loans/${loan.loanId}/transactions?type=GIFT`)).status).to.equal(400)
      })

      it('a read names no party: partyId is refused (400), an unknown loan is 404', async () => {
        const named = await internal(`/internal/loans/${loan.loanId}/schedule?partyId=${other.partyId}`)
        expect(named.status, named.text).to.equal(400)
        expect(named.body.param).to.equal('partyId')
        for (const list of ['', '/schedule', '/transactions', '/payments', '/balances']) {
          const reply = await internal(`/internal/loans/4f1d2c3b-0000-4000-8000-000000000000${list}`)
          expect(reply.status, `${list}: ${reply.text}`).to.equal(404)
          expect(reply.body.error).to.equal('not_found')
        }
      })

      it("reads a test-world loan on its party's test clock, as the party's own key does", async () => {
        // A partner's sandbox: a borrower on a test clock, a loan booked on it, the clock moved 45 days on.
        const tester = await onboardBorrower(server, receiver, { world: 'test' })
        const asTester = (method: string, path: string, json?: unknown) => request(server.url, path, { method, headers: bearer(tester.key.api_key), ...(json === undefined ? {} : { json }) })
        const created = await asTester('POST', '/public/test-helpers/clocks', {})
        expect(created.status, created.text).to.equal(201)
        const sandboxLoan = await bookLoan(server, tester)
        const clockPath = `/public/test-helpers/clocks/${created.body.test_clock_id as string}`
        const advanced = await asTester('POST', `${clockPath}/advance`, { frozen_time: new Date(Date.parse(created.body.frozen_time as string) + 45 * 86_400_000).toISOString() })
        expect(advanced.status, advanced.text).to.equal(200)
        for (const deadline = Date.now() + 60_000; (await asTester('GET', clockPath)).body.status !== 'ready'; await new Promise((resolve) => setTimeout(resolve, 50))) {
          if (Date.now() > deadline) expect.fail('the test clock is still advancing')
        }
        const test = { 'Lendgate-Mode': 'test' }
        const asOperator = await internal(`/internal/loans/${sandboxLoan.loanId}`, test)
        expect(asOperator.body).to.deep.equal(await asParty(sandboxLoan.paths.loan, tester))
        expect(asOperator.body).to.include({ delinquency_bucket: 'DPD_1_30', livemode: false })
        const queue = async (bucket: string) => (await internal(`/internal/loans?delinquency=${bucket}&limit=100`, test)).body.data.map((l: { loan_id: string }) => l.loan_id)
        expect(await queue('DPD_1_30')).to.include(sandboxLoan.loanId)
        expect(await queue('CURRENT')).to.not.include(sandboxLoan.loanId)
        const schedule = await internal(`/internal/loans/${sandboxLoan.loanId}/schedule?limit=100`, test)
        expect(schedule.body).to.deep.equal(await asParty(`${sandboxLoan.paths.schedule}?limit=100`, tester))
        expect(schedule.body.data[0].status).to.equal('LATE')
      })

      it("the test world's list holds none of the live world's loans", async () => {
        const reply = await internal('/internal/loans?limit=100', { 'Lendgate-Mode': 'test' })
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body.data.map((l: { loan_id: string }) => l.loan_id)).to.not.include.members([loan.loanId])
        expect(reply.body.data.map((l: { loan_id: string }) => l.loan_id)).to.not.include(theirs.loanId)
        expect((await internal(`/internal/loans/${loan.loanId}`, { 'Lendgate-Mode': 'test' })).status).to.equal(404)
      })
    })
  })
}
