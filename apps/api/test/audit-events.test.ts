import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bookLoan, DEFAULT_LOAN_TERMS, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, submittedSession, type Borrower } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { expectInvalid } from './support/expectations.js'
import { INTERNAL_TOKEN, MINT_SECRET, startTestServer, type TestServer } from './support/test-server.js'

/**
 * The audit log over HTTP (issue 9), on each test database: minting and revoking keys and every
 * internal decision record exactly one event, with its actor, subject, client, party and
 * request id; `GET /internal/audit-events` lists them newest first, in pages, filtered; only the
 * internal token reads it; and no secret reaches an audit row or the listing.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const INTERNAL_REFUSAL = {
  error: 'invalid_internal_token',
  detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
}
const AUDIT = '/internal/audit-events'
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`
const ACCOUNT_NUMBER = '000987654321'

/** A request id of our own, so each event can be traced to the request that made it. */
const requestId = (): string => `audit-test-${randomUUID()}`
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

for (const database of testDatabases()) {
  describe(`the audit log over HTTP on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower
    let loan: BookedLoan
    /** Every full key this suite saw: none may reach the audit log. */
    const secrets: string[] = []

    const internal = (method: string, path: string, json?: unknown, id: string = requestId()): Promise<Reply> =>
      request(server.url, path, { method, headers: { ...bearer(INTERNAL_TOKEN), 'X-Request-Id': id }, ...(json === undefined ? {} : { json }) })
    const asKey = (key: MintedKey, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      request(server.url, path, { method, headers: { ...bearer(key.api_key), ...headers }, ...(json === undefined ? {} : { json }) })
    const ok = async (reply: Reply, status: number, label: string): Promise<any> => {
      expect(reply.status, `${label}: ${reply.text}`).to.equal(status)
      return reply.body
    }
    /** The listing for `query`, which must answer 200. */
    const audit = async (query: string): Promise<{ data: any[]; next_cursor: string | null }> =>
      ok(await request(server.url, `${AUDIT}?${query}`, { headers: bearer(INTERNAL_TOKEN) }), 200, `GET ${AUDIT}?${query}`)
    /** The events about `subjectId`, newest first (a fresh subject's whole history fits one page). */
    const about = async (subjectId: string, action?: string) =>
      (await audit(`subject_id=${subjectId}${action === undefined ? '' : `&action=${action}`}&limit=100`)).data.map(({ livemode, ...event }) => {
        // The operator's routes act on the live world.
        expect(livemode).to.equal(true)
        return event
      })
    /** Exactly one event about `subjectId` with `action`: returned after checking its id. */
    const onlyEvent = async (subjectId: string, action: string) => {
      const events = await about(subjectId, action)
      expect(events, `${action} of ${subjectId}`).to.have.length(1)
      expect(events[0].audit_event_id).to.match(UUID)
      return events[0]
    }
    const mint = async (body: Parameters<typeof mintKey>[1] = {}): Promise<MintedKey> => {
      const key = await mintKey(server.url, body)
      secrets.push(key.api_key)
      return key
    }

    /** An onboarding session of `partner` submitted for review, with a registered webhook. */
    const submitted = (partner: MintedKey): Promise<string> =>
      submittedSession(server, receiver, partner, { webhook: { webhook_url: 'https://93.184.216.34/hooks/audit', webhook_secret: WEBHOOK_SECRET } })
    /** A loan application of `borrower`, submitted for a decision. */
    const submittedApplication = async (): Promise<string> => {
      const draft = await ok(await asKey(borrower.key, 'POST', '/public/applications', DEFAULT_LOAN_TERMS), 201, 'apply')
      await ok(await asKey(borrower.key, 'POST', `/public/applications/${draft.application_id}/submit`, {}), 200, 'submit')
      return draft.application_id as string
    }

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      borrower = await onboardBorrower(server, receiver)
      secrets.push(borrower.key.api_key, borrower.partnerKey.api_key)
      loan = await bookLoan(server, borrower)
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    describe('keys', () => {
      it('a mint records one api_key.minted by the operator, with the request id; its idempotent replay records nothing more', async () => {
        const id = requestId()
        const partyId = randomUUID()
        const minting = () =>
          request(server.url, '/public/partner/api-keys', {
            method: 'POST',
            headers: { 'X-Partner-Mint-Key': MINT_SECRET, 'Idempotency-Key': `audit-${id}`, 'X-Request-Id': id },
            json: { party_id: partyId, client_name: 'audit-backend', scopes: ['partner:api', 'keys:manage'] },
          })
        const key = (await ok(await minting(), 201, 'mint')) as MintedKey
        secrets.push(key.api_key)
        const replay = await minting()
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        expect(await about(key.api_key_id)).to.deep.equal([
          {
            audit_event_id: (await onlyEvent(key.api_key_id, 'api_key.minted')).audit_event_id,
            occurred_at: key.created_at,
            actor: { type: 'operator' },
            action: 'api_key.minted',
            subject: { type: 'api_key', id: key.api_key_id },
            api_client_id: key.client_id,
            party_id: partyId,
            request_id: id,
            details: { key_prefix: key.key_prefix, environment: 'live', scopes: ['partner:api', 'keys:manage'], client_name: 'audit-backend' },
          },
        ])
      })

      it('a revocation records one api_key.revoked by the calling key; revoking again records nothing', async () => {
        const old = await mint({ client_name: 'rotating' })
        const current = await mint({ party_id: old.party_id, client_name: 'rotating' })
        const id = requestId()
        const revoked = await ok(await asKey(current, 'DELETE', `/public/partner/api-keys/${old.api_key_id}`, undefined, { 'X-Request-Id': id }), 200, 'revoke')
        await ok(await asKey(current, 'DELETE', `/public/partner/api-keys/${old.api_key_id}`), 200, 'revoke again')
        const event = await onlyEvent(old.api_key_id, 'api_key.revoked')
        expect(event).to.deep.equal({
          audit_event_id: event.audit_event_id,
          occurred_at: revoked.revoked_at,
          actor: { type: 'api_key', id: current.api_key_id },
          action: 'api_key.revoked',
          subject: { type: 'api_key', id: old.api_key_id },
          api_client_id: old.client_id,
          party_id: old.party_id,
          request_id: id,
          details: { key_prefix: old.key_prefix },
        })
        expect((await about(old.api_key_id)).map((e) => e.action)).to.deep.equal(['api_key.revoked', 'api_key.minted'])
      })

      it("refusals record nothing: a bad mint, another client's key", async () => {
        const partyId = randomUUID()
        const refused = await request(server.url, '/public/partner/api-keys', {
          method: 'POST',
          headers: { 'X-Partner-Mint-Key': MINT_SECRET },
          json: { party_id: partyId, scopes: ['no:such'] },
        })
        expectInvalid(refused, 'scopes.0')
        expect((await audit(`party_id=${partyId}`)).data).to.deep.equal([])
        const stranger = await mint()
        const mine = await mint()
        expect((await asKey(stranger, 'DELETE', `/public/partner/api-keys/${mine.api_key_id}`)).status).to.equal(404)
        expect((await about(mine.api_key_id)).map((e) => e.action)).to.deep.equal(['api_key.minted'])
      })
    })

    describe('internal decisions', () => {
      it('approving a session records onboarding_session.approved with its client, the new party and the reviewer', async () => {
        const sessionId = await submitted(borrower.partnerKey)
        const id = requestId()
        const approved = await ok(await internal('POST', `/internal/onboarding-sessions/${sessionId}/approve`, { reviewed_by: 'kyc@lendgate' }, id), 200, 'approve')
        const event = await onlyEvent(sessionId, 'onboarding_session.approved')
        expect(event).to.deep.equal({
          audit_event_id: event.audit_event_id,
          occurred_at: approved.session.review.decided_at,
          actor: { type: 'operator' },
          action: 'onboarding_session.approved',
          subject: { type: 'onboarding_session', id: sessionId },
          api_client_id: borrower.partnerKey.client_id,
          party_id: approved.party.party_id,
          request_id: id,
          details: { reviewed_by: 'kyc@lendgate', webhook_event_id: event.details.webhook_event_id },
        })
        expect(event.details.webhook_event_id).to.be.a('string').and.not.equal('')
        expect((await internal('POST', `/internal/onboarding-sessions/${sessionId}/approve`, {})).status).to.equal(409)
        expect(await about(sessionId)).to.deep.equal([event])
      })

      it('rejecting a session records onboarding_session.rejected with the reason', async () => {
        const sessionId = await submitted(borrower.partnerKey)
        const id = requestId()
        const rejected = await ok(await internal('POST', `/internal/onboarding-sessions/${sessionId}/reject`, { reason: 'Sanctions screening hit' }, id), 200, 'reject')
        const event = await onlyEvent(sessionId, 'onboarding_session.rejected')
        expect(event).to.deep.equal({
          audit_event_id: event.audit_event_id,
          occurred_at: rejected.review.decided_at,
          actor: { type: 'operator' },
          action: 'onboarding_session.rejected',
          subject: { type: 'onboarding_session', id: sessionId },
          api_client_id: borrower.partnerKey.client_id,
          party_id: null,
          request_id: id,
          details: { reviewed_by: 'internal', reason: 'Sanctions screening hit' },
        })
      })

      it('approving and declining applications record loan_application.approved (with the loan) and .declined', async () => {
        const toApprove = await submittedApplication()
        const toDecline = await submittedApplication()
        const approveId = requestId()
        const approved = await ok(await internal('POST', `/internal/applications/${toApprove}/approve`, { decided_by: 'credit@lendgate' }, approveId), 200, 'approve')
        const declined = await ok(await internal('POST', `/internal/applications/${toDecline}/decline`, { reason: 'Thin file' }), 200, 'decline')
        const approval = await onlyEvent(toApprove, 'loan_application.approved')
        expect(approval).to.deep.equal({
          audit_event_id: approval.audit_event_id,
          occurred_at: approved.application.decision.decided_at,
          actor: { type: 'operator' },
          action: 'loan_application.approved',
          subject: { type: 'loan_application', id: toApprove },
          api_client_id: borrower.key.client_id,
          party_id: borrower.partyId,
          request_id: approveId,
          details: {
            decided_by: 'credit@lendgate',
            loan_id: approved.loan.loan_id,
            amount: DEFAULT_LOAN_TERMS.amount,
            currency: 'USD',
            term_months: DEFAULT_LOAN_TERMS.term_months,
            interest_rate_bps: approved.application.interest_rate_bps,
            origination_fee_bps: approved.application.origination_fee_bps,
          },
        })
        const decline = await onlyEvent(toDecline, 'loan_application.declined')
        expect({ ...decline, audit_event_id: undefined, request_id: undefined }).to.deep.equal({
          audit_event_id: undefined,
          occurred_at: declined.decision.decided_at,
          actor: { type: 'operator' },
          action: 'loan_application.declined',
          subject: { type: 'loan_application', id: toDecline },
          api_client_id: borrower.key.client_id,
          party_id: borrower.partyId,
          request_id: undefined,
          details: { decided_by: 'internal', reason: 'Thin file' },
        })
        expect(decline.request_id).to.be.a('string').and.not.equal('')
      })

      it('creating and updating a loan product record loan_product.created and .updated (the changed fields)', async () => {
        const body = { name: 'Audit Line', currency: 'USD', min_amount: 10_000, max_amount: 500_000, min_term_months: 3, max_term_months: 24, interest_rate_bps: 1_500, active: false }
        const product = await ok(await internal('POST', '/internal/loan-products', body), 201, 'create')
        const id = requestId()
        const updated = await ok(await internal('PATCH', `/internal/loan-products/${product.product_id}`, { interest_rate_bps: 1_450, active: false }, id), 200, 'update')
        const created = await onlyEvent(product.product_id, 'loan_product.created')
        expect(created.details).to.deep.equal({
          ...body,
          description: null,
          origination_fee_bps: 0,
          repayment_frequency: 'MONTHLY',
          day_count: 'THIRTY_360',
          prepayment: 'REDUCE_TERM',
          late_fee_flat: 0,
          late_fee_bps: 0,
          late_fee_grace_days: 0,
          returned_payment_fee: 0,
          time_zone: 'UTC',
        })
        expect({ occurred_at: created.occurred_at, party_id: created.party_id, api_client_id: created.api_client_id }).to.deep.equal({
          occurred_at: product.created_at,
          party_id: null,
          api_client_id: null,
        })
        const update = await onlyEvent(product.product_id, 'loan_product.updated')
        expect({ occurred_at: update.occurred_at, request_id: update.request_id, details: update.details }).to.deep.equal({
          occurred_at: updated.updated_at,
          request_id: id,
          details: { changes: { interest_rate_bps: { from: 1_500, to: 1_450 } } },
        })
        const refused = await internal('PATCH', `/internal/loan-products/${product.product_id}`, { interest_rate_bps: 10_001 })
        expectInvalid(refused, 'interest_rate_bps')
        expect(await about(product.product_id)).to.have.length(2)
      })

      it('collateral, documents and a payment reversal record their events, with the loan and its party', async () => {
        const paths = loan.paths
        const item = await ok(await internal('POST', paths.internalCollateral, { type: 'equipment', description: 'CNC mill', valuation: 2_000_000, currency: 'USD' }), 201, 'collateral')
        const document = await ok(
          await internal('POST', paths.internalDocuments, { type: 'notice', storage_ref: 's3://lendgate-docs/notice.pdf', period_start: '2026-01-01', period_end: '2026-01-31' }),
          201,
          'document',
        )
        expect((await onlyEvent(item.collateral_id, 'loan_collateral.added')).details).to.deep.equal({
          loan_id: loan.loanId,
          type: 'equipment',
          valuation: 2_000_000,
          currency: 'USD',
          lien_position: 1,
        })
        const attached = await onlyEvent(document.document_id, 'loan_document.attached')
        expect({ party_id: attached.party_id, details: attached.details }).to.deep.equal({
          party_id: borrower.partyId,
          details: { loan_id: loan.loanId, type: 'notice', period_start: '2026-01-01', period_end: '2026-01-31' },
        })

        const method = await ok(
          await asKey(borrower.key, 'POST', paths.paymentMethods, { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: ACCOUNT_NUMBER }),
          201,
          'payment method',
        )
        const payment = await ok(
          await asKey(borrower.key, 'POST', paths.payments, { amount: 25_000, currency: 'USD', payment_method_id: method.payment_method_id }, { 'Idempotency-Key': `pay-${randomUUID()}` }),
          201,
          'pay',
        )
        const id = requestId()
        await ok(await internal('POST', `/internal/payments/${payment.payment_id}/reverse`, { reason: 'Returned by the bank (R01)' }, id), 200, 'reverse')
        expect((await internal('POST', `/internal/payments/${payment.payment_id}/reverse`, {})).status).to.equal(409)
        const reversal = (await request(server.url, `${paths.transactions}?type=REVERSAL`, { headers: bearer(borrower.key.api_key) })).body.data[0]
        const event = await onlyEvent(payment.payment_id, 'payment.reversed')
        expect({ ...event, audit_event_id: undefined, occurred_at: undefined }).to.deep.equal({
          audit_event_id: undefined,
          occurred_at: undefined,
          actor: { type: 'operator' },
          action: 'payment.reversed',
          subject: { type: 'payment', id: payment.payment_id },
          api_client_id: borrower.key.client_id,
          party_id: borrower.partyId,
          request_id: id,
          details: { loan_id: loan.loanId, amount: 25_000, currency: 'USD', reversal_transaction_id: reversal.transaction_id, reason: 'Returned by the bank (R01)' },
        })
        expect(event.occurred_at).to.equal(reversal.created_at)
      })

      it('each run of the accrual job records one interest_accrual.completed with its figures', async () => {
        const id = requestId()
        const run = await ok(await internal('POST', '/internal/jobs/accrue-interest', undefined, id), 200, 'accrue')
        const page = await audit('action=interest_accrual.completed&limit=100')
        const mine = page.data.filter((e) => e.request_id === id)
        expect(mine).to.have.length(1)
        const { livemode: _livemode, ...figures } = run
        expect({ ...mine[0], audit_event_id: undefined, occurred_at: undefined }).to.deep.equal({
          audit_event_id: undefined,
          occurred_at: undefined,
          actor: { type: 'operator' },
          action: 'interest_accrual.completed',
          subject: { type: 'interest_accrual_run', id: mine[0].audit_event_id },
          api_client_id: null,
          party_id: null,
          request_id: id,
          details: figures,
          livemode: true,
        })
        expectInvalid(await internal('POST', '/internal/jobs/accrue-interest?as_of=2999-01-01'), 'as_of')
        expect((await audit('action=interest_accrual.completed&limit=100')).data.filter((e) => e.request_id === id)).to.have.length(1)
      })
    })

    describe('GET /internal/audit-events', () => {
      it('lists newest first in pages of the asked size, following next_cursor, and narrows by client and action', async () => {
        const first = await mint({ client_name: 'paged' })
        const keys = [first, await mint({ party_id: first.party_id, client_name: 'paged' }), await mint({ party_id: first.party_id, client_name: 'paged' })]
        await ok(await asKey(keys[2]!, 'DELETE', `/public/partner/api-keys/${keys[0]!.api_key_id}`), 200, 'revoke')
        const whole = (await audit(`api_client_id=${first.client_id}`)).data
        expect(whole.map((e) => [e.action, e.subject.id])).to.have.deep.members([
          ['api_key.minted', keys[0]!.api_key_id],
          ['api_key.minted', keys[1]!.api_key_id],
          ['api_key.minted', keys[2]!.api_key_id],
          ['api_key.revoked', keys[0]!.api_key_id],
        ])
        const newestFirst = [...whole].sort((a, b) => (a.occurred_at === b.occurred_at ? (a.audit_event_id < b.audit_event_id ? 1 : -1) : a.occurred_at < b.occurred_at ? 1 : -1))
        expect(whole).to.deep.equal(newestFirst)

        const pages: any[][] = []
        let cursor: string | null = null
        do {
          const page: { data: any[]; next_cursor: string | null } = await audit(`api_client_id=${first.client_id}&limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
          pages.push(page.data)
          cursor = page.next_cursor
        } while (cursor !== null)
        expect(pages.map((p) => p.length)).to.deep.equal([3, 1])
        expect(pages.flat()).to.deep.equal(whole)

        expect((await audit(`api_client_id=${first.client_id}&action=api_key.minted`)).data).to.deep.equal(whole.filter((e) => e.action === 'api_key.minted'))
        expect((await audit(`party_id=${first.party_id}&action=api_key.revoked`)).data).to.deep.equal(whole.filter((e) => e.action === 'api_key.revoked'))
        expect((await audit(`api_client_id=${randomUUID()}`)).data).to.deep.equal([])
        const unfiltered = await audit('limit=1')
        expect(unfiltered.data).to.have.length(1)
        expect(unfiltered.next_cursor).to.be.a('string')
      })

      it('answers 400 invalid_request naming the parameter for a bad filter, limit, cursor or an unknown parameter', async () => {
        const get = (query: string) => request(server.url, `${AUDIT}?${query}`, { headers: bearer(INTERNAL_TOKEN) })
        expectInvalid(await get('action=api_key.deleted'), 'action')
        expectInvalid(await get('action=api_key.minted&action=api_key.revoked'), 'action')
        expectInvalid(await get('subject_id=nope'), 'subject_id')
        expectInvalid(await get('api_client_id=1'), 'api_client_id')
        expectInvalid(await get('party_id='), 'party_id')
        expectInvalid(await get('limit=101'), 'limit')
        expectInvalid(await get('cursor=not*a*cursor'), 'cursor')
        expectInvalid(await get(`cursor=${Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', "x' or 1=1 --"])).toString('base64url')}`), 'cursor')
        expectInvalid(await get('actor=operator'), 'actor')
      })

      it('refuses partner keys, the mint secret and no credentials with 401 invalid_internal_token', async () => {
        const attempts: Record<string, string>[] = [
          bearer(borrower.key.api_key),
          { 'X-Api-Key': borrower.key.api_key },
          bearer(MINT_SECRET),
          { 'X-Partner-Mint-Key': MINT_SECRET },
          {},
        ]
        for (const headers of attempts) {
          const reply = await request(server.url, AUDIT, { headers })
          expect(reply.status, JSON.stringify(headers)).to.equal(401)
          expect(reply.body).to.deep.equal(INTERNAL_REFUSAL)
        }
      })
    })

    // Last, after every suite above has written its events.
    describe('secrets', () => {
      it('no secret is in any audit row or in the listing: no key or its hash, mint secret, internal token, webhook secret or account number', async () => {
        const forbidden = [...secrets, ...secrets.map(sha256), MINT_SECRET, INTERNAL_TOKEN, WEBHOOK_SECRET, WEBHOOK_SECRET.slice('whsec_'.length), ACCOUNT_NUMBER]
        expect(secrets.length).to.be.greaterThan(5)
        const { db } = await database.open()
        const rows = await db.selectFrom('audit_events').selectAll().execute()
        const stored = JSON.stringify(rows)
        expect(rows.length).to.be.greaterThan(10)
        const listed: string[] = []
        for (const query of [`party_id=${borrower.partyId}`, `api_client_id=${borrower.partnerKey.client_id}`, 'limit=100']) listed.push(JSON.stringify(await audit(query)))
        for (const secret of forbidden) {
          expect(stored.includes(secret), `a secret (${secret.slice(0, 12)}…) is stored in audit_events`).to.equal(false)
          expect(listed.join('').includes(secret), `a secret (${secret.slice(0, 12)}…) is listed`).to.equal(false)
        }
        expect(server.logs.raw()).to.not.include(WEBHOOK_SECRET)
      })
    })
  })
}
