import { randomUUID } from 'node:crypto'
import { httpCodeSender, sandboxPaymentProcessor } from '@lendgate/adapters'
import type { PaymentProcessor } from '@lendgate/core'
import type { TestClock } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../src/deps.js'
import { allPages, bookLoan, documented, expectLedgerMatchesLatestBalance, monthlyInterestOf, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startInMemoryServer, type TestServer } from './support/test-server.js'

/** Noon UTC on `date`: the server's "today" is then `date`. */
const noon = (date: string): Date => new Date(`${date}T12:00:00.000Z`)

/** 12.00% a year: one 30/360 month on 1,200,000 is exactly 12,000. */
const RATE_BPS = 1200
const PRINCIPAL = 1_200_000
const NO_PAST_DUE = { fees: 0, interest: 0, principal: 0 }

/** Amounts ending in 13 or 14 fail at the sandbox processor (docs/servicing.md "Payments"). */
const settles = (amount: number): boolean => amount % 100 !== 13 && amount % 100 !== 14

type Row = Record<string, any>

/**
 * A loan in its own in-memory server with a clock the test moves: booked on 2026-03-10
 * (installments due on the 10th of each month from 2026-04-10), 1,200,000 USD over 12 months at
 * 12.00%, fee 1.00% withheld.
 */
const servicedLoan = (override: () => Partial<AppDeps> = () => ({})) => {
  const state = {} as {
    server: TestServer
    receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    clock: TestClock
    borrower: Borrower
    loan: BookedLoan
    methodId: string
  }
  const get = async (path: string): Promise<any> => {
    const reply = await request(state.server.url, path, { headers: bearer(state.borrower.key.api_key) })
    expect(reply.status, `GET ${path}: ${reply.text}`).to.equal(200)
    return reply.body
  }
  const internal = (method: string, path: string, json?: unknown): Promise<Reply> =>
    request(state.server.url, path, { method, headers: bearer(INTERNAL_TOKEN), ...(json === undefined ? {} : { json }) })
  const helpers = {
    state,
    get,
    internal,
    at: (date: string) => state.clock.set(noon(date)),
    job: async (asOf?: string): Promise<Row> => {
      const reply = await internal('POST', `/internal/jobs/accrue-interest${asOf === undefined ? '' : `?as_of=${asOf}`}`)
      expect(reply.status, reply.text).to.equal(200)
      return reply.body
    },
    pay: (amount: number, key = `pay-${randomUUID()}`): Promise<Reply> =>
      request(state.server.url, state.loan.paths.payments, {
        method: 'POST',
        headers: { ...bearer(state.borrower.key.api_key), 'Idempotency-Key': key },
        json: { amount, currency: 'USD', payment_method_id: state.methodId },
      }),
    schedule: (): Promise<Row[]> => allPages(state.server, state.borrower.key.api_key, state.loan.paths.schedule),
    ledger: (query = ''): Promise<Row[]> => allPages(state.server, state.borrower.key.api_key, `${state.loan.paths.transactions}${query}`),
    balances: (): Promise<Row[]> => allPages(state.server, state.borrower.key.api_key, state.loan.paths.balances),
    latest: (): Promise<Row> => get(state.loan.paths.latestBalance),
    invariant: (label: string) => expectLedgerMatchesLatestBalance(state.server, state.borrower.key.api_key, state.loan.paths, label),
  }

  before(async () => {
    state.receiver = await startCodeReceiver()
    state.server = await startInMemoryServer(() => ({ sender: httpCodeSender(state.receiver.url), ...override() }))
    state.clock = state.server.deps.clock as TestClock
    state.clock.set(noon('2026-03-10'))
    state.borrower = await onboardBorrower(state.server, state.receiver)
    const product = await internal('POST', '/internal/loan-products', {
      name: 'Clockwork Term Loan',
      currency: 'USD',
      min_amount: 100_000,
      max_amount: 5_000_000,
      min_term_months: 3,
      max_term_months: 24,
      interest_rate_bps: RATE_BPS,
      origination_fee_bps: 100,
    })
    expect(product.status, product.text).to.equal(201)
    state.loan = await bookLoan(state.server, state.borrower, { product_id: product.body.product_id, amount: PRINCIPAL, term_months: 12 })
    expect(state.loan.loan).to.deep.include({ start_date: '2026-03-10', first_due_date: '2026-04-10', maturity_date: '2027-03-10', interest_rate_bps: RATE_BPS })
    const method = await request(state.server.url, state.loan.paths.paymentMethods, {
      method: 'POST',
      headers: bearer(state.borrower.key.api_key),
      json: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '021000021', account_number: '987654321' },
    })
    expect(method.status, method.text).to.equal(201)
    state.methodId = method.body.payment_method_id
  })
  after(async () => {
    await state.server.stop()
    await state.receiver.close()
  })
  return helpers
}

const statuses = (schedule: readonly Row[]): string[] => schedule.map((i) => i['status'] as string)

describe('loan servicing over time (in-memory server, controllable clock)', () => {
  describe('missed due dates accrue through the job, then are caught up and paid off', () => {
    const t = servicedLoan()
    /** The schedule as booked: its interest is the projection. */
    let projected: Row[]

    it('before the first due date: every installment UPCOMING, the job accrues nothing', async () => {
      projected = await t.schedule()
      expect(projected.map((i) => i['due_date'])).to.deep.equal(
        ['2026-04-10', '2026-05-10', '2026-06-10', '2026-07-10', '2026-08-10', '2026-09-10', '2026-10-10', '2026-11-10', '2026-12-10', '2027-01-10', '2027-02-10', '2027-03-10'],
      )
      expect(statuses(projected)).to.deep.equal(Array(12).fill('UPCOMING'))
      expect(await t.job()).to.deep.equal({ as_of: '2026-03-10', loans_examined: 1, loans_changed: 0, accruals: 0 })
      expect(await t.balances()).to.have.length(1)
    })

    it('on the due date the installment is DUE; the job accrues its interest once (INTEREST_ACCRUAL)', async () => {
      t.at('2026-04-10')
      expect(statuses(await t.schedule())).to.deep.equal(['DUE', ...Array(11).fill('UPCOMING')])

      expect(await t.job()).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 1, accruals: 1 })
      const ledger = await t.ledger()
      const accrual = ledger[ledger.length - 1]!
      const interest = monthlyInterestOf(PRINCIPAL, RATE_BPS)
      expect(interest).to.equal(12_000)
      expect(documented('transaction', accrual)).to.deep.equal({
        transaction_id: accrual['transaction_id'],
        loan_id: t.state.loan.loanId,
        type: 'INTEREST_ACCRUAL',
        effective_date: '2026-04-10',
        amount: interest,
        currency: 'USD',
        principal: 0,
        interest,
        fees: 0,
        payment_id: null,
        reverses_transaction_id: null,
        created_at: noon('2026-04-10').toISOString(),
      })
      const schedule = await t.schedule()
      expect(schedule[0]).to.deep.include({ interest_due: interest, interest_accrued: true, status: 'DUE' })
      const latest = await t.latest()
      expect(documented('balance', latest)).to.deep.equal({
        balance_id: latest.balance_id,
        loan_id: t.state.loan.loanId,
        as_of: '2026-04-10',
        principal_outstanding: PRINCIPAL,
        interest_outstanding: interest,
        fees_outstanding: 0,
        payoff_amount: PRINCIPAL + interest,
        past_due_amount: 0,
        next_due_date: '2026-04-10',
        next_due_amount: schedule[0]!['total_due'],
        transaction_id: accrual['transaction_id'],
        created_at: noon('2026-04-10').toISOString(),
      })

      const balances = await t.balances()
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 0, accruals: 0 })
      expect(await t.balances()).to.deep.equal(balances)
      expect(await t.ledger()).to.deep.equal(ledger)
      await t.invariant('after the first accrual')
    })

    it('the day after, the installment is LATE and the job writes what is past due (no new entry)', async () => {
      t.at('2026-04-11')
      const ledger = await t.ledger()
      expect(statuses(await t.schedule())).to.deep.equal(['LATE', ...Array(11).fill('UPCOMING')])
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-11', loans_examined: 1, loans_changed: 1, accruals: 0 })
      const schedule = await t.schedule()
      const latest = await t.latest()
      expect(latest).to.deep.include({
        as_of: '2026-04-11',
        principal_outstanding: PRINCIPAL,
        interest_outstanding: 12_000,
        past_due_amount: schedule[0]!['total_due'],
        next_due_date: '2026-05-10',
        next_due_amount: schedule[1]!['total_due'],
        transaction_id: ledger[ledger.length - 1]!['transaction_id'],
      })
      expect(await t.ledger()).to.deep.equal(ledger)
      expect((await t.job()).loans_changed).to.equal(0)
    })

    it('two more missed due dates: the job accrues both on the unpaid principal (paying late raises interest)', async () => {
      t.at('2026-06-11')
      expect(await t.job()).to.deep.equal({ as_of: '2026-06-11', loans_examined: 1, loans_changed: 1, accruals: 2 })
      const accruals = await t.ledger('?type=INTEREST_ACCRUAL')
      expect(accruals.map((a) => [a['effective_date'], a['amount'], a['interest']])).to.deep.equal([
        ['2026-04-10', 12_000, 12_000],
        ['2026-05-10', 12_000, 12_000],
        ['2026-06-10', 12_000, 12_000],
      ])
      expect(await t.ledger('?type=INTEREST_ACCRUAL&from=2026-05-10&to=2026-06-10')).to.deep.equal(accruals.slice(1))
      expect(await t.ledger('?from=2026-04-11&to=2026-05-09')).to.deep.equal([])
      expect(await t.ledger('?to=2026-03-10')).to.have.length(3)

      const schedule = await t.schedule()
      expect(projected[1]!['interest_due']).to.be.below(12_000)
      expect(schedule.slice(0, 3).map((i) => [i['interest_due'], i['interest_accrued'], i['status']])).to.deep.equal([
        [12_000, true, 'LATE'],
        [12_000, true, 'LATE'],
        [12_000, true, 'LATE'],
      ])
      expect(statuses(schedule).slice(3)).to.deep.equal(Array(9).fill('UPCOMING'))
      const owedOnThree = schedule.slice(0, 3).reduce((sum, i) => sum + (i['total_due'] as number), 0)
      expect(await t.latest()).to.deep.include({
        as_of: '2026-06-11',
        interest_outstanding: 36_000,
        payoff_amount: PRINCIPAL + 36_000,
        past_due_amount: owedOnThree,
        next_due_date: '2026-07-10',
      })
      await t.invariant('after three accruals')
    })

    it('a payment after missed due dates pays past due first, oldest installment first, fees → interest → principal', async () => {
      const before = await t.schedule()
      const pastDueBefore = (await t.latest()).past_due_amount as number
      let extra = 100
      while (!settles((before[0]!['total_due'] as number) + extra)) extra += 10
      const amount = (before[0]!['total_due'] as number) + extra
      const reply = await t.pay(amount)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body).to.deep.include({ status: 'SUCCEEDED', amount, failure_code: null })
      expect(reply.body.allocation).to.deep.equal({
        past_due: { fees: 0, interest: 12_000 + extra, principal: before[0]!['principal_due'] },
        fees: 0,
        interest: 0,
        principal: 0,
      })
      const schedule = await t.schedule()
      expect(statuses(schedule).slice(0, 4)).to.deep.equal(['PAID', 'LATE', 'LATE', 'UPCOMING'])
      expect(schedule[1]).to.deep.include({ interest_paid: extra, principal_paid: 0 })
      expect(await t.latest()).to.deep.include({ past_due_amount: pastDueBefore - amount, interest_outstanding: 24_000 - extra })
      await t.invariant('after a partial catch-up')

      const pastDue = (await t.latest()).past_due_amount as number
      let ahead = 5_000
      while (!settles(pastDue + ahead)) ahead += 10
      const rest = await t.pay(pastDue + ahead)
      expect(rest.status, rest.text).to.equal(201)
      expect(rest.body.allocation).to.deep.equal({
        past_due: { fees: 0, interest: 24_000 - extra, principal: (schedule[1]!['principal_due'] as number) + (schedule[2]!['principal_due'] as number) },
        fees: 0,
        interest: 0,
        principal: ahead,
      })
      const caughtUp = await t.schedule()
      expect(statuses(caughtUp)).to.deep.equal(['PAID', 'PAID', 'PAID', 'PARTIALLY_PAID', ...Array(8).fill('UPCOMING')])
      expect(caughtUp[3]).to.deep.include({ principal_paid: ahead, interest_paid: 0 })
      expect(await t.latest()).to.deep.include({
        past_due_amount: 0,
        interest_outstanding: 0,
        next_due_date: '2026-07-10',
        next_due_amount: (caughtUp[3]!['total_due'] as number) - ahead,
      })
      await t.invariant('caught up')
    })

    it('a payment on a due date the job has not reached accrues that interest first, on the lower principal', async () => {
      t.at('2026-07-10')
      const principal = (await t.latest()).principal_outstanding as number
      const interest = monthlyInterestOf(principal, RATE_BPS)
      const reply = await t.pay(20_000)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body.allocation).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest, principal: 20_000 - interest })
      const ledger = await t.ledger()
      expect(ledger.slice(-2).map((e) => [e['type'], e['effective_date'], e['interest'], e['principal']])).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-07-10', interest, 0],
        ['PAYMENT', '2026-07-10', -interest, -(20_000 - interest)],
      ])
      const schedule = await t.schedule()
      expect(schedule[3]).to.deep.include({ interest_due: interest, interest_accrued: true, interest_paid: interest })
      expect(await t.job()).to.deep.include({ loans_changed: 0, accruals: 0 })
      await t.invariant('after a payment that accrued')
    })

    it('paying the payoff leaves every installment PAID and nothing owed or next due', async () => {
      t.at('2026-07-20')
      let payoff = (await t.latest()).payoff_amount as number
      if (!settles(payoff)) {
        expect((await t.pay(50)).body.status).to.equal('SUCCEEDED')
        payoff -= 50
      }
      const over = await t.pay(payoff + 1)
      expect(over.status, over.text).to.equal(422)
      expect(over.body).to.deep.include({ error: 'overpayment', payoff_amount: payoff })

      const before = await t.schedule()
      expect(statuses(before).slice(0, 5)).to.deep.equal(['PAID', 'PAID', 'PAID', 'LATE', 'UPCOMING'])
      const pastDue = (before[3]!['total_due'] as number) - (before[3]!['total_paid'] as number)
      expect(before[3]!['interest_due']).to.equal(before[3]!['interest_paid'])
      const reply = await t.pay(payoff)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body).to.deep.include({ status: 'SUCCEEDED', amount: payoff })
      expect(reply.body.allocation).to.deep.equal({ past_due: { fees: 0, interest: 0, principal: pastDue }, fees: 0, interest: 0, principal: payoff - pastDue })

      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(Array(12).fill('PAID'))
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
      await t.invariant('paid off')

      const tooMuch = await t.pay(100)
      expect(tooMuch.status, tooMuch.text).to.equal(422)
      expect(tooMuch.body).to.deep.include({ error: 'overpayment', payoff_amount: 0 })
    })

    it('after the payoff, later due dates accrue nothing and every installment stays PAID', async () => {
      const balances = await t.balances()
      t.at('2027-04-11')
      const run = await t.job()
      expect(run).to.deep.include({ as_of: '2027-04-11', loans_changed: 0, accruals: 0 })
      expect(await t.balances()).to.deep.equal(balances)
      expect(statuses(await t.schedule())).to.deep.equal(Array(12).fill('PAID'))
      expect(await t.ledger('?type=INTEREST_ACCRUAL&from=2026-07-11')).to.deep.equal([])
      await t.invariant('long after the payoff')
    })
  })

  describe('a payment after a missed due date, with no job run', () => {
    const t = servicedLoan()

    it('accrues the missed interest, pays the past due first and the rest ahead (allocation.past_due)', async () => {
      const projected = await t.schedule()
      t.at('2026-04-15')
      expect(statuses(await t.schedule())[0]).to.equal('LATE')
      const first = projected[0]!
      const amount = (first['principal_due'] as number) + 12_000 + 1_000
      expect(settles(amount)).to.equal(true)
      const reply = await t.pay(amount)
      expect(reply.status, reply.text).to.equal(201)
      expect(reply.body.allocation).to.deep.equal({ past_due: { fees: 0, interest: 12_000, principal: first['principal_due'] }, fees: 0, interest: 0, principal: 1_000 })
      const ledger = await t.ledger()
      expect(ledger.slice(-2).map((e) => [e['type'], e['effective_date'], e['amount']])).to.deep.equal([
        ['INTEREST_ACCRUAL', '2026-04-10', 12_000],
        ['PAYMENT', '2026-04-15', amount],
      ])
      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(['PAID', 'PARTIALLY_PAID', ...Array(10).fill('UPCOMING')])
      expect(await t.latest()).to.deep.include({ as_of: '2026-04-15', past_due_amount: 0, interest_outstanding: 0, principal_outstanding: PRINCIPAL - (first['principal_due'] as number) - 1_000 })
      await t.invariant('after a late payment')
      expect(await t.job()).to.deep.equal({ as_of: '2026-04-15', loans_examined: 1, loans_changed: 0, accruals: 0 })
    })

    it('reversing it restores what it paid but keeps the interest accrued (not re-priced)', async () => {
      const payment = (await t.ledger('?type=PAYMENT'))[0]!
      const reply = await t.internal('POST', `/internal/payments/${payment['payment_id']}/reverse`, { reason: 'NSF return' })
      expect(reply.status, reply.text).to.equal(200)
      expect(reply.body.status).to.equal('REVERSED')
      const schedule = await t.schedule()
      expect(statuses(schedule)).to.deep.equal(['LATE', ...Array(11).fill('UPCOMING')])
      expect(schedule[0]).to.deep.include({ interest_due: 12_000, interest_accrued: true, total_paid: 0 })
      expect(await t.latest()).to.deep.include({
        principal_outstanding: PRINCIPAL,
        interest_outstanding: 12_000,
        past_due_amount: schedule[0]!['total_due'],
        next_due_date: '2026-05-10',
      })
      expect((await t.ledger()).map((e) => e['type'])).to.deep.equal(['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD', 'INTEREST_ACCRUAL', 'PAYMENT', 'REVERSAL'])
      await t.invariant('after the reversal')
    })
  })

  describe('an installment whose principal was paid ahead, on and after its due date', () => {
    const t = servicedLoan()

    it('before its due date it is PARTIALLY_PAID (the loan still owes principal)', async () => {
      const first = (await t.schedule())[0]!
      const ahead = await t.pay(first['principal_due'] as number)
      expect(ahead.status, ahead.text).to.equal(201)
      expect(ahead.body.allocation).to.deep.equal({ past_due: NO_PAST_DUE, fees: 0, interest: 0, principal: first['principal_due'] })
      expect((await t.schedule())[0]).to.deep.include({ principal_paid: first['principal_due'], status: 'PARTIALLY_PAID' })
    })

    it('on its due date, before the job has run, it is not PAID: its interest is due (PARTIALLY_PAID)', async () => {
      t.at('2026-04-10')
      expect((await t.schedule())[0]).to.deep.include({ installment_number: 1, status: 'PARTIALLY_PAID' })
    })

    it('the day after, before the job has run, it is LATE', async () => {
      t.at('2026-04-11')
      expect((await t.schedule())[0]).to.deep.include({ installment_number: 1, status: 'LATE' })
    })

    it('owes the interest accrued on the principal then outstanding once the job runs', async () => {
      t.at('2026-04-11')
      const principal = (await t.latest()).principal_outstanding as number
      expect(await t.job('2026-04-10')).to.deep.equal({ as_of: '2026-04-10', loans_examined: 1, loans_changed: 1, accruals: 1 })
      const interest = monthlyInterestOf(principal, RATE_BPS)
      const schedule = await t.schedule()
      expect(schedule[0]).to.deep.include({ interest_due: interest, interest_accrued: true, interest_paid: 0, status: 'LATE' })
      expect(await t.job()).to.deep.include({ as_of: '2026-04-11', loans_changed: 1, accruals: 0 })
      expect(await t.latest()).to.deep.include({ past_due_amount: interest, interest_outstanding: interest, next_due_date: '2026-05-10' })
      await t.invariant('after accruing a prepaid installment')
    })
  })

  describe('the payment processor unreachable', () => {
    let down = false
    const sandbox = sandboxPaymentProcessor()
    const flaky: PaymentProcessor = {
      charge: (charge) => (down ? TE.left({ _tag: 'ProcessorUnavailable', cause: new Error('connect ECONNREFUSED') }) : sandbox.charge(charge)),
    }
    const t = servicedLoan(() => ({ processor: flaky }))

    it('answers 502 payment_processor_unavailable and records nothing; a retry with the same key pays once', async () => {
      const balances = await t.balances()
      const ledger = await t.ledger()
      const key = `retry-${randomUUID()}`
      down = true
      const failed = await t.pay(40_000, key)
      expect(failed.status, failed.text).to.equal(502)
      expect(failed.body).to.deep.equal({
        error: 'payment_processor_unavailable',
        detail: 'The payment processor could not be reached; nothing was charged. Retry with the same Idempotency-Key.',
      })
      expect(await t.balances()).to.deep.equal(balances)
      expect(await t.ledger()).to.deep.equal(ledger)

      down = false
      const retried = await t.pay(40_000, key)
      expect(retried.status, retried.text).to.equal(201)
      expect(retried.headers.get('idempotent-replayed')).to.equal(null)
      expect(retried.body).to.deep.include({ status: 'SUCCEEDED', amount: 40_000 })
      const replay = await t.pay(40_000, key)
      expect(replay.headers.get('idempotent-replayed')).to.equal('true')
      expect(replay.body).to.deep.equal(retried.body)
      expect((await t.ledger('?type=PAYMENT')).map((e) => e['payment_id'])).to.deep.equal([retried.body.payment_id])
      await t.invariant('after a retried payment')
    })
  })
})
