import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { allPages, bookLoan, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { asOperator, signedIn, type Signed } from './support/operators.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Maker-checker over HTTP (issue 60, decision 152): a servicing operator asks for a payment
 * reversal or a charge-off and previews it; nothing changes until another operator holding
 * `service_loans` approves, which carries it out in the same transaction; the maker cannot
 * approve their own, a reviewer cannot decide, the internal token cannot ask, and a person cannot
 * act alone on the direct routes.
 */

/** A preview without what each planning draws afresh: its entries' ids and times. */
const withoutIds = (preview: Record<string, any>) => ({
  ...preview,
  transactions: preview['transactions'].map(({ transaction_id: _t, created_at: _c, ...entry }: Record<string, unknown>) => entry),
})

const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }

/** An approval's body naming no preview: for approvals refused before the preview is compared. */
const ANY_VERSION = { preview_version: 'none.2026-01-01' }

for (const database of testDatabases()) {
  describe(`maker-checker on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower
    let maker: Signed
    let checker: Signed

    const asBorrower = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      request(server.url, path, { method, headers: { ...bearer(borrower.key.api_key), ...headers }, ...(json === undefined ? {} : { json }) })
    /** A booked loan with one succeeded payment of 500.00. */
    const paidLoan = async (): Promise<{ readonly loan: BookedLoan; readonly paymentId: string }> => {
      const loan = await bookLoan(server, borrower)
      const method = await asBorrower('POST', loan.paths.paymentMethods, BANK_ACCOUNT)
      expect(method.status, method.text).to.equal(201)
      const paid = await asBorrower('POST', loan.paths.payments, { amount: 50_000, currency: 'USD', payment_method_id: method.body.payment_method_id }, { 'Idempotency-Key': randomUUID() })
      expect(paid.status, paid.text).to.equal(201)
      return { loan, paymentId: paid.body.payment_id as string }
    }
    const ok = async (reply: Promise<Reply>, status = 200): Promise<any> => {
      const answered = await reply
      expect(answered.status, answered.text).to.equal(status)
      return answered.body
    }
    const ledgerOf = (loan: BookedLoan) => allPages(server, borrower.key.api_key, loan.paths.transactions)
    const paymentOf = async (loan: BookedLoan, paymentId: string) => (await allPages(server, borrower.key.api_key, loan.paths.payments)).find((p) => p['payment_id'] === paymentId)

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      borrower = await onboardBorrower(server, receiver)
      maker = await signedIn(server, 'servicing')
      checker = await signedIn(server, 'servicing')
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    it('reverses a payment only once a second operator approves, after both saw what it would do', async () => {
      const { loan, paymentId } = await paidLoan()
      const ask = { kind: 'payment_reversal', payment_id: paymentId, reason: 'ACH return R01 by phone' }
      const ledgerBefore = await ledgerOf(loan)

      const preview = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests/preview', ask))
      expect(preview).to.include({ kind: 'payment_reversal', loan_id: loan.loanId, payment_id: paymentId, status_before: 'ACTIVE', status_after: 'ACTIVE', livemode: true })
      expect(preview.transactions.map((t: { type: string }) => t.type)).to.include('REVERSAL')
      expect(preview.after.principal_outstanding - preview.before.principal_outstanding).to.equal(preview.transactions.find((t: { type: string }) => t.type === 'REVERSAL').principal)
      expect(preview.payment).to.deep.equal({ payment_id: paymentId, amount: 50_000, effective_date: (await paymentOf(loan, paymentId))!['effective_date'] })

      const asked = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests', ask), 201)
      expect(asked).to.include({ kind: 'payment_reversal', payment_id: paymentId, loan_id: loan.loanId, state: 'PENDING', requested_by: maker.operatorId, decided_by: null })
      const path = `/internal/operator-requests/${asked.operator_request_id as string}`
      // Asked and previewed: nothing changed.
      expect(await ledgerOf(loan)).to.deep.equal(ledgerBefore)
      expect((await paymentOf(loan, paymentId))!['status']).to.equal('SUCCEEDED')
      // The checker's preview: the same action, planned afresh (its entries' ids and times are new).
      const checked = await ok(asOperator(server, checker, 'GET', `${path}/preview`))
      expect(withoutIds(checked)).to.deep.equal(withoutIds(preview))
      const seen = { preview_version: checked.preview_version as string }
      const inbox = await allPages(server, INTERNAL_TOKEN, '/internal/operator-requests?state=PENDING')
      expect(inbox.map((r) => r['operator_request_id'])).to.include(asked.operator_request_id)
      // The same again while it is pending: 409.
      const again = await asOperator(server, checker, 'POST', '/internal/operator-requests', ask)
      expect(again.status, again.text).to.equal(409)

      // The maker cannot approve their own.
      const own = await asOperator(server, maker, 'POST', `${path}/approve`, seen)
      expect(own.status).to.equal(403)
      expect(own.body).to.deep.equal({ error: 'checker_must_differ', detail: 'The operator who asked cannot approve the request: another operator holding service_loans must.' })
      expect((await paymentOf(loan, paymentId))!['status']).to.equal('SUCCEEDED')

      const approved = await ok(asOperator(server, checker, 'POST', `${path}/approve`, seen))
      expect(approved.operator_request).to.include({ state: 'APPROVED', decided_by: checker.operatorId, requested_by: maker.operatorId, livemode: true })
      expect(approved.payment).to.include({ payment_id: paymentId, status: 'REVERSED', livemode: true })
      expect(approved.loan).to.equal(null)
      expect((await paymentOf(loan, paymentId))!['status']).to.equal('REVERSED')
      // What was posted is what both previewed.
      const posted = (await ledgerOf(loan)).slice(ledgerBefore.length)
      expect(posted.map(({ sequence: _s, created_at: _c, livemode: _l, transaction_id: _t, ...t }) => t)).to.deep.equal(withoutIds(preview).transactions)

      // The audit log: the checker reversed it, naming the request and its maker.
      const audit = await ok(request(server.url, `/internal/audit-events?subject_id=${paymentId}`, { headers: bearer(INTERNAL_TOKEN) }))
      const reversed = audit.data.find((e: { action: string }) => e.action === 'payment.reversed')
      expect(reversed.actor).to.deep.equal({ type: 'operator', id: checker.operatorId })
      expect(reversed.details).to.include({ operator_request_id: asked.operator_request_id, requested_by: maker.operatorId, reason: ask.reason })

      // Decided: once.
      for (const decision of ['approve', 'reject']) {
        const twice = await asOperator(server, checker, 'POST', `${path}/${decision}`, decision === 'reject' ? { reason: 'too late' } : seen)
        expect(twice.status, twice.text).to.equal(409)
      }
    })

    it('charges off a loan on approval; a rejected request does nothing and cannot be approved', async () => {
      const loan = await bookLoan(server, borrower)
      const ask = { kind: 'loan_charge_off', loan_id: loan.loanId, reason: 'Borrower ceased trading' }
      const first = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests', ask), 201)
      const rejected = await ok(asOperator(server, maker, 'POST', `/internal/operator-requests/${first.operator_request_id as string}/reject`, { reason: 'Asked on the wrong loan' }))
      expect(rejected).to.include({ state: 'REJECTED', decided_by: maker.operatorId, rejection_reason: 'Asked on the wrong loan' })
      expect((await asOperator(server, checker, 'POST', `/internal/operator-requests/${first.operator_request_id as string}/approve`, ANY_VERSION)).status).to.equal(409)
      expect((await ok(asBorrower('GET', loan.paths.loan))).status).to.equal('ACTIVE')

      const second = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests', ask), 201)
      const preview = await ok(asOperator(server, checker, 'GET', `/internal/operator-requests/${second.operator_request_id as string}/preview`))
      expect(preview).to.include({ status_before: 'ACTIVE', status_after: 'CHARGED_OFF', payment: null })
      expect(preview.after).to.include({ principal_outstanding: 0, interest_outstanding: 0, fees_outstanding: 0, payoff_amount: 0 })
      const approved = await ok(asOperator(server, checker, 'POST', `/internal/operator-requests/${second.operator_request_id as string}/approve`, { preview_version: preview.preview_version }))
      expect(approved.loan).to.include({ loan_id: loan.loanId, status: 'CHARGED_OFF' })
      expect(approved.payment).to.equal(null)
      expect((await ok(asBorrower('GET', loan.paths.loan))).status).to.equal('CHARGED_OFF')
    })

    it('refuses what could not be done now at once, and a request no longer possible at approval, leaving it pending', async () => {
      const { loan, paymentId } = await paidLoan()
      const asked = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests', { kind: 'payment_reversal', payment_id: paymentId, reason: 'Returned' }), 201)
      // Automation reverses it meanwhile (the internal token acts alone).
      await ok(request(server.url, `/internal/payments/${paymentId}/reverse`, { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: { reason: 'ACH file' } }))
      const late = await asOperator(server, checker, 'POST', `/internal/operator-requests/${asked.operator_request_id as string}/approve`, ANY_VERSION)
      expect(late.status, late.text).to.equal(409)
      expect(late.body).to.include({ error: 'invalid_state', status: 'REVERSED' })
      expect((await ok(asOperator(server, checker, 'GET', `/internal/operator-requests/${asked.operator_request_id as string}`))).state).to.equal('PENDING')
      // Asked now, it is refused at once.
      const refused = await asOperator(server, maker, 'POST', '/internal/operator-requests', { kind: 'payment_reversal', payment_id: paymentId, reason: 'Again' })
      expect(refused.status, refused.text).to.equal(409)
      expect((await ledgerOf(loan)).filter((t) => t['type'] === 'REVERSAL')).to.have.length(1)
    })

    it('refuses an approval of what the checker no longer sees: the borrower paid after the preview', async () => {
      const { loan, paymentId } = await paidLoan()
      const asked = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests', { kind: 'payment_reversal', payment_id: paymentId, reason: 'Returned' }), 201)
      const path = `/internal/operator-requests/${asked.operator_request_id as string}`
      const seen = await ok(asOperator(server, checker, 'GET', `${path}/preview`))
      const methods = await ok(asBorrower('GET', loan.paths.paymentMethods))
      await ok(asBorrower('POST', loan.paths.payments, { amount: 10_000, currency: 'USD', payment_method_id: methods.data[0].payment_method_id }, { 'Idempotency-Key': randomUUID() }), 201)
      const now = await ok(asOperator(server, checker, 'GET', `${path}/preview`))
      expect(now.preview_version).to.not.equal(seen.preview_version)

      const stale = await asOperator(server, checker, 'POST', `${path}/approve`, { preview_version: seen.preview_version })
      expect(stale.status, stale.text).to.equal(409)
      expect(stale.body).to.deep.equal({
        error: 'preview_outdated',
        detail: 'The loan changed since the preview you approved (a payment, a posting, or the day it would post on): preview the request again and approve what it shows now.',
        preview_version: now.preview_version,
      })
      expect((await ok(asOperator(server, checker, 'GET', path))).state).to.equal('PENDING')
      expect((await paymentOf(loan, paymentId))!['status']).to.equal('SUCCEEDED')
      const missing = await asOperator(server, checker, 'POST', `${path}/approve`, {})
      expect([missing.status, missing.body.param]).to.deep.equal([400, 'preview_version'])

      const approved = await ok(asOperator(server, checker, 'POST', `${path}/approve`, { preview_version: now.preview_version }))
      expect(approved.payment).to.include({ payment_id: paymentId, status: 'REVERSED' })
    })

    it('refuses a person acting alone, a reviewer deciding, the token asking, and bodies that name the wrong thing', async () => {
      const { loan, paymentId } = await paidLoan()
      const alone = await asOperator(server, checker, 'POST', `/internal/payments/${paymentId}/reverse`, { reason: 'alone' })
      expect(alone.status, alone.text).to.equal(403)
      expect(alone.body).to.deep.equal({
        error: 'checker_required',
        detail: "A named operator's payment reversal needs a second operator's approval: ask for it with POST /internal/operator-requests.",
        kind: 'payment_reversal',
      })
      const chargeOff = await asOperator(server, checker, 'POST', `/internal/loans/${loan.loanId}/charge-off`, { reason: 'alone' })
      expect([chargeOff.status, chargeOff.body.error]).to.deep.equal([403, 'checker_required'])
      expect((await paymentOf(loan, paymentId))!['status']).to.equal('SUCCEEDED')

      const asked = await ok(asOperator(server, maker, 'POST', '/internal/operator-requests', { kind: 'payment_reversal', payment_id: paymentId, reason: 'Returned' }), 201)
      const reviewer = await signedIn(server, 'reviewer')
      const byReviewer = await asOperator(server, reviewer, 'POST', `/internal/operator-requests/${asked.operator_request_id as string}/approve`, ANY_VERSION)
      expect([byReviewer.status, byReviewer.body.error]).to.deep.equal([403, 'insufficient_role'])
      const byToken = await request(server.url, '/internal/operator-requests', { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: { kind: 'loan_charge_off', loan_id: loan.loanId, reason: 'token' } })
      expect([byToken.status, byToken.body.error]).to.deep.equal([403, 'operator_session_required'])
      const approvedByToken = await request(server.url, `/internal/operator-requests/${asked.operator_request_id as string}/approve`, { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: ANY_VERSION })
      expect([approvedByToken.status, approvedByToken.body.error]).to.deep.equal([403, 'operator_session_required'])

      for (const [body, param] of [
        [{ kind: 'payment_reversal', loan_id: loan.loanId, reason: 'x' }, 'loan_id'],
        [{ kind: 'loan_charge_off', payment_id: paymentId, reason: 'x' }, 'payment_id'],
        [{ kind: 'loan_charge_off', reason: 'x' }, 'loan_id'],
        [{ kind: 'write_off', loan_id: loan.loanId, reason: 'x' }, 'kind'],
        [{ kind: 'loan_charge_off', loan_id: loan.loanId }, 'reason'],
      ] as const) {
        const reply = await asOperator(server, maker, 'POST', '/internal/operator-requests', body)
        expect([reply.status, reply.body.param], JSON.stringify(body)).to.deep.equal([400, param])
      }
      const unknown = await asOperator(server, maker, 'POST', '/internal/operator-requests', { kind: 'payment_reversal', payment_id: randomUUID(), reason: 'x' })
      expect(unknown.status).to.equal(404)
      expect((await asOperator(server, checker, 'GET', `/internal/operator-requests/${randomUUID()}`)).status).to.equal(404)
    })

    it("refuses every person a bank's file, which reverses payments with no second operator: automation alone ingests one", async () => {
      const admin = await signedIn(server, 'admin')
      const file = '101 0910000190123456789' + '\n'
      const refused = await request(server.url, '/internal/ach/inbound-files', {
        method: 'POST',
        headers: { Cookie: admin.cookie, 'X-CSRF-Token': admin.csrf, 'Content-Type': 'text/plain' },
        rawBody: file,
      })
      expect(refused.status, refused.text).to.equal(403)
      expect(refused.body).to.deep.equal({
        error: 'insufficient_role',
        detail: 'The admin role may not do this: it needs the ingest_bank_files permission.',
        role: 'admin',
        permission: 'ingest_bank_files',
      })
      // The token reaches the route: what it says of this file is the file's, not a refusal of who sent it.
      const byToken = await request(server.url, '/internal/ach/inbound-files', { method: 'POST', headers: { ...bearer(INTERNAL_TOKEN), 'Content-Type': 'text/plain' }, rawBody: file })
      expect(byToken.status, byToken.text).to.not.equal(403)
      expect(byToken.status).to.be.within(200, 499)
    })
  })
}
