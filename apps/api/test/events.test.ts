import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { WORKING_CAPITAL } from './support/booked-loan.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { partnerCalls } from './support/partner-journey.js'
import { operatorHeaders, startTestServer, type TestServer } from './support/test-server.js'

/**
 * The event log from a partner's side (docs/events.md): a test-mode journey lists its events once
 * each, in order, with `data` as the resource's route answers it; failures, returns, a test clock's
 * late days, concurrent payments, and the list's filters, paging and refusals. Test keys only.
 */

const DAY_MS = 86_400_000
const GOOD_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: '000123456789' }
/** The sandbox's insufficient-funds account (docs/testing.md "Magic values"). */
const FAILING_ACCOUNT = { ...GOOD_ACCOUNT, account_number: '000222222227' }

type Event = {
  readonly id: string
  readonly type: string
  readonly livemode: boolean
  readonly timestamp: string
  readonly occurred_at: string
  readonly sequence?: number
  readonly data: Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  readonly previous_attributes?: Record<string, unknown>
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

for (const database of testDatabases()) {
  describe(`the event log (GET /public/events) on ${database.name}`, function () {
    this.timeout(60_000)
    let server: TestServer

    const { call, ok, onboarded } = partnerCalls(() => server.url)

    /** Every event `key` sees with `query`, page after page of `limit`. */
    const allEvents = async (key: MintedKey, query = '', limit = 100): Promise<Event[]> => {
      const seen: Event[] = []
      for (let cursor: string | null = null, page = 0; page === 0 || cursor !== null; page++) {
        expect(page, 'pages').to.be.below(200)
        const q = `?limit=${limit}${query === '' ? '' : `&${query}`}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
        const body = await ok(key, 'GET', `/public/events${q}`, undefined, 200)
        expect(body.data.length).to.be.at.most(limit)
        seen.push(...(body.data as Event[]))
        cursor = body.next_cursor as string | null
      }
      return seen
    }

    /** `onboarded`, then an application submitted and approved by the helper (on a test clock at `frozenTime` if given). */
    const withLoan = async (options: { readonly partner?: MintedKey; readonly frozenTime?: string; readonly productId?: string } = {}) => {
      const o = await onboarded(options.partner)
      const clock = options.frozenTime === undefined ? undefined : await ok(o.borrower, 'POST', '/public/test-helpers/clocks', { frozen_time: options.frozenTime }, 201)
      const draft = await ok(o.borrower, 'POST', '/public/applications', { product_id: options.productId ?? WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }, 201)
      const applicationId = draft.application_id as string
      const submitted = await ok(o.borrower, 'POST', `/public/applications/${applicationId}/submit`, {}, 200)
      const approved = await ok(o.borrower, 'POST', `/public/test-helpers/applications/${applicationId}/approve`, {}, 200)
      const loanId = approved.loan.loan_id as string
      const loanPath = `/public/parties/${o.partyId}/loans/${loanId}`
      const loanAtBooking = await ok(o.borrower, 'GET', loanPath, undefined, 200)
      const applicationAfter = await ok(o.borrower, 'GET', `/public/applications/${applicationId}`, undefined, 200)
      return { ...o, clock, applicationId, submitted, approved, applicationAfter, loanId, loanPath, loanAtBooking }
    }

    const method = async (borrower: MintedKey, loanPath: string, account = GOOD_ACCOUNT): Promise<string> =>
      (await ok(borrower, 'POST', `${loanPath}/payment-methods`, account, 201)).payment_method_id as string
    const pay = (borrower: MintedKey, loanPath: string, methodId: string, amount: number, key: string = randomUUID()): Promise<Reply> =>
      call(borrower, 'POST', `${loanPath}/payments`, { amount, currency: 'USD', payment_method_id: methodId }, { 'Idempotency-Key': key })

    /** The events of one loan (those with a `sequence` whose data names the loan or is the loan). */
    const ofLoan = (events: readonly Event[], loanId: string): Event[] => events.filter((e) => e.sequence !== undefined && (e.data.loan_id === loanId))
    const expectConsecutive = (events: readonly Event[], label: string) =>
      expect(events.map((e) => e.sequence), label).to.deep.equal(events.map((_, n) => n + 1))
    const expectUniqueIds = (events: readonly Event[]) => {
      expect(new Set(events.map((e) => e.id)).size, 'ids unique').to.equal(events.length)
      for (const e of events) expect(e.id).to.match(/^evt_[0-9a-f]{32}$/)
    }

    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => {
      await server?.stop()
    })

    it('lists a journey for the partner once per cause, in order, with the resources as their routes answer them', async () => {
      const j = await withLoan()
      const { partner, borrower, loanPath, loanId, partyId } = j
      const methodId = await method(borrower, loanPath)
      const partKey = randomUUID()
      const part = await pay(borrower, loanPath, methodId, 100_000, partKey)
      expect(part.status, part.text).to.equal(201)
      expect(part.body.status).to.equal('SUCCEEDED')
      const payoff = await ok(borrower, 'GET', `${loanPath}/payoff`, undefined, 200)
      const rest = await pay(borrower, loanPath, methodId, payoff.payoff_amount as number)
      expect(rest.status, rest.text).to.equal(201)
      expect(rest.body.status).to.equal('SUCCEEDED')
      const paidOff = await ok(borrower, 'GET', loanPath, undefined, 200)
      expect(paidOff.status).to.equal('PAID_OFF')

      const events = await allEvents(partner)
      expect(events.map((e) => e.type)).to.deep.equal([
        'party.ready',
        'application.submitted',
        'application.decided',
        'loan.booked',
        'payment.succeeded',
        'payment.succeeded',
        'loan.paid_off',
      ])
      expectUniqueIds(events)
      for (const e of events) {
        expect(e.livemode, `${e.type} livemode`).to.equal(false)
        expect(e.data.livemode, `${e.type} data.livemode`).to.equal(false)
        expect(e.timestamp).to.equal(e.occurred_at)
      }
      const [ready, submitted, decided, booked, first, second, done] = events as [Event, Event, Event, Event, Event, Event, Event]
      // Events of no loan have no sequence; the loan's are 1, 2, 3… in list order.
      for (const e of [ready, submitted, decided]) expect(e, e.type).to.not.have.property('sequence')
      expectConsecutive([booked, first, second, done], 'the loan\'s sequences')
      expect(ofLoan(events, loanId)).to.have.length(4)

      expect(ready.data).to.deep.equal({ ...j.party, livemode: false })
      expect(ready).to.not.have.property('previous_attributes')
      expect(submitted.data).to.deep.equal({ ...j.submitted, livemode: false })
      expect(submitted.previous_attributes).to.deep.equal({ status: 'DRAFT' })
      expect(decided.data).to.deep.equal({ ...j.applicationAfter, livemode: false })
      expect(decided.data.status).to.equal('APPROVED')
      expect(decided.previous_attributes).to.deep.equal({ status: 'SUBMITTED' })
      expect(booked.data).to.deep.equal({ ...j.loanAtBooking, livemode: false })
      expect(booked).to.not.have.property('previous_attributes')
      expect(first.data).to.deep.equal({ ...part.body, livemode: false })
      expect(second.data).to.deep.equal({ ...rest.body, livemode: false })
      expect(done.data).to.deep.equal({ ...paidOff, livemode: false })
      expect(done.previous_attributes).to.deep.equal({ status: 'ACTIVE' })
      expect([ready.data.party_id, booked.data.party_id, done.data.loan_id]).to.deep.equal([partyId, partyId, loanId])

      // The borrower's own key sees the same events of its party.
      expect(await allEvents(borrower)).to.deep.equal(events)
      // A key of an unrelated client sees nothing.
      const stranger = await mintKey(server.url, { environment: 'test' })
      expect(await ok(stranger, 'GET', '/public/events', undefined, 200)).to.deep.equal({ data: [], next_cursor: null })
      // Nor does a live key of the same client: the test world's events stay there.
      const live = await mintKey(server.url, { party_id: partner.party_id, client_name: partner.client_name })
      expect(await ok(live, 'GET', '/public/events', undefined, 200)).to.deep.equal({ data: [], next_cursor: null })

      // A replay under the same Idempotency-Key answers the same and writes no event.
      const replay = await pay(borrower, loanPath, methodId, 100_000, partKey)
      expect(replay.status, replay.text).to.equal(201)
      expect(replay.body).to.deep.equal(part.body)
      expect(await allEvents(partner)).to.deep.equal(events)
    })

    it('tells a failed payment once, and a test-mode return as payment.reversed from SUCCEEDED', async () => {
      const { partner, borrower, loanPath, loanId, partyId } = await withLoan()
      const failing = await method(borrower, loanPath, FAILING_ACCOUNT)
      const failed = await pay(borrower, loanPath, failing, 20_000)
      expect(failed.status, failed.text).to.equal(201)
      expect(failed.body).to.deep.include({ status: 'FAILED', failure_code: 'insufficient_funds' })
      const good = await method(borrower, loanPath)
      const paid = await pay(borrower, loanPath, good, 30_000)
      expect(paid.status, paid.text).to.equal(201)
      const returned = await ok(borrower, 'POST', `/public/test-helpers/parties/${partyId}/loans/${loanId}/payments/${paid.body.payment_id as string}/return`, { return_code: 'R01' }, 200)
      expect(returned.status).to.equal('REVERSED')

      const events = await allEvents(partner)
      expectUniqueIds(events)
      const loanEvents = ofLoan(events, loanId)
      expect(loanEvents.map((e) => e.type)).to.deep.equal(['loan.booked', 'payment.failed', 'payment.succeeded', 'payment.reversed'])
      expectConsecutive(loanEvents, 'the loan\'s sequences')
      const [, failure, success, reversal] = loanEvents as [Event, Event, Event, Event]
      expect(failure.data).to.deep.equal({ ...failed.body, livemode: false })
      expect(failure).to.not.have.property('previous_attributes')
      expect(success.data).to.deep.equal({ ...paid.body, livemode: false })
      expect(reversal.data).to.deep.include({ payment_id: paid.body.payment_id, status: 'REVERSED', livemode: false })
      // The payment as the return helper answered it (there is no GET of one payment).
      expect(reversal.data).to.deep.equal({ ...returned, livemode: false })
      expect(reversal.previous_attributes).to.deep.equal({ status: 'SUCCEEDED' })
      expect(events.filter((e) => e.type === 'payment.failed')).to.have.length(1)
      expect(events.filter((e) => e.type === 'payment.reversed')).to.have.length(1)
    })

    it('numbers ten concurrent payments on one loan 1..n with no gap, one payment.succeeded per 201', async () => {
      const { borrower, loanPath, loanId } = await withLoan()
      const methodId = await method(borrower, loanPath)
      const replies = await Promise.all(Array.from({ length: 10 }, (_, n) => pay(borrower, loanPath, methodId, 1_000 + n)))
      for (const r of replies) expect([201, 409], r.text).to.include(r.status)
      const created = replies.filter((r) => r.status === 201)
      // The loan's lock serialises them: each one settles.
      expect(replies.map((r) => r.status)).to.deep.equal(replies.map(() => 201))
      const loanEvents = ofLoan(await allEvents(borrower), loanId)
      expectUniqueIds(loanEvents)
      expectConsecutive(loanEvents, 'the loan\'s sequences')
      const succeeded = loanEvents.filter((e) => e.type === 'payment.succeeded')
      expect(succeeded).to.have.length(created.length)
      expect(new Set(succeeded.map((e) => e.data.payment_id))).to.deep.equal(new Set(created.map((r) => r.body.payment_id)))
      expect(loanEvents.map((e) => e.type)).to.deep.equal(['loan.booked', ...succeeded.map(() => 'payment.succeeded')])
    })

    it('filters by type, resource, and time window, and pages through the same list', async () => {
      const { partner, borrower, loanPath, loanId } = await withLoan()
      const methodId = await method(borrower, loanPath)
      const payments: string[] = []
      for (const amount of [10_000, 20_000, 30_000]) {
        await sleep(5)
        const r = await pay(borrower, loanPath, methodId, amount)
        expect(r.status, r.text).to.equal(201)
        payments.push(r.body.payment_id as string)
      }
      // A second borrower of the same partner: its events are the partner's too.
      const other = await withLoan({ partner })

      const all = await allEvents(partner)
      expect(all.length).to.equal(7 + 4)
      expectUniqueIds(all)

      const booked = await allEvents(partner, 'type=loan.booked')
      expect(booked.map((e) => e.data.loan_id)).to.deep.equal([loanId, other.loanId])
      expect(booked.every((e) => e.type === 'loan.booked')).to.equal(true)
      expect((await allEvents(partner, 'type=payment.succeeded')).map((e) => e.data.payment_id)).to.deep.equal(payments)

      const ofTheLoan = await allEvents(partner, `resource_id=${loanId}`)
      expect(ofTheLoan.map((e) => e.type)).to.deep.equal(['loan.booked'])
      expect(ofTheLoan[0]!.data.loan_id).to.equal(loanId)
      const ofAPayment = await allEvents(partner, `resource_id=${payments[1]!}`)
      expect(ofAPayment.map((e) => [e.type, e.data.payment_id])).to.deep.equal([['payment.succeeded', payments[1]]])
      expect(await allEvents(partner, `resource_id=${randomUUID()}`)).to.deep.equal([])

      // since inclusive, until exclusive.
      const times = [...new Set(all.map((e) => e.occurred_at))].sort()
      expect(times.length, 'distinct instants').to.be.at.least(4)
      const since = times[1]!
      const until = times[times.length - 2]!
      const window = await allEvents(partner, `since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`)
      expect(window).to.deep.equal(all.filter((e) => e.occurred_at >= since && e.occurred_at < until))
      expect(window.length).to.be.greaterThan(0)
      expect(await allEvents(partner, `since=${encodeURIComponent(since)}`)).to.deep.equal(all.filter((e) => e.occurred_at >= since))
      expect(await allEvents(partner, `until=${encodeURIComponent(until)}`)).to.deep.equal(all.filter((e) => e.occurred_at < until))

      // Pages of two: the same list, no duplicates, every page but the last full.
      const paged = await allEvents(partner, '', 2)
      expect(paged).to.deep.equal(all)
      const pagedOfType = await allEvents(partner, 'type=payment.succeeded', 2)
      expect(pagedOfType.map((e) => e.id)).to.deep.equal(all.filter((e) => e.type === 'payment.succeeded').map((e) => e.id))
      const first = await ok(partner, 'GET', '/public/events?limit=2', undefined, 200)
      expect(first.data).to.have.length(2)
      expect(first.next_cursor).to.be.a('string')
    })

    it('refuses bad input with 400 naming the param, and a key without partner:api with 403', async () => {
      const { partner } = await onboarded()
      const invalid = async (query: string, param: string | undefined) => {
        const reply = await call(partner, 'GET', `/public/events?${query}`)
        expect(reply.status, `${query}: ${reply.text}`).to.equal(400)
        expect(reply.headers.get('content-type')).to.match(/json/)
        expect(reply.body.error, query).to.be.a('string')
        if (param !== undefined) expect(reply.body.param, `${query}: ${reply.text}`).to.equal(param)
        return reply
      }
      await invalid('type=nope', 'type')
      await invalid('since=yesterday', 'since')
      await invalid('until=2026-13-01T00:00:00Z', 'until')
      await invalid('since=2026-12-01T09:30:00Z&until=2026-12-01T09:30:00Z', 'until')
      await invalid('since=2026-12-02T00:00:00Z&until=2026-12-01T00:00:00Z', 'until')
      await invalid('cursor=forged-cursor-value', 'cursor')
      await invalid('limit=0', 'limit')
      await invalid('limit=101', 'limit')
      const unknown = await invalid('colour=blue', undefined)
      expect(unknown.text).to.contain('colour')

      const unscoped = await mintKey(server.url, { party_id: partner.party_id, client_name: partner.client_name, environment: 'test', scopes: ['keys:manage'] })
      const refused = await call(unscoped, 'GET', '/public/events')
      expect(refused.status, refused.text).to.equal(403)
      const anonymous = await request(server.url, '/public/events')
      expect(anonymous.status, anonymous.text).to.equal(401)
    })
  })

  describe(`the event log over a test clock's late days, on ${database.name}`, function () {
    this.timeout(120_000)
    let server: TestServer
    let productId: string | undefined

    const { ok, onboarded } = partnerCalls(() => server.url)

    before(async () => {
      server = await startTestServer(database, { runJobs: true })
      // The seeded products charge no late fee: a product of this suite's that does (loan products are shared by both worlds).
      const created = await request(server.url, '/internal/loan-products', {
        method: 'POST',
        headers: operatorHeaders('live'),
        json: {
          name: `Events Late Fee Loan ${randomUUID().slice(0, 8)}`,
          currency: 'USD',
          min_amount: 100_000,
          max_amount: 5_000_000,
          min_term_months: 3,
          max_term_months: 24,
          interest_rate_bps: 1200,
          late_fee_flat: 2_500,
          late_fee_bps: 0,
          late_fee_grace_days: 5,
        },
      })
      expect(created.status, created.text).to.equal(201)
      productId = created.body.product_id as string
    })
    after(async () => {
      // Retired once used: other suites list the active products.
      if (productId !== undefined) await request(server.url, `/internal/loan-products/${productId}`, { method: 'PATCH', headers: operatorHeaders('live'), json: { active: false } })
      await server?.stop()
    })

    it('tells each late fee and each delinquency bucket crossed exactly once, though the job ran every day', async () => {
      const partner = await mintKey(server.url, { environment: 'test' })
      const { borrower, partyId } = await onboarded(partner)
      const start = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS + 15 * 3_600_000)
      const clock = await ok(borrower, 'POST', '/public/test-helpers/clocks', { frozen_time: start.toISOString() }, 201)
      const draft = await ok(borrower, 'POST', '/public/applications', { product_id: productId, amount: 1_200_000, currency: 'USD', term_months: 12 }, 201)
      await ok(borrower, 'POST', `/public/applications/${draft.application_id as string}/submit`, {}, 200)
      const loan = (await ok(borrower, 'POST', `/public/test-helpers/applications/${draft.application_id as string}/approve`, {}, 200)).loan
      const loanId = loan.loan_id as string
      const loanPath = `/public/parties/${partyId}/loans/${loanId}`
      const booked = await ok(borrower, 'GET', loanPath, undefined, 200)
      expect(booked).to.deep.include({ late_fee_flat: 2_500, late_fee_grace_days: 5 })

      // 75 days on: the first installment (due about a month in) is 40-odd days past due, the second a fortnight.
      const target = new Date(start.getTime() + 75 * DAY_MS)
      await ok(borrower, 'POST', `/public/test-helpers/clocks/${clock.test_clock_id as string}/advance`, { frozen_time: target.toISOString() }, 200)
      for (const deadline = Date.now() + 100_000; ; await sleep(50)) {
        const c = await ok(borrower, 'GET', `/public/test-helpers/clocks/${clock.test_clock_id as string}`, undefined, 200)
        if (c.status === 'ready') break
        if (Date.now() > deadline) throw new Error(`test clock still advancing after 100 s`)
      }
      const late = await ok(borrower, 'GET', loanPath, undefined, 200)
      expect(late.delinquency_bucket, JSON.stringify(late)).to.equal('DPD_31_60')

      const events: Event[] = []
      for (let cursor: string | null = null, page = 0; page === 0 || cursor !== null; page++) {
        const body = await ok(partner, 'GET', `/public/events?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, undefined, 200)
        events.push(...(body.data as Event[]))
        cursor = body.next_cursor as string | null
      }
      expect(new Set(events.map((e) => e.id)).size).to.equal(events.length)
      const loanEvents = events.filter((e) => e.sequence !== undefined)
      expect(loanEvents.map((e) => e.sequence)).to.deep.equal(loanEvents.map((_, n) => n + 1))

      const moves = loanEvents.filter((e) => e.type === 'loan.delinquency_changed')
      expect(moves.map((e) => [e.previous_attributes?.['delinquency_bucket'], e.data.delinquency_bucket])).to.deep.equal([
        ['CURRENT', 'DPD_1_30'],
        ['DPD_1_30', 'DPD_31_60'],
      ])
      expect(moves[0]!.previous_attributes).to.deep.equal({ days_past_due: 0, delinquency_bucket: 'CURRENT' })
      expect(moves.every((e) => e.data.loan_id === loanId)).to.equal(true)

      const ledger = await ok(borrower, 'GET', `${loanPath}/transactions?type=LATE_FEE&limit=100`, undefined, 200)
      const fees = loanEvents.filter((e) => e.type === 'loan.late_fee_assessed')
      expect(ledger.data.length, 'a fee for each installment past its grace').to.be.at.least(2)
      expect(fees.map((e) => e.data.transaction_id ?? e.data.id)).to.deep.equal(ledger.data.map((t: Record<string, unknown>) => t['transaction_id'] ?? t['id']))
      for (const [n, fee] of fees.entries()) {
        const { sequence: _sequence, ...entry } = ledger.data[n] as Record<string, unknown>
        expect(fee.data).to.deep.equal({ ...entry, livemode: false })
      }
      expect(loanEvents.map((e) => e.type).filter((t) => t !== 'loan.late_fee_assessed')).to.deep.equal(['loan.booked', 'loan.delinquency_changed', 'loan.delinquency_changed'])
    })
  })
}
