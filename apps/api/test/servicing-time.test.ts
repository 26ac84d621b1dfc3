import { randomUUID } from 'node:crypto'
import { httpCodeSender, sandboxPaymentProcessor } from '@lendgate/adapters'
import type { PaymentProcessor } from '@lendgate/core'
import type { InMemoryLoanRepository, TestClock } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../src/deps.js'
import { allPages, bookLoan, documented, expectLedgerMatchesLatestBalance, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { expectInvalid } from './support/expectations.js'
import { INTERNAL_TOKEN, startInMemoryServer, type TestServer } from './support/test-server.js'

/*
 * Every figure below is worked out by hand from docs/servicing.md, never read back from the
 * service. The loan of every scenario: booked 2026-03-10 (installments due on the 10th from
 * 2026-04-10 to 2027-03-10), 1,200,000 USD over 12 months at 12.00%, fee 1.00% withheld.
 *
 * On the 30/360 clock a whole month is 30 days and a part of one counts its calendar days (at
 * most 30); interest for a stretch between two events (a payment, a due date) is
 * principal × 1200 × days ÷ 3,600,000 = principal × days ÷ 3,000, rounded half up once. So one
 * day on 1,200,000 is 400 and one month is 12,000.
 *
 * The booked level payment is 1,200,000 × 1% ÷ (1 − 1.01^−12) = 106,618.55 → 106,619 and each
 * installment's interest is the balance before it × 1% (rounded half up), its principal the rest:
 * balance 1,200,000 → interest 12,000, principal 94,619; 1,105,381 → 11,053.81 → 11,054, 95,565;
 * 1,009,816 → 10,098, 96,521; 913,295 → 9,133, 97,486; 815,809 → 8,158, 98,461; 717,348 →
 * 7,173, 99,446; 617,902 → 6,179, 100,440; 517,462 → 5,175, 101,444; 416,018 → 4,160, 102,459;
 * 313,559 → 3,136, 103,483; 210,076 → 2,101, 104,518; the last takes the 105,558 left, interest
 * 1,056.
 */
const BOOKED_PRINCIPAL = [94_619, 95_565, 96_521, 97_486, 98_461, 99_446, 100_440, 101_444, 102_459, 103_483, 104_518, 105_558]
const BOOKED_INTEREST = [12_000, 11_054, 10_098, 9_133, 8_158, 7_173, 6_179, 5_175, 4_160, 3_136, 2_101, 1_056]
const DUE_DATES = ['2026-04-10', '2026-05-10', '2026-06-10', '2026-07-10', '2026-08-10', '2026-09-10', '2026-10-10', '2026-11-10', '2026-12-10', '2027-01-10', '2027-02-10', '2027-03-10']

/** Noon UTC on `date`: the server's "today" is then `date`. */
const noon = (date: string): Date => new Date(`${date}T12:00:00.000Z`)

const RATE_BPS = 1200
const PRINCIPAL = 1_200_000
const NO_PAST_DUE = { fees: 0, interest: 0, principal: 0 }

type Row = Record<string, any>

/** The product every loan here is booked on; a scenario adds servicing rules to it. */
const CLOCKWORK = {
  name: 'Clockwork Term Loan',
  currency: 'USD',
  min_amount: 100_000,
  max_amount: 5_000_000,
  min_term_months: 3,
  max_term_months: 24,
  interest_rate_bps: RATE_BPS,
  origination_fee_bps: 100,
}

type Shared = {
  server: TestServer
  receiver: Awaited<ReturnType<typeof startCodeReceiver>>
  clock: TestClock
  borrower: Borrower
}

/** What a scenario does to one loan of the server. */
const loanHelpers = (shared: Shared) => {
  const state = {} as { loan: BookedLoan; methodId: string; productId: string }
  const get = async (path: string): Promise<Row> => {
    const reply = await request(shared.server.url, path, { headers: bearer(shared.borrower.key.api_key) })
    expect(reply.status, `GET ${path}: ${reply.text}`).to.equal(200)
    return reply.body
  }
  const internal = (method: string, path: string, json?: unknown): Promise<Reply> =>
    request(shared.server.url, path, { method, headers: bearer(INTERNAL_TOKEN), ...(json === undefined ? {} : { json }) })
  /** Takes a payment, then moves the clock a second on, so each payment has its own time, as in life. */
  const pay = async (amount: number, key = `pay-${randomUUID()}`): Promise<Reply> => {
    const reply = await request(shared.server.url, state.loan.paths.payments, {
      method: 'POST',
      headers: { ...bearer(shared.borrower.key.api_key), 'Idempotency-Key': key },
      json: { amount, currency: 'USD', payment_method_id: state.methodId },
    })
    shared.clock.advance(1_000)
    return reply
  }
  const payoffPath = (asOf?: string): string => `${state.loan.paths.loan}/payoff${asOf === undefined ? '' : `?as_of=${asOf}`}`
  return {
    state,
    /** The server the loan is on. */
    server: (): TestServer => shared.server,
    internal,
    /** A partner GET that must answer 200: its body. */
    get,
    /** A partner request answered as it is. */
    partner: (path: string, init: { readonly method?: string; readonly json?: unknown } = {}): Promise<Reply> =>
      request(shared.server.url, path, { ...init, headers: bearer(shared.borrower.key.api_key) }),
    at: (date: string) => shared.clock.set(noon(date)),
    job: async (asOf?: string): Promise<Row> => {
      const reply = await internal('POST', `/internal/jobs/accrue-interest${asOf === undefined ? '' : `?as_of=${asOf}`}`)
      expect(reply.status, reply.text).to.equal(200)
      // The job acts on the live world; the rest of the body is what the run did.
      const { livemode, ...run } = reply.body
      expect(livemode).to.equal(true)
      return run
    },
    pay,
    /** Pays `amount` and expects it to succeed: the payment's body. */
    paid: async (amount: number): Promise<Row> => {
      const reply = await pay(amount)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body).to.deep.include({ status: 'SUCCEEDED', amount, failure_code: null })
      return reply.body
    },
    reverse: async (paymentId: string): Promise<Row> => {
      const reply = await internal('POST', `/internal/payments/${paymentId}/reverse`, { reason: 'NSF return' })
      expect(reply.status, reply.text).to.equal(200)
      return reply.body
    },
    loan: (): Promise<Row> => get(state.loan.paths.loan),
    payoff: (asOf?: string): Promise<Row> => get(payoffPath(asOf)),
    payoffReply: (asOf: string): Promise<Reply> => request(shared.server.url, payoffPath(asOf), { headers: bearer(shared.borrower.key.api_key) }),
    schedule: (): Promise<Row[]> => allPages(shared.server, shared.borrower.key.api_key, state.loan.paths.schedule),
    ledger: (query = ''): Promise<Row[]> => allPages(shared.server, shared.borrower.key.api_key, `${state.loan.paths.transactions}${query}`),
    balances: (): Promise<Row[]> => allPages(shared.server, shared.borrower.key.api_key, state.loan.paths.balances),
    payments: (): Promise<Row[]> => allPages(shared.server, shared.borrower.key.api_key, state.loan.paths.payments),
    latest: (): Promise<Row> => get(state.loan.paths.latestBalance),
    /**
     * The ledger's bucket sums = the latest balance = the schedule's totals still owed
     * (`expectLedgerMatchesLatestBalance`). Its schedule side counts interest only on installments
     * whose interest is final, so it holds only while no interest accrued to the open installment
     * is unpaid; otherwise use `posted`.
     */
    invariant: (label: string) => expectLedgerMatchesLatestBalance(shared.server, shared.borrower.key.api_key, state.loan.paths, label),
    /**
     * The ledger's bucket sums = the latest balance (docs/servicing.md "The ledger is the source of
     * truth"), for a day on which everything accrued to today has been posted.
     */
    posted: async (label: string): Promise<void> => {
      const ledger = await allPages(shared.server, shared.borrower.key.api_key, state.loan.paths.transactions)
      const sum = (bucket: 'principal' | 'interest' | 'fees'): number => ledger.reduce((total, e) => total + (e[bucket] as number), 0)
      const latest = await get(state.loan.paths.latestBalance)
      expect(
        { principal: latest['principal_outstanding'], interest: latest['interest_outstanding'], fees: latest['fees_outstanding'], payoff: latest['payoff_amount'] },
        `${label}: ledger sums vs latest balance`,
      ).to.deep.equal({ principal: sum('principal'), interest: sum('interest'), fees: sum('fees'), payoff: sum('principal') + sum('interest') + sum('fees') })
    },
    /** Creates the product (CLOCKWORK with `rules`), books the loan on 2026-03-10 and adds a bank account. */
    book: async (rules: Record<string, unknown>, name: string): Promise<void> => {
      const { term_months: termMonths = 12, ...product_rules } = rules as { readonly term_months?: number }
      const product = await internal('POST', '/internal/loan-products', { ...CLOCKWORK, ...product_rules, ...(termMonths < CLOCKWORK.min_term_months ? { min_term_months: termMonths } : {}), name })
      expect(product.status, product.text).to.equal(201)
      state.productId = product.body.product_id
      state.loan = await bookLoan(shared.server, shared.borrower, { product_id: state.productId, amount: PRINCIPAL, term_months: termMonths })
      expect(state.loan.loan).to.deep.include({ start_date: '2026-03-10', first_due_date: '2026-04-10', interest_rate_bps: RATE_BPS })
      const method = await request(shared.server.url, state.loan.paths.paymentMethods, {
        method: 'POST',
        headers: bearer(shared.borrower.key.api_key),
        json: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '021000021', account_number: '987654321' },
      })
      expect(method.status, method.text).to.equal(201)
      state.methodId = method.body.payment_method_id
    },
  }
}

type LoanHelpers = ReturnType<typeof loanHelpers>

/**
 * Loans of one borrower in their own in-memory server with a clock the test moves, all booked on
 * 2026-03-10, each on its own product: CLOCKWORK with the servicing rules given for it.
 */
const servicedLoans = (rules: readonly Record<string, unknown>[], override: () => Partial<AppDeps> = () => ({})): LoanHelpers[] => {
  const shared = {} as Shared
  const loans = rules.map(() => loanHelpers(shared))
  before(async () => {
    shared.receiver = await startCodeReceiver()
    shared.server = await startInMemoryServer(() => ({ sender: httpCodeSender(shared.receiver.url), ...override() }))
    shared.clock = shared.server.deps.clock as TestClock
    shared.clock.set(noon('2026-03-10'))
    shared.borrower = await onboardBorrower(shared.server, shared.receiver)
    for (const [k, loan] of loans.entries()) await loan.book(rules[k]!, `${CLOCKWORK.name} ${k + 1}`)
  })
  after(async () => {
    await shared.server.stop()
    await shared.receiver.close()
  })
  return loans
}

/** One loan on CLOCKWORK with `rules` (by default the product's defaults: 30/360, REDUCE_TERM, no late fee). */
const servicedLoan = (rules: Record<string, unknown> = {}, override: () => Partial<AppDeps> = () => ({})): LoanHelpers => servicedLoans([rules], override)[0]!

const statuses = (schedule: readonly Row[]): string[] => schedule.map((i) => i['status'] as string)
/** An installment's figures, in a short form: [principal_due, interest_due, fees_due, principal_paid, interest_paid, fees_paid, status]. */
const figures = (i: Row): unknown[] => [i['principal_due'], i['interest_due'], i['fees_due'], i['principal_paid'], i['interest_paid'], i['fees_paid'], i['status']]
const entries = (ledger: readonly Row[]): unknown[][] => ledger.map((e) => [e['type'], e['effective_date'], e['amount'], e['principal'], e['interest'], e['fees']])

describe('loan servicing over time (in-memory server, controllable clock)', () => {
  describe('missed due dates accrue through the job, then are caught up and paid off', () => {
    const t = servicedLoan()

    it('before the first due date: the booked schedule, every installment UPCOMING, the job accrues nothing', async () => {
      const schedule = await t.schedule()
      expect(schedule.map((i) => i['due_date'])).to.deep.equal(DUE_DATES)
      expect(schedule.map((i) => i['principal_due'])).to.deep.equal(BOOKED_PRINCIPAL)
      expect(schedule.map((i) => i['interest_due'])).to.deep.equal(BOOKED_INTEREST)
      expect(schedule.map((i) => i['interest_accrued'])).to.deep.equal(Array(12).fill(false))
      expect(statuses(schedule)).to.deep.equal(Array(12).fill('UPCOMING'))
      expect(await t.latest()).to.deep.include({ interest_outstanding: 0, payoff_amount: PRINCIPAL, next_due_date: '2026-04-10', next_due_amount: 106_619 })
      expect(await t.job()).to.deep.equal({ as_of: '2026-03-10', loans_examined: 1, loans_changed: 0, accruals: 0, loans_failed: 0 })
      expect(await t.balances()).to.have.length(1)
    })

    it('on the due date the installment is DUE; the job posts its month of interest once (INTEREST_ACCRUAL)', async () => {
      t.at('2026-04-10')
      expect(statuses(await t.schedule())).to.deep.equal(['DUE', ...Array(11).fill('UPCOMING')])

      expect(await t.job()).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      const ledger = await t.ledger()
      const accrual = ledger[ledger.length - 1]!
      // 2026-03-10 → 2026-04-10: a whole month, 30 days on 1,200,000 = 12,000.
      expect(documented('transaction', accrual)).to.deep.equal({
        transaction_id: accrual['transaction_id'],
        loan_id: t.state.loan.loanId,
        type: 'INTEREST_ACCRUAL',
        effective_date: '2026-04-10',
        amount: 12_000,
        currency: 'USD',
        principal: 0,
        interest: 12_000,
        fees: 0,
        payment_id: null,
        reverses_transaction_id: null,
        created_at: noon('2026-04-10').toISOString(),
      })
      const schedule = await t.schedule()
      expect(schedule[0]).to.deep.include({ principal_due: 94_619, interest_due: 12_000, total_due: 106_619, interest_accrued: true, status: 'DUE' })
      const latest = await t.latest()
      expect(documented('balance', latest)).to.deep.equal({
        balance_id: latest['balance_id'],
        loan_id: t.state.loan.loanId,
        as_of: '2026-04-10',
        currency: 'USD',
        principal_outstanding: PRINCIPAL,
        interest_outstanding: 12_000,
        fees_outstanding: 0,
        payoff_amount: 1_212_000,
        past_due_amount: 0,
        next_due_date: '2026-04-10',
        next_due_amount: 106_619,
        transaction_id: accrual['transaction_id'],
        created_at: noon('2026-04-10').toISOString(),
      })

      const balances = await t.balances()
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 0, accruals: 0, loans_failed: 0 })
      expect(await t.balances()).to.deep.equal(balances)
      expect(await t.ledger()).to.deep.equal(ledger)
      await t.invariant('after the first accrual')
    })

    it('the day after, the installment is LATE; the job posts the day of interest accrued to installment 2', async () => {
      t.at('2026-04-11')
      expect(statuses(await t.schedule())).to.deep.equal(['LATE', ...Array(11).fill('UPCOMING')])
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-11', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      const ledger = await t.ledger()
      // One day on the 1,200,000 still owed: 400, the open installment's (installment 2).
      expect(entries(ledger.slice(-1))).to.deep.equal([['INTEREST_ACCRUAL', '2026-04-11', 400, 0, 400, 0]])
      const schedule = await t.schedule()
      // Installment 2: 400 accrued, plus a projection 2026-04-11 → 2026-05-10 (29 days) on the
      // principal it and the later installments owe (1,105,381): 10,685.35 → 10,685; 11,085 in all.
      expect(figures(schedule[1]!)).to.deep.equal([95_565, 11_085, 0, 0, 0, 0, 'UPCOMING'])
      expect(await t.latest()).to.deep.include({
        as_of: '2026-04-11',
        principal_outstanding: PRINCIPAL,
        interest_outstanding: 12_400,
        payoff_amount: 1_212_400,
        past_due_amount: 106_619,
        next_due_date: '2026-05-10',
        next_due_amount: 95_565 + 11_085,
        transaction_id: ledger[ledger.length - 1]!['transaction_id'],
      })
      expect((await t.job()).loans_changed).to.equal(0)
      await t.posted('the day after the due date')
    })

    it('two more missed due dates: the whole unpaid principal keeps accruing (paying late raises interest)', async () => {
      t.at('2026-06-11')
      expect(await t.job()).to.deep.equal({ as_of: '2026-06-11', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      // Nothing was paid, so every month is 12,000 on 1,200,000: installments 1 to 3 owe 12,000
      // each and installment 4 has one day (400). 36,400 in all; 12,400 was posted: 24,000 now.
      const accruals = await t.ledger('?type=INTEREST_ACCRUAL')
      expect(accruals.map((a) => [a['effective_date'], a['amount'], a['interest']])).to.deep.equal([
        ['2026-04-10', 12_000, 12_000],
        ['2026-04-11', 400, 400],
        ['2026-06-11', 24_000, 24_000],
      ])
      expect(await t.ledger('?type=INTEREST_ACCRUAL&from=2026-04-11&to=2026-06-10')).to.deep.equal(accruals.slice(1, 2))
      expect(await t.ledger('?from=2026-04-12&to=2026-06-10')).to.deep.equal([])
      expect(await t.ledger('?to=2026-03-10')).to.have.length(3)

      const schedule = await t.schedule()
      // Installment 2 was projected at 11,054 (on 1,105,381); it owes 12,000 (on 1,200,000).
      // Installment 4: 400 accrued + 29 days projected on 913,295: 8,828.52 → 8,829; 9,229.
      expect(schedule.slice(0, 4).map(figures)).to.deep.equal([
        [94_619, 12_000, 0, 0, 0, 0, 'LATE'],
        [95_565, 12_000, 0, 0, 0, 0, 'LATE'],
        [96_521, 12_000, 0, 0, 0, 0, 'LATE'],
        [97_486, 9_229, 0, 0, 0, 0, 'UPCOMING'],
      ])
      expect(schedule.slice(0, 4).map((i) => i['interest_accrued'])).to.deep.equal([true, true, true, false])
      expect(statuses(schedule).slice(4)).to.deep.equal(Array(8).fill('UPCOMING'))
      // Past due: 3 × 12,000 + 94,619 + 95,565 + 96,521 = 322,705.
      expect(await t.latest()).to.deep.include({
        as_of: '2026-06-11',
        interest_outstanding: 36_400,
        payoff_amount: 1_236_400,
        past_due_amount: 322_705,
        next_due_date: '2026-07-10',
        next_due_amount: 97_486 + 9_229,
      })
      await t.posted('after three missed due dates')
    })

    it('a payment after missed due dates pays past due first, oldest installment first, fees → interest → principal', async () => {
      // 106,719: installment 1 whole (12,000 + 94,619), then 100 of installment 2's interest.
      const first = await t.paid(106_719)
      expect(first['allocation']).to.deep.equal({ past_due: { fees: 0, interest: 12_100, principal: 94_619 }, fees: 0, interest: 0, principal: 0 })
      const schedule = await t.schedule()
      expect(statuses(schedule).slice(0, 4)).to.deep.equal(['PAID', 'LATE', 'LATE', 'UPCOMING'])
      expect(schedule[1]).to.deep.include({ interest_paid: 100, principal_paid: 0 })
      expect(await t.latest()).to.deep.include({ past_due_amount: 322_705 - 106_719, interest_outstanding: 36_400 - 12_100, principal_outstanding: 1_105_381 })
      await t.posted('after a partial catch-up')

      // 220,986 = the 215,986 past due (23,900 interest, 95,565 + 96,521 principal) + 5,000: of
      // those, the 400 of interest accrued today to installment 4, then 4,600 of its principal.
      const rest = await t.paid(220_986)
      expect(rest['allocation']).to.deep.equal({ past_due: { fees: 0, interest: 23_900, principal: 192_086 }, fees: 0, interest: 400, principal: 4_600 })
      const caughtUp = await t.schedule()
      expect(statuses(caughtUp)).to.deep.equal(['PAID', 'PAID', 'PAID', 'PARTIALLY_PAID', ...Array(8).fill('UPCOMING')])
      // Principal now 1,200,000 − 94,619 − 192,086 − 4,600 = 908,695. Installment 4: 400 accrued and
      // paid, plus 29 days projected on 908,695: 8,784.05 → 8,784.
      expect(figures(caughtUp[3]!)).to.deep.equal([97_486, 9_184, 0, 4_600, 400, 0, 'PARTIALLY_PAID'])
      expect(await t.latest()).to.deep.include({
        principal_outstanding: 908_695,
        past_due_amount: 0,
        interest_outstanding: 0,
        next_due_date: '2026-07-10',
        next_due_amount: 97_486 - 4_600 + 8_784,
      })
      await t.invariant('caught up')
    })

    it('a payment on a due date the job has not reached accrues that interest first, on the lower principal', async () => {
      t.at('2026-07-10')
      // 2026-06-11 → 2026-07-10: 29 days on 908,695 = 8,784.05 → 8,784 (booked: 9,133 on 913,295).
      const reply = await t.paid(20_000)
      expect(reply['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 8_784, principal: 11_216 })
      const ledger = await t.ledger()
      expect(entries(ledger.slice(-2))).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-07-10', 8_784, 0, 8_784, 0],
        ['PAYMENT', '2026-07-10', 20_000, -11_216, -8_784, 0],
      ])
      const schedule = await t.schedule()
      expect(schedule[3]).to.deep.include({ interest_due: 9_184, interest_accrued: true, interest_paid: 9_184, principal_paid: 15_816, status: 'PARTIALLY_PAID' })
      expect(await t.job()).to.deep.include({ loans_changed: 0, accruals: 0 })
      await t.invariant('after a payment that accrued')
    })

    it('paying the payoff pays the rest of the schedule, which ends there; nothing is owed or next due', async () => {
      t.at('2026-07-20')
      // Principal 908,695 − 11,216 = 897,479; 10 days on it: 2,991.60 → 2,992.
      expect(await t.payoff()).to.deep.equal({
        loan_id: t.state.loan.loanId,
        as_of: '2026-07-20',
        currency: 'USD',
        principal: 897_479,
        interest: 2_992,
        fees: 0,
        payoff_amount: 900_471,
        pending_amount: 0,
        livemode: true,
      })
      const over = await t.pay(900_472)
      expect(over.status, over.text).to.equal(422)
      expect(over.body).to.deep.include({ error: 'overpayment', payoff_amount: 900_471 })

      const before = await t.schedule()
      expect(statuses(before).slice(0, 5)).to.deep.equal(['PAID', 'PAID', 'PAID', 'LATE', 'UPCOMING'])
      // Installment 4 still owes 97,486 − 15,816 = 81,670 of principal (past due), then the 2,992 of
      // interest accrued to installment 5, then 815,809 of principal: 98,461 of installment 5's and
      // 717,348 of prepayment recorded on it.
      const reply = await t.paid(900_471)
      expect(reply['allocation']).to.deep.equal({ past_due: { fees: 0, interest: 0, principal: 81_670 }, fees: 0, interest: 2_992, principal: 815_809 })

      const schedule = await t.schedule()
      expect(schedule.map((i) => i['due_date'])).to.deep.equal(DUE_DATES.slice(0, 5))
      expect(statuses(schedule)).to.deep.equal(Array(5).fill('PAID'))
      expect(figures(schedule[4]!)).to.deep.equal([815_809, 2_992, 0, 815_809, 2_992, 0, 'PAID'])
      expect(schedule.reduce((sum, i) => sum + (i['principal_due'] as number), 0)).to.equal(PRINCIPAL)
      const latest = await t.latest()
      expect(latest).to.deep.include({
        as_of: '2026-07-20',
        principal_outstanding: 0,
        interest_outstanding: 0,
        fees_outstanding: 0,
        payoff_amount: 0,
        past_due_amount: 0,
        next_due_date: null,
        next_due_amount: null,
      })
      expect((await t.loan())['status']).to.equal('PAID_OFF')
      await t.invariant('paid off')

      const tooMuch = await t.pay(100)
      expect(tooMuch.status, tooMuch.text).to.equal(422)
      expect(tooMuch.body).to.deep.include({ error: 'overpayment', payoff_amount: 0 })
    })

    it('after the payoff, the job skips the loan and nothing accrues', async () => {
      const balances = await t.balances()
      t.at('2027-04-11')
      expect(await t.job()).to.deep.equal({ as_of: '2027-04-11', loans_examined: 0, loans_changed: 0, accruals: 0, loans_failed: 0 })
      expect(await t.balances()).to.deep.equal(balances)
      expect(statuses(await t.schedule())).to.deep.equal(Array(5).fill('PAID'))
      expect(await t.ledger('?type=INTEREST_ACCRUAL&from=2026-07-21')).to.deep.equal([])
      expect(await t.latest()).to.deep.include({ as_of: '2027-04-11', payoff_amount: 0, interest_outstanding: 0 })
      await t.invariant('long after the payoff')
    })
  })

  describe('a payment after a missed due date with no job run, then reversed (the loan is derived again)', () => {
    const t = servicedLoan()
    const ids = {} as { late: string; latePosting: string; later: string }

    it('accrues the missed interest, pays the past due first, then the interest accrued since and principal ahead', async () => {
      t.at('2026-04-15')
      expect(statuses(await t.schedule())[0]).to.equal('LATE')
      // Interest to 2026-04-15: 12,000 (installment 1) + 5 days × 400 = 2,000 (installment 2).
      // 109,619 = 12,000 + 94,619 past due, then 2,000 of interest and 1,000 of installment 2's principal.
      const reply = await t.paid(109_619)
      ids.late = reply['payment_id']
      expect(reply['allocation']).to.deep.equal({ past_due: { fees: 0, interest: 12_000, principal: 94_619 }, fees: 0, interest: 2_000, principal: 1_000 })
      const ledger = await t.ledger()
      ids.latePosting = ledger[ledger.length - 1]!['transaction_id']
      expect(entries(ledger.slice(-2))).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-04-15', 14_000, 0, 14_000, 0],
        ['PAYMENT', '2026-04-15', 109_619, -95_619, -14_000, 0],
      ])
      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(['PAID', 'PARTIALLY_PAID', ...Array(10).fill('UPCOMING')])
      expect(await t.latest()).to.deep.include({ as_of: '2026-04-15', past_due_amount: 0, interest_outstanding: 0, principal_outstanding: 1_104_381 })
      await t.invariant('after a late payment')
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-15', loans_examined: 1, loans_changed: 0, accruals: 0, loans_failed: 0 })
    })

    it('a job run between events posts a part of the stretch; the next payment completes it, rounded once', async () => {
      t.at('2026-04-18')
      // 3 days on 1,104,381: 1,104.38 → 1,104.
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-18', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      t.at('2026-04-20')
      // The stretch 2026-04-15 → 2026-04-20 (5 days on 1,104,381): 1,840.64 → 1,841, of which 1,104 is posted: 737.
      const reply = await t.paid(5_000)
      ids.later = reply['payment_id']
      expect(reply['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 1_841, principal: 3_159 })
      expect(entries((await t.ledger()).slice(-3))).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-04-18', 1_104, 0, 1_104, 0],
        ['INTEREST_ACCRUAL', '2026-04-20', 737, 0, 737, 0],
        ['PAYMENT', '2026-04-20', 5_000, -3_159, -1_841, 0],
      ])
      expect(await t.latest()).to.deep.include({ principal_outstanding: 1_101_222, interest_outstanding: 0 })
      await t.invariant('after the second payment')
    })

    it('reversing the first payment re-prices the interest on the restored principal and reallocates the later payment', async () => {
      t.at('2026-04-22')
      const reversed = await t.reverse(ids.late)
      expect(reversed).to.deep.include({ payment_id: ids.late, status: 'REVERSED' })
      // Derived again with only the 5,000 of 2026-04-20: interest on 1,200,000 throughout: 12,000
      // (installment 1), 10 days to 2026-04-20 = 4,000 and 2 days = 800 (installment 2): 16,800.
      // The 5,000 now pays installment 1's interest (past due). So 11,800 of interest is owed and
      // the ledger, at 0 before, gets: the 14,000 the reversed payment paid back, 3,159 of the later
      // payment moved from principal to interest (REALLOCATION), and 959 more interest
      // (16,800 − 5,000 − 14,000 + 3,159 = 959: 7 days on 1,200,000 = 2,800 in place of the 1,841
      // charged on 1,104,381).
      const ledger = await t.ledger()
      const posted = ledger.slice(-3)
      expect(entries(posted)).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-04-22', 959, 0, 959, 0],
        ['REVERSAL', '2026-04-22', 109_619, 95_619, 14_000, 0],
        ['REALLOCATION', '2026-04-22', 3_159, 3_159, -3_159, 0],
      ])
      expect(posted.map((e) => [e['payment_id'], e['reverses_transaction_id']])).to.deep.equal([
        [null, null],
        [ids.late, ids.latePosting],
        [ids.later, null],
      ])
      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(['LATE', ...Array(11).fill('UPCOMING')])
      // Installment 2: 4,800 accrued + 18 days projected on 1,105,381 (6,632.29 → 6,632) = 11,432.
      expect(schedule.slice(0, 2).map(figures)).to.deep.equal([
        [94_619, 12_000, 0, 0, 5_000, 0, 'LATE'],
        [95_565, 11_432, 0, 0, 0, 0, 'UPCOMING'],
      ])
      expect(await t.latest()).to.deep.include({
        as_of: '2026-04-22',
        principal_outstanding: PRINCIPAL,
        interest_outstanding: 11_800,
        payoff_amount: 1_211_800,
        past_due_amount: 7_000 + 94_619,
        next_due_date: '2026-05-10',
        next_due_amount: 95_565 + 11_432,
      })
      const payments = await t.payments()
      // The reversed payment keeps what it paid; the later one is listed as it now stands (its
      // PAYMENT entry plus the REALLOCATION): 5,000 of installment 1's interest, past due.
      expect(payments.map((p) => [p['payment_id'], p['status'], p['allocation']])).to.deep.equal([
        [ids.late, 'REVERSED', { past_due: { fees: 0, interest: 12_000, principal: 94_619 }, fees: 0, interest: 2_000, principal: 1_000 }],
        [ids.later, 'SUCCEEDED', { past_due: { fees: 0, interest: 5_000, principal: 0 }, fees: 0, interest: 0, principal: 0 }],
      ])
      await t.posted('after the reversal')
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-22', loans_examined: 1, loans_changed: 0, accruals: 0, loans_failed: 0 })
    })
  })

  describe('an installment whose principal was paid ahead, on and after its due date', () => {
    const t = servicedLoan()

    it('paid on the booking day it is PAID at once: no interest has accrued and it closes that day', async () => {
      const ahead = await t.paid(94_619)
      expect(ahead['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 0, principal: 94_619 })
      const schedule = await t.schedule()
      expect(figures(schedule[0]!)).to.deep.equal([94_619, 0, 0, 94_619, 0, 0, 'PAID'])
      expect(schedule[0]!['interest_accrued']).to.equal(true)
      // Interest from today belongs to installment 2: 60 days to 2026-05-10 on 1,105,381 = 22,107.62 → 22,108.
      expect(figures(schedule[1]!)).to.deep.equal([95_565, 22_108, 0, 0, 0, 0, 'UPCOMING'])
      expect(await t.latest()).to.deep.include({ principal_outstanding: 1_105_381, next_due_date: '2026-05-10', next_due_amount: 95_565 + 22_108 })
      await t.invariant('paid ahead')
    })

    it('on its due date, before the job has run, it stays PAID', async () => {
      t.at('2026-04-10')
      expect((await t.schedule())[0]).to.deep.include({ installment_number: 1, interest_due: 0, status: 'PAID' })
    })

    it('the day after, it is still PAID, never LATE; the interest accrued goes to installment 2', async () => {
      t.at('2026-04-11')
      expect((await t.schedule())[0]).to.deep.include({ installment_number: 1, status: 'PAID' })
      // 2026-03-10 → 2026-04-10 (a stretch ended by installment 1's due date): 11,053.81 → 11,054.
      expect(await t.job('2026-04-10')).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect(entries((await t.ledger()).slice(-1))).to.deep.equal([['INTEREST_ACCRUAL', '2026-04-10', 11_054, 0, 11_054, 0]])
      // One more day on 1,105,381: 368.46 → 368.
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-11', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(['PAID', ...Array(11).fill('UPCOMING')])
      // Installment 2: 11,054 + 368 accrued + 29 days projected on 1,105,381 (10,685.35 → 10,685).
      expect(figures(schedule[1]!)).to.deep.equal([95_565, 22_107, 0, 0, 0, 0, 'UPCOMING'])
      expect(await t.latest()).to.deep.include({ past_due_amount: 0, interest_outstanding: 11_422, next_due_date: '2026-05-10', next_due_amount: 95_565 + 22_107 })
      await t.posted('after accruing past a prepaid installment')
    })
  })

  describe('the billed amount paid 5 days before the due date', () => {
    const t = servicedLoan()

    it('makes the installment PAID that day, the small difference a prepayment', async () => {
      t.at('2026-04-05')
      // 2026-03-10 → 2026-04-05 is 26 calendar days (a part of a month): 26 × 400 = 10,400; the
      // 30-day month leaves 4 days to 2026-04-10, projected: 1,600. The bill: 94,619 + 12,000.
      expect(await t.latest()).to.deep.include({ next_due_date: '2026-04-10', next_due_amount: 106_619, interest_outstanding: 10_400 })
      // 10,400 of interest, 94,619 of principal, 1,600 of prepayment recorded on installment 1.
      const reply = await t.paid(106_619)
      expect(reply['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 10_400, principal: 96_219 })
      const schedule = await t.schedule()
      expect(figures(schedule[0]!)).to.deep.equal([96_219, 10_400, 0, 96_219, 10_400, 0, 'PAID'])
      expect(schedule[0]!['interest_accrued']).to.equal(true)
      // REDUCE_TERM recast from 2026-04-05 on 1,103,781, keeping 106,619: installment 2's interest
      // is 34 days (4 + 30, 2026-04-05 → 2026-05-10) on 1,103,781 = 12,509.52 → 12,510, principal
      // 94,109; then 1,009,672 → 10,097, 96,522; 913,150 → 9,132, 97,487; …; the last (11th) takes 105,402.
      expect(schedule).to.have.length(12)
      expect(schedule.slice(1).map((i) => i['principal_due'])).to.deep.equal([94_109, 96_522, 97_487, 98_462, 99_447, 100_441, 101_446, 102_460, 103_485, 104_520, 105_402])
      expect(schedule.slice(1, 4).map((i) => i['interest_due'])).to.deep.equal([12_510, 10_097, 9_132])
      expect(await t.latest()).to.deep.include({ principal_outstanding: 1_103_781, interest_outstanding: 0, next_due_date: '2026-05-10', next_due_amount: 106_619 })
      await t.invariant('paid early')
    })

    it('the day after the due date it is still PAID, never LATE', async () => {
      t.at('2026-04-11')
      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(['PAID', ...Array(11).fill('UPCOMING')])
      expect(await t.latest()).to.deep.include({ past_due_amount: 0, next_due_date: '2026-05-10' })
      // 2026-04-05 → 2026-04-10: 4 days on 1,103,781 = 1,471.71 → 1,472; then 1 day: 367.93 → 368.
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-11', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect(entries((await t.ledger()).slice(-1))).to.deep.equal([['INTEREST_ACCRUAL', '2026-04-11', 1_840, 0, 1_840, 0]])
      await t.posted('the day after the due date')
    })

    it('the prepayment lowered the next interest; the next bill pays installment 2 exactly', async () => {
      t.at('2026-05-10')
      // 1,472 + a month on 1,103,781 (11,037.81 → 11,038) = 12,510; on 1,105,381 (the bill without
      // the 1,600) it would have been 1,474 + 11,054 = 12,528.
      const schedule = await t.schedule()
      expect(figures(schedule[1]!)).to.deep.equal([94_109, 12_510, 0, 0, 0, 0, 'DUE'])
      expect(await t.latest()).to.deep.include({ next_due_date: '2026-05-10', next_due_amount: 106_619 })
      const reply = await t.paid(106_619)
      expect(reply['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 12_510, principal: 94_109 })
      expect(statuses(await t.schedule()).slice(0, 3)).to.deep.equal(['PAID', 'PAID', 'UPCOMING'])
      expect(await t.latest()).to.deep.include({ principal_outstanding: 1_009_672, next_due_date: '2026-06-10', next_due_amount: 96_522 + 10_097 })
      await t.invariant('second bill paid')
    })
  })

  describe('the last bill, above the payoff by the interest projected to its due date, is accepted and settles at the payoff', () => {
    // 1,200,000 for 1 month at 12%, booked 2026-03-10: the bill is 1,212,000, due 2026-04-10.
    const [today, early] = servicedLoans([{ term_months: 1 }, { term_months: 1 }])

    it('on the booking day: 201, 1,200,000 charged and recorded, the loan paid off', async () => {
      expect(await today!.latest()).to.deep.include({ payoff_amount: 1_200_000, next_due_amount: 1_212_000 })
      const reply = await today!.pay(1_212_000)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body).to.deep.include({ status: 'SUCCEEDED', amount: 1_200_000, allocation: { past_due: NO_PAST_DUE, fees: 0, interest: 0, principal: 1_200_000 } })
      expect(await today!.loan()).to.deep.include({ status: 'PAID_OFF' })
      expect(await today!.latest()).to.deep.include({ payoff_amount: 0, next_due_amount: null })
    })

    it('five days before the due date: the payoff of that day is charged', async () => {
      early!.at('2026-04-05')
      const reply = await early!.pay(1_212_000)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body).to.deep.include({ status: 'SUCCEEDED', amount: 1_210_400, allocation: { past_due: NO_PAST_DUE, fees: 0, interest: 10_400, principal: 1_200_000 } })
      expect(await early!.loan()).to.deep.include({ status: 'PAID_OFF' })
      await early!.posted('paid off early')
    })
  })

  describe('the accrual run goes on past a loan it cannot service', () => {
    const [broken, sound] = servicedLoans([{}, {}])

    it('answers 200, accrues the other loan, leaves the broken one as it was, logs it and counts it', async () => {
      const loans = broken!.server().deps.loans as InMemoryLoanRepository
      const stored = loans.all().find((l) => l.loan.id === broken!.state.loan.loanId)!
      // A snapshot that disagrees with the schedule: the engine refuses to post on this loan.
      loans.book({ ...stored, balance: { ...stored.balance, principalOutstanding: stored.balance.principalOutstanding + 1 } })
      const ledger = await broken!.ledger()
      broken!.at('2026-03-20')
      expect(await broken!.job()).to.deep.equal({ as_of: '2026-03-20', loans_examined: 2, loans_changed: 1, accruals: 1, loans_failed: 1 })
      expect(await broken!.ledger()).to.deep.equal(ledger)
      expect((await sound!.ledger('?type=INTEREST_ACCRUAL')).map((e) => [e['effective_date'], e['interest']])).to.deep.equal([['2026-03-20', 4_000]])
      const metrics = await broken!.server().deps.metrics.registry.metrics()
      expect(metrics).to.include('lendgate_job_loan_failures_total{job="servicing"} 1')
      const logged = broken!.server().logs.lines().filter((l) => l['loanId'] === broken!.state.loan.loanId)
      expect(logged.map((l) => [l['job'], typeof l['reason']])).to.deep.equal([['servicing', 'string']])
    })
  })

  describe('a large prepayment recasts the schedule and the bill (REDUCE_TERM and REDUCE_INSTALLMENT)', () => {
    const [term, installment] = servicedLoans([{}, { prepayment: 'REDUCE_INSTALLMENT' }])

    it('each loan keeps the rule of its product', async () => {
      expect(await term!.loan()).to.deep.include({ prepayment: 'REDUCE_TERM', day_count: 'THIRTY_360', payment_amount: 106_619 })
      expect(await installment!.loan()).to.deep.include({ prepayment: 'REDUCE_INSTALLMENT', day_count: 'THIRTY_360', payment_amount: 106_619 })
    })

    it('on the first due date, the bill and 500,000 more: 500,000 of prepayment recorded on installment 1', async () => {
      term!.at('2026-04-10')
      for (const loan of [term!, installment!]) {
        const reply = await loan.paid(606_619)
        expect(reply['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 12_000, principal: 594_619 })
        expect(figures((await loan.schedule())[0]!)).to.deep.equal([594_619, 12_000, 0, 594_619, 12_000, 0, 'PAID'])
        expect(await loan.latest()).to.deep.include({ principal_outstanding: 605_381, interest_outstanding: 0 })
        await loan.invariant('after the prepayment')
      }
    })

    it('REDUCE_TERM keeps the 106,619 installment and ends after installment 7', async () => {
      // 605,381 at 1% a month, 106,619 each: 6,054 + 100,565 → 504,816; 5,048 + 101,571 → 403,245;
      // 4,032 + 102,587 → 300,658; 3,007 + 103,612 → 197,046; 1,970 + 104,649 → 92,397;
      // the last: 924 + 92,397.
      const schedule = await term!.schedule()
      expect(schedule.map((i) => i['due_date'])).to.deep.equal(DUE_DATES.slice(0, 7))
      expect(schedule.slice(1).map((i) => [i['principal_due'], i['interest_due']])).to.deep.equal([
        [100_565, 6_054],
        [101_571, 5_048],
        [102_587, 4_032],
        [103_612, 3_007],
        [104_649, 1_970],
        [92_397, 924],
      ])
      expect(await term!.latest()).to.deep.include({ next_due_date: '2026-05-10', next_due_amount: 106_619 })
    })

    it('REDUCE_INSTALLMENT keeps the 11 due dates with a lower level payment', async () => {
      // 605,381 × 1% ÷ (1 − 1.01^−11) = 58,390.84 → 58,391: 6,054 + 52,337 → 553,044;
      // 5,530 + 52,861 → 500,183; …; the last: 578 + 57,818.
      const schedule = await installment!.schedule()
      expect(schedule.map((i) => i['due_date'])).to.deep.equal(DUE_DATES)
      expect(schedule.slice(1).map((i) => i['principal_due'])).to.deep.equal([52_337, 52_861, 53_389, 53_923, 54_462, 55_007, 55_557, 56_113, 56_674, 57_240, 57_818])
      expect(schedule.slice(1).map((i) => i['interest_due'])).to.deep.equal([6_054, 5_530, 5_002, 4_468, 3_929, 3_384, 2_834, 2_278, 1_717, 1_151, 578])
      expect(await installment!.latest()).to.deep.include({ next_due_date: '2026-05-10', next_due_amount: 58_391 })
    })

    it('the loan shows the level payment in force: 58,391 after REDUCE_INSTALLMENT, 106,619 after REDUCE_TERM', async () => {
      expect(await installment!.loan()).to.deep.include({ payment_amount: 58_391 })
      expect(await term!.loan()).to.deep.include({ payment_amount: 106_619 })
    })

    it('REDUCE_INSTALLMENT: the recomputed bill is accepted and pays installment 2 exactly', async () => {
      installment!.at('2026-05-10')
      const reply = await installment!.paid(58_391)
      expect(reply['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 6_054, principal: 52_337 })
      expect(statuses(await installment!.schedule()).slice(0, 3)).to.deep.equal(['PAID', 'PAID', 'UPCOMING'])
      expect(await installment!.latest()).to.deep.include({ principal_outstanding: 553_044, next_due_date: '2026-06-10', next_due_amount: 58_391 })
      await installment!.invariant('recast bill paid')
    })

    it('REDUCE_TERM: paying each recomputed bill on its due date pays the loan off on 2026-10-10', async () => {
      const bills = [
        ['2026-05-10', 106_619, 6_054],
        ['2026-06-10', 106_619, 5_048],
        ['2026-07-10', 106_619, 4_032],
        ['2026-08-10', 106_619, 3_007],
        ['2026-09-10', 106_619, 1_970],
        ['2026-10-10', 93_321, 924],
      ] as const
      for (const [date, bill, interest] of bills) {
        term!.at(date)
        expect(await term!.latest(), date).to.deep.include({ next_due_date: date, next_due_amount: bill, past_due_amount: 0 })
        const reply = await term!.paid(bill)
        expect(reply['allocation'], date).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest, principal: bill - interest })
      }
      expect(statuses(await term!.schedule())).to.deep.equal(Array(7).fill('PAID'))
      expect(await term!.latest()).to.deep.include({ principal_outstanding: 0, payoff_amount: 0, next_due_date: null, next_due_amount: null })
      expect((await term!.loan())['status']).to.equal('PAID_OFF')
      await term!.invariant('paid off early')
    })
  })

  describe('the payoff quote', () => {
    const [exact, short] = servicedLoans([{}, {}])

    it('is the principal, the interest accrued to as_of and the fees; today by default', async () => {
      exact!.at('2026-04-03')
      // 24 calendar days on 1,200,000 = 9,600 of interest; 40,400 of installment 1's principal.
      for (const loan of [exact!, short!]) {
        expect((await loan.paid(50_000))['allocation']).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 9_600, principal: 40_400 })
      }
      exact!.at('2026-05-01')
      // Principal 1,159,600. Interest: 2026-04-03 → 2026-04-10, the 6 days left of the 30-day month
      // (7 calendar days, March has 31): 2,319.2 → 2,319; 2026-04-10 → 2026-05-01, 21 days:
      // 8,117.2 → 8,117. 10,436 in all.
      expect(await exact!.payoff()).to.deep.equal({
        loan_id: exact!.state.loan.loanId,
        as_of: '2026-05-01',
        currency: 'USD',
        principal: 1_159_600,
        interest: 10_436,
        fees: 0,
        payoff_amount: 1_170_036,
        pending_amount: 0,
        livemode: true,
      })
      expect(await exact!.latest()).to.deep.include({ payoff_amount: 1_170_036 })
    })

    it('quotes up to 60 days ahead, assuming no payment before then', async () => {
      // 2,319 + a month to 2026-05-10 (11,596) + 10 days (3,865.33 → 3,865) = 17,780.
      expect(await exact!.payoff('2026-05-20')).to.deep.include({ as_of: '2026-05-20', principal: 1_159_600, interest: 17_780, fees: 0, payoff_amount: 1_177_380 })
      // 60 days ahead: 2,319 + 2 months (23,192) + 20 days (7,730.67 → 7,731) = 33,242.
      expect(await exact!.payoff('2026-06-30')).to.deep.include({ as_of: '2026-06-30', interest: 33_242, payoff_amount: 1_192_842 })
    })

    it('refuses a date before today or more than 60 days ahead (400 invalid_request naming as_of)', async () => {
      expectInvalid(await exact!.payoffReply('2026-04-30'), 'as_of', 'yesterday')
      expectInvalid(await exact!.payoffReply('2026-07-01'), 'as_of', '61 days ahead')
    })

    it('paying exactly the quote on its date pays the loan off', async () => {
      exact!.at('2026-05-20')
      expect(await exact!.payoff()).to.deep.include({ payoff_amount: 1_177_380 })
      await exact!.paid(1_177_380)
      expect((await exact!.loan())['status']).to.equal('PAID_OFF')
      expect(await exact!.latest()).to.deep.include({ principal_outstanding: 0, interest_outstanding: 0, fees_outstanding: 0, payoff_amount: 0 })
      await exact!.invariant('paid the quote')
    })

    it('one minor unit less does not: 1 of principal is left', async () => {
      expect(await short!.payoff()).to.deep.include({ as_of: '2026-05-20', payoff_amount: 1_177_380 })
      await short!.paid(1_177_379)
      expect((await short!.loan())['status']).to.equal('ACTIVE')
      expect(await short!.latest()).to.deep.include({ principal_outstanding: 1, interest_outstanding: 0, fees_outstanding: 0, payoff_amount: 1 })
      await short!.invariant('paid one short of the quote')
    })
  })

  describe('late fees (flat 2,500 + 500 bps, grace 10 days)', () => {
    const t = servicedLoan({ late_fee_flat: 2_500, late_fee_bps: 500, late_fee_grace_days: 10 })
    // Installment 1 (due 2026-04-10) owes 106,619 when the grace ends: 2,500 + 5% × 106,619
    // (5,330.95 → 5,331) = 7,831, charged on 2026-04-21, the first day after 10 days past due.

    it('the loan keeps the late-fee rules of its product', async () => {
      expect(await t.loan()).to.deep.include({ late_fee_flat: 2_500, late_fee_bps: 500, late_fee_grace_days: 10 })
    })

    it('within the grace period no fee is charged; a quote past it includes the fee', async () => {
      t.at('2026-04-20')
      // 12,000 + 10 days × 400.
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-20', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect(await t.ledger('?type=LATE_FEE')).to.deep.equal([])
      expect(await t.latest()).to.deep.include({ interest_outstanding: 16_000, fees_outstanding: 0, past_due_amount: 106_619 })
      expect(await t.payoff()).to.deep.include({ interest: 16_000, fees: 0, payoff_amount: 1_216_000 })
      // To 2026-04-25: 12,000 + 15 × 400 = 18,000 of interest, and the fee of 2026-04-21.
      expect(await t.payoff('2026-04-25')).to.deep.include({ principal: PRINCIPAL, interest: 18_000, fees: 7_831, payoff_amount: 1_225_831 })
    })

    it('the first day after the grace period, the job charges one LATE_FEE on the installment', async () => {
      t.at('2026-04-21')
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-21', loans_examined: 1, loans_changed: 1, accruals: 2, loans_failed: 0 })
      expect(entries((await t.ledger()).slice(-2))).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-04-21', 400, 0, 400, 0],
        ['LATE_FEE', '2026-04-21', 7_831, 0, 0, 7_831],
      ])
      const schedule = await t.schedule()
      expect(figures(schedule[0]!)).to.deep.equal([94_619, 12_000, 7_831, 0, 0, 0, 'LATE'])
      expect(schedule[0]!['total_due']).to.equal(114_450)
      expect(schedule.slice(1).map((i) => i['fees_due'])).to.deep.equal(Array(11).fill(0))
      expect(await t.latest()).to.deep.include({ interest_outstanding: 16_400, fees_outstanding: 7_831, payoff_amount: 1_224_231, past_due_amount: 114_450 })
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-21', loans_examined: 1, loans_changed: 0, accruals: 0, loans_failed: 0 })
      await t.posted('after the late fee')
    })

    it('is charged once: the next day only interest is posted', async () => {
      t.at('2026-04-22')
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-22', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect((await t.ledger('?type=LATE_FEE')).map((e) => [e['effective_date'], e['fees']])).to.deep.equal([['2026-04-21', 7_831]])
      expect(await t.latest()).to.deep.include({ interest_outstanding: 16_800, fees_outstanding: 7_831 })
    })

    it('a payment pays the fee first among the past due', async () => {
      const reply = await t.paid(10_000)
      expect(reply['allocation']).to.deep.equal({ past_due: { fees: 7_831, interest: 2_169, principal: 0 }, fees: 0, interest: 0, principal: 0 })
      expect(figures((await t.schedule())[0]!)).to.deep.equal([94_619, 12_000, 7_831, 0, 2_169, 7_831, 'LATE'])
      expect(await t.latest()).to.deep.include({ fees_outstanding: 0, interest_outstanding: 16_800 - 2_169, past_due_amount: 114_450 - 10_000 })
      await t.posted('after paying the fee')
    })
  })

  describe('after maturity', () => {
    const t = servicedLoan()

    it('at maturity, a payment of all but the last principal leaves that principal owed', async () => {
      t.at('2027-03-10')
      // Never paid: every month is 12,000 on 1,200,000. Past due: installments 1–11, 11 × 12,000
      // + (1,200,000 − 105,558) = 1,226,442; installment 12 is DUE: 12,000 + 105,558.
      expect(await t.latest()).to.deep.include({ interest_outstanding: 144_000, past_due_amount: 1_226_442, next_due_date: '2027-03-10', next_due_amount: 117_558 })
      const reply = await t.paid(1_226_442 + 12_000)
      expect(reply['allocation']).to.deep.equal({ past_due: { fees: 0, interest: 132_000, principal: 1_094_442 }, fees: 0, interest: 12_000, principal: 0 })
      expect(await t.latest()).to.deep.include({ principal_outstanding: 105_558, interest_outstanding: 0, past_due_amount: 0, next_due_amount: 105_558 })
      await t.invariant('at maturity')
    })

    it('interest keeps accruing on the unpaid principal, to the last installment', async () => {
      t.at('2027-03-25')
      // 15 days on 105,558: 527.79 → 528.
      expect(await t.job()).to.deep.equal({ as_of: '2027-03-25', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect(entries((await t.ledger()).slice(-1))).to.deep.equal([['INTEREST_ACCRUAL', '2027-03-25', 528, 0, 528, 0]])
      const schedule = await t.schedule()
      expect(schedule).to.have.length(12)
      expect(figures(schedule[11]!)).to.deep.equal([105_558, 12_528, 0, 0, 12_000, 0, 'LATE'])
      expect(await t.latest()).to.deep.include({
        principal_outstanding: 105_558,
        interest_outstanding: 528,
        past_due_amount: 106_086,
        next_due_date: null,
        next_due_amount: null,
      })
      // A whole month after maturity (2027-04-10) is 30 days: 1,055.58 → 1,056. So is 2027-04-09,
      // 30 calendar days after 2027-03-10 (a part of a month counts at most 30).
      expect(await t.payoff('2027-04-10')).to.deep.include({ principal: 105_558, interest: 1_056, payoff_amount: 106_614 })
      expect(await t.payoff('2027-04-09')).to.deep.include({ interest: 1_056, payoff_amount: 106_614 })
      await t.invariant('after maturity')
    })

    it('paying the quote a month after maturity pays the loan off', async () => {
      t.at('2027-04-10')
      const reply = await t.paid(106_614)
      expect(reply['allocation']).to.deep.equal({ past_due: { fees: 0, interest: 1_056, principal: 105_558 }, fees: 0, interest: 0, principal: 0 })
      expect(entries((await t.ledger()).slice(-2))).to.deep.equal([
        ['INTEREST_ACCRUAL', '2027-04-10', 528, 0, 528, 0],
        ['PAYMENT', '2027-04-10', 106_614, -105_558, -1_056, 0],
      ])
      expect((await t.loan())['status']).to.equal('PAID_OFF')
      expect(statuses(await t.schedule())).to.deep.equal(Array(12).fill('PAID'))
      await t.invariant('paid off after maturity')
    })
  })

  describe('a product with ACTUAL_365 interest', () => {
    const t = servicedLoan({ day_count: 'ACTUAL_365' })
    // Calendar days over 365: the first period (2026-03-10 → 2026-04-10) is 31 days:
    // 1,200,000 × 12% × 31 ÷ 365 = 12,230.14 → 12,230 (12,000 under 30/360).

    it('the loan keeps ACTUAL_365 and its schedule counts calendar days', async () => {
      // Level payment over periods of 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 28 days:
      // 106,654 (exact annuity over those periods, rounded half up), so installment 1 is
      // 12,230 + 94,424; installment 2 (30 days on 1,105,576): 10,904.31 → 10,904.
      expect(await t.loan()).to.deep.include({ day_count: 'ACTUAL_365', payment_amount: 106_654 })
      const schedule = await t.schedule()
      expect(schedule.slice(0, 2).map((i) => [i['principal_due'], i['interest_due']])).to.deep.equal([
        [94_424, 12_230],
        [95_750, 10_904],
      ])
    })

    it('changing the product afterwards changes nothing on the booked loan', async () => {
      const patched = await t.internal('PATCH', `/internal/loan-products/${t.state.productId}`, { day_count: 'THIRTY_360' })
      expect(patched.status, patched.text).to.equal(200)
      expect(patched.body).to.deep.include({ day_count: 'THIRTY_360' })
      expect(await t.loan()).to.deep.include({ day_count: 'ACTUAL_365' })
    })

    it('the job posts the first period by calendar days, then 10 more days', async () => {
      t.at('2026-04-10')
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect(entries((await t.ledger()).slice(-1))).to.deep.equal([['INTEREST_ACCRUAL', '2026-04-10', 12_230, 0, 12_230, 0]])
      expect((await t.schedule())[0]).to.deep.include({ interest_due: 12_230, interest_accrued: true, status: 'DUE' })
      t.at('2026-04-20')
      // 10 days: 1,200,000 × 12% × 10 ÷ 365 = 3,945.21 → 3,945.
      expect(await t.latest()).to.deep.include({ interest_outstanding: 16_175, payoff_amount: 1_216_175 })
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-20', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 })
      expect(entries((await t.ledger()).slice(-1))).to.deep.equal([['INTEREST_ACCRUAL', '2026-04-20', 3_945, 0, 3_945, 0]])
      await t.posted('actual/365')
    })
  })

  describe('the payment processor unreachable', () => {
    let down = false
    const sandbox = sandboxPaymentProcessor()
    const flaky: PaymentProcessor = {
      charge: (charge) => (down ? TE.left({ _tag: 'ProcessorUnavailable', cause: new Error('connect ECONNREFUSED') }) : sandbox.charge(charge)),
    }
    const t = servicedLoan({}, () => ({ processor: flaky }))

    it('answers 502 payment_processor_unavailable and records nothing; a retry with the same key pays once', async () => {
      const balances = await t.balances()
      const ledger = await t.ledger()
      const key = `retry-${randomUUID()}`
      down = true
      const failed = await t.pay(40_013, key)
      expect(failed.status, failed.text).to.equal(502)
      expect(failed.body).to.deep.equal({
        error: 'payment_processor_unavailable',
        detail: 'The payment processor could not be reached; nothing was charged. Retry with the same Idempotency-Key.',
      })
      expect(await t.balances()).to.deep.equal(balances)
      expect(await t.ledger()).to.deep.equal(ledger)

      down = false
      // An amount ending in 13 settles: the sandbox judges a charge by its method, never by its amount.
      const retried = await t.pay(40_013, key)
      expect(retried.status, retried.text).to.equal(201)
      expect(retried.headers.get('idempotent-replayed')).to.equal(null)
      expect(retried.body).to.deep.include({ status: 'SUCCEEDED', amount: 40_013, failure_code: null })
      const replay = await t.pay(40_013, key)
      expect(replay.headers.get('idempotent-replayed')).to.equal('true')
      expect(replay.body).to.deep.equal(retried.body)
      expect((await t.ledger('?type=PAYMENT')).map((e) => e['payment_id'])).to.deep.equal([retried.body.payment_id])
      await t.invariant('after a retried payment')
    })
  })

  describe('delinquency and a charge-off', () => {
    const t = servicedLoan()

    it('counts days past due on the loan view, and filters the loan list by bucket', async () => {
      // Installment 1 (due 2026-04-10) unpaid: 31 days past due on 2026-05-11.
      t.at('2026-05-11')
      expect(await t.loan()).to.deep.include({ days_past_due: 31, delinquency_bucket: 'DPD_31_60', charged_off_on: null })
      const listed = async (bucket: string) => ((await t.get(`${t.state.loan.paths.loans}?delinquency=${bucket}&limit=100`))['data'] as Row[]).map((l) => l['loan_id'])
      expect(await listed('DPD_31_60')).to.include(t.state.loan.loanId)
      expect(await listed('CURRENT')).to.not.include(t.state.loan.loanId)
      const bad = await t.partner(`${t.state.loan.paths.loans}?delinquency=LATE`)
      expect(bad.status, bad.text).to.equal(400)
      expect(bad.body).to.deep.include({ error: 'invalid_request', param: 'delinquency' })
    })

    it('charges the loan off: everything owed written off, CHARGED_OFF, and nothing more on it', async () => {
      const owed = await t.latest()
      const reply = await t.internal('POST', `/internal/loans/${t.state.loan.loanId}/charge-off`, { reason: 'Borrower insolvent' })
      expect(reply.status, reply.text).to.equal(200)
      expect(reply.body).to.deep.include({ status: 'CHARGED_OFF', charged_off_on: '2026-05-11', days_past_due: 31 })
      const [last] = (await t.ledger()).slice(-1)
      expect([last!['type'], last!['principal'], last!['interest'], last!['fees']]).to.deep.equal([
        'CHARGE_OFF',
        0 - owed['principal_outstanding'],
        0 - owed['interest_outstanding'],
        0 - owed['fees_outstanding'],
      ])
      expect(await t.latest()).to.deep.include({ principal_outstanding: 0, interest_outstanding: 0, fees_outstanding: 0, payoff_amount: 0 })
      const paid = await t.pay(10_000)
      expect(paid.status, paid.text).to.equal(409)
      expect(paid.body).to.deep.include({ error: 'invalid_state' })
      expect((await t.payoffReply('2026-05-11')).status).to.equal(409)
      expect((await t.internal('POST', `/internal/loans/${t.state.loan.loanId}/charge-off`)).status).to.equal(409)
      // Days past due stop on the day it was charged off.
      t.at('2026-06-30')
      expect(await t.loan()).to.deep.include({ days_past_due: 31, delinquency_bucket: 'DPD_31_60' })
      expect(await t.job()).to.deep.include({ loans_changed: 0, accruals: 0 })
    })
  })
})
