import { expect } from 'chai'
import fc from 'fast-check'
import { loanSpec, share } from './arbitraries.js'
import { allocationJson, bookedOrSkip, ledgerBuckets, right, same, termsOf, type LoanSpec } from './harness.js'
import { calendar, refDaysPastDue, refDelinquencyBucket, refDerive, shiftDays, type RefPayment } from './model.js'

/**
 * docs/servicing.md "How a loan's state is derived": the outcome depends only on the payments and
 * their dates, not on when the daily job ran nor when a reversal was made. The same plan is
 * serviced three ways and each ends where the others and the model end.
 */

/** A payment of the plan: days after the one before (or the start), and a share of the room left, or all of it. */
type PlannedPayment = { readonly gap: number; readonly share: number; readonly all: boolean }
type Plan = {
  readonly spec: LoanSpec
  readonly payments: readonly PlannedPayment[]
  /** Which payment is reversed. */
  readonly pick: number
  /** Days from the last payment to the final date. */
  readonly tail: number
  /** The jobs of the "random" run: where in the loan's life (0–1), how many days back `as_of` is, where in the day. */
  readonly jobs: readonly { readonly at: number; readonly back: number; readonly rank: number }[]
  /** Where between the reversed payment and the final date the "random" run reverses it (0–1). */
  readonly reverseAt: number
}
const plan: fc.Arbitrary<Plan> = fc.record({
  spec: loanSpec,
  payments: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 70 }), share, all: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 6, arbitrary: fc.constant(false) }) }), {
    minLength: 1,
    maxLength: 8,
  }),
  pick: fc.nat(),
  tail: fc.integer({ min: 0, max: 60 }),
  jobs: fc.array(fc.record({ at: share, back: fc.nat({ max: 60 }), rank: fc.integer({ min: 0, max: 30 }) }), { maxLength: 12 }),
  reverseAt: share,
})

type PlannedAmount = RefPayment & { readonly index: number }

/**
 * The plan's payments with their amounts, the same in every run: each within the model's payoff
 * on its date whether or not the reversed payment is in force by then. A payment with no room
 * left (the loan paid off) is left out.
 */
const amountsOf = (p: Plan) => {
  const terms = termsOf(p.spec)
  const reversedIndex = p.pick % p.payments.length
  const payments: PlannedAmount[] = []
  let date = p.spec.start
  for (const [index, x] of p.payments.entries()) {
    date = shiftDays(date, x.gap)
    const room = Math.min(refDerive(terms, payments, date).payoff, refDerive(terms, payments.filter((y) => y.index !== reversedIndex), date).payoff)
    if (room > 0) payments.push({ index, id: `p${index}`, seq: index, amount: x.all ? room : Math.max(1, Math.floor(room * x.share)), date })
  }
  return { payments, reversed: payments.find((y) => y.index === reversedIndex), end: shiftDays(date, p.tail) }
}

type Run = 'daily' | 'at the end' | 'random'

/**
 * Services the plan's loan one way, runs the job on the final date, and answers what partners
 * read then (payments by their index in the plan): `daily` runs the job every day and reverses at
 * once; `at the end` runs it only on the final date and reverses then; `random` runs it on random
 * days, for past dates too, and reverses on a random day.
 */
const serviceAs = async (p: Plan, x: ReturnType<typeof amountsOf>, how: Run) => {
  const h = await bookedOrSkip(p.spec, fc.pre)
  const indexOf = new Map<string, number>()
  const actions: { readonly day: string; readonly rank: number; readonly act: () => Promise<unknown> }[] = []
  for (const payment of x.payments) {
    actions.push({
      day: payment.date,
      rank: 10 + payment.index,
      act: async () => {
        const taken = right(await h.pay(payment.amount))
        same([taken.status, taken.effective_date], ['SUCCEEDED', payment.date], `payment ${payment.index}`)
        indexOf.set(taken.payment_id, payment.index)
      },
    })
  }
  const life = calendar(p.spec.start, x.end)
  const r = x.reversed
  if (r !== undefined) {
    const day = how === 'daily' ? r.date : how === 'at the end' ? x.end : shiftDays(r.date, Math.floor(calendar(r.date, x.end) * p.reverseAt))
    actions.push({
      day,
      rank: how === 'daily' ? 10 + r.index + 0.5 : 40,
      act: async () => expect(right(await h.reverse([...indexOf].find(([, i]) => i === r.index)![0])).status).to.equal('REVERSED'),
    })
  }
  if (how === 'daily') for (let d = 1; d <= life; d += 1) actions.push({ day: shiftDays(p.spec.start, d), rank: 0, act: () => h.accrue() })
  if (how === 'random') {
    for (const job of p.jobs) {
      const day = shiftDays(p.spec.start, Math.floor(life * job.at))
      actions.push({ day, rank: job.rank, act: () => h.accrue([shiftDays(day, -job.back), p.spec.start].sort()[1]!) })
    }
  }
  actions.push({ day: x.end, rank: 100, act: () => h.accrue(x.end) })
  actions.sort((a, b) => (a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.rank - b.rank))
  for (const [n, action] of actions.entries()) {
    if (action.day > h.today()) h.moveTo(action.day, 36_000_000 + n)
    else h.clock.advance(1)
    await action.act()
  }

  // The snapshot's date is when something last moved, which depends on when jobs ran; its figures must not.
  const { balance_id: _b, transaction_id: _t, sequence: _s, created_at: _c, as_of: _a, ...snapshot } = (await h.balances()).at(-1)!
  const loan = await h.loan()
  return {
    ledger: ledgerBuckets(await h.transactions()),
    snapshot,
    loan: [loan.status, loan.days_past_due, loan.delinquency_bucket],
    payoff: await h.payoff(),
    schedule: await h.schedule(),
    payments: (await h.payments()).map(({ payment_id, created_at: _created, payment_method_id: _m, ...rest }) => [indexOf.get(payment_id)!, rest] as const).sort((a, b) => a[0] - b[0]),
  }
}

describe('loan servicing is independent of when the daily job and reversals run', () => {
  it('ends with the same ledger, snapshot figures, schedule, allocations and delinquency, = the model, whether the job runs daily, once at the end or on random days (past as_of too), and whenever the reversal is made', async function () {
    this.timeout(120_000)
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const x = amountsOf(p)
        const daily = await serviceAs(p, x, 'daily')
        same(await serviceAs(p, x, 'at the end'), daily, 'job and reversal at the end (actual) = daily job, reversal at once (expected)')
        same(await serviceAs(p, x, 'random'), daily, 'jobs and reversal on random days (actual) = daily job, reversal at once (expected)')
        const model = refDerive(termsOf(p.spec), x.payments.filter((y) => y !== x.reversed), x.end)
        const dpd = refDaysPastDue(model)
        same(
          [daily.payoff.principal, daily.payoff.interest, daily.payoff.fees, daily.payoff.payoff_amount, daily.loan[1], daily.loan[2]],
          [model.outstanding.principal, model.outstanding.interest, model.outstanding.fees, model.payoff, dpd, refDelinquencyBucket(dpd)],
          `on ${x.end}: payoff and delinquency = model`,
        )
        same(
          daily.payments.filter(([, q]) => q.status === 'SUCCEEDED').map(([i, q]) => [i, q.allocation]),
          x.payments.filter((y) => y !== x.reversed).map((y) => [y.index, allocationJson(model.allocations.get(y.id)!)]),
          `on ${x.end}: allocations = model`,
        )
      }),
      { seed: 20_260_555, numRuns: 60 },
    )
  })
})
