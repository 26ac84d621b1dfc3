import { expect } from 'chai'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { loanSpec, msOfDay, share } from './arbitraries.js'
import { allocationJson, bookedOrSkip, inForce, ledgerBuckets, listedStatus, returnFeesOf, right, same, takeDebit, takePayment, termsOf, type LoanSpec, type ServicedLoan, type Taken } from './harness.js'
import { owedOf, refDaysPastDue, refDelinquencyBucket, refDerive, refSchedule, refStatus, shiftDays, type RefTerms } from './model.js'

/**
 * Loan servicing through core's use cases against the independent model (`model.ts`): random
 * lives of payments (early, late, partial, exact, the payoff, over it), bank debits and their
 * returns, autopay debits (for what the model owes on the installment's due date), reversals, clock moves
 * across month ends and leap days in zones far from UTC at instants near local midnight, and the
 * daily job run on some days and skipped on others. After every step the partner-visible figures
 * equal the model's, every allocation sums to its payment, nothing is negative and the ledger's
 * bucket sums equal the latest balance snapshot.
 */

/** A step of a loan's life; after each, the checks also quote `ahead` days ahead. */
type Step = { readonly ahead: number } & (
  | { readonly kind: 'wait'; readonly days: number; readonly msOfDay: number }
  | { readonly kind: 'walk'; readonly jobs: readonly boolean[]; readonly msOfDay: number }
  | { readonly kind: 'pay'; readonly how: 'share' | 'next-due' | 'payoff' | 'payoff-less-one' | 'over'; readonly share: number }
  | { readonly kind: 'pay-quoted'; readonly days: number; readonly less: boolean }
  | { readonly kind: 'reverse'; readonly pick: number }
  | { readonly kind: 'accrue'; readonly back: number }
  | { readonly kind: 'debit'; readonly share: number; readonly days: number; readonly settle: boolean }
  | { readonly kind: 'return'; readonly pick: number; readonly code: string }
  | { readonly kind: 'autopay'; readonly days: number }
)
const ahead = fc.integer({ min: 0, max: 60 })
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 70 }), msOfDay, ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('walk' as const), jobs: fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }), msOfDay, ahead }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      how: fc.constantFrom('share' as const, 'share' as const, 'share' as const, 'next-due' as const, 'next-due' as const, 'payoff' as const, 'payoff-less-one' as const, 'over' as const),
      share,
      ahead,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay-quoted' as const), days: fc.integer({ min: 1, max: 60 }), less: fc.boolean(), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat(), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('accrue' as const), back: fc.nat({ max: 60 }), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('debit' as const), share, days: fc.integer({ min: 0, max: 4 }), settle: fc.boolean(), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('return' as const), pick: fc.nat(), code: fc.constantFrom('R01', 'R02', 'R10'), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('autopay' as const), days: fc.integer({ min: 0, max: 4 }), ahead }) },
)
const steps = fc.array(step, { minLength: 1, maxLength: 40, size: 'max' })

/** The ledger's bucket sums equal the latest snapshot's. */
const expectLedgerIsSnapshot = async (h: ServicedLoan) => {
  const latest = (await h.balances()).at(-1)!
  same(
    ledgerBuckets(await h.transactions()),
    { principal: latest.principal_outstanding, interest: latest.interest_outstanding, fees: latest.fees_outstanding },
    `ledger sums = latest snapshot (as of ${latest.as_of})`,
  )
  return latest
}

/** Every money figure partners read is a non-negative integer. */
const expectNothingNegative = (figures: readonly (readonly [string, number])[]): void => {
  const bad = figures.filter(([, n]) => !Number.isSafeInteger(n) || n < 0)
  same(bad, [], 'money figures that are negative or not integers')
}

/** A refused over-payment of `amount`: 422 overpayment with the payoff, and nothing posted. */
const expectRefused = async (h: ServicedLoan, amount: number, payoff: number): Promise<void> => {
  const before = (await h.transactions()).length
  const result = await h.pay(amount)
  same(E.isLeft(result) ? result.left : result.right, { _tag: 'Overpayment', payoffAmount: payoff, pendingAmount: 0 }, `a payment of ${amount} above the payoff ${payoff}`)
  expect((await h.transactions()).length, 'entries after a refused payment').to.equal(before)
}

/** Paying exactly the quote pays the loan off; one minor unit less leaves exactly one owed. */
const expectPaidOffBy = async (h: ServicedLoan, less: boolean): Promise<void> => {
  same([(await h.loan()).status, (await h.payoff()).payoff_amount], less ? ['ACTIVE', 1] : ['PAID_OFF', 0], less ? 'paying one minor unit less than the quote' : 'paying exactly the quote')
}

/** Everything partners read of the loan = the model, with the invariants above. */
const expectAsModelled = async (h: ServicedLoan, terms: RefTerms, taken: readonly Taken[], aheadDays: number): Promise<void> => {
  const today = h.today()
  const payments = inForce(taken)
  const fees = returnFeesOf(taken)
  const now = refDerive(terms, payments, today, fees)

  const listed = await h.payments()
  same(
    listed.map((p) => [p.payment_id, p.status, p.effective_date]),
    taken.map((p) => [p.id, listedStatus(p), p.date]),
    'payments listed',
  )
  for (const p of listed.filter((x) => x.status !== 'REVERSED' && x.status !== 'RETURNED')) {
    const a = p.allocation!
    expect(a.past_due.fees + a.past_due.interest + a.past_due.principal + a.fees + a.interest + a.principal, `allocation of ${p.payment_id} sums to its amount`).to.equal(p.amount)
    same(a, allocationJson(now.allocations.get(p.payment_id)!), `allocation of payment ${p.payment_id} (${p.amount} on ${p.effective_date}) = model`)
  }

  // Each return charged its product's fee once, as its own entry: never folded into the late fees.
  const byPayment = (rows: readonly (readonly [string, number])[]) => [...rows].sort((a, b) => a[0].localeCompare(b[0]))
  same(
    byPayment((await h.transactions()).filter((t) => t.type === 'RETURN_FEE').map((t) => [t.payment_id!, t.fees] as const)),
    byPayment(fees.map((f) => [f.id, f.amount] as const)),
    'RETURN_FEE entries = the fees of the returns',
  )

  const latest = await expectLedgerIsSnapshot(h)
  const atSnapshot = refDerive(terms, payments, latest.as_of, fees)
  same(
    [latest.principal_outstanding, latest.interest_outstanding, latest.fees_outstanding, latest.payoff_amount],
    [atSnapshot.outstanding.principal, atSnapshot.outstanding.interest, atSnapshot.outstanding.fees, atSnapshot.payoff],
    `latest snapshot (as of ${latest.as_of}) = model`,
  )
  const loan = await h.loan()
  const dpd = refDaysPastDue(now)
  same([loan.status, loan.days_past_due, loan.delinquency_bucket], [atSnapshot.payoff === 0 ? 'PAID_OFF' : 'ACTIVE', dpd, refDelinquencyBucket(dpd)], `loan status and delinquency on ${today} = model`)

  const quote = await h.payoff()
  const later = shiftDays(today, aheadDays)
  const goodThrough = await h.payoff(later)
  const modelLater = refDerive(terms, payments, later, fees)
  const quoted = (q: typeof quote) => [q.as_of, q.principal, q.interest, q.fees, q.payoff_amount]
  same(quoted(quote), [today, now.outstanding.principal, now.outstanding.interest, now.outstanding.fees, now.payoff], 'payoff quote today = model')
  same(quoted(goodThrough), [later, modelLater.outstanding.principal, modelLater.outstanding.interest, modelLater.outstanding.fees, modelLater.payoff], `payoff quote ${aheadDays} days ahead = model`)
  const balance = await h.latestBalance()
  same(
    [balance.principal_outstanding, balance.interest_outstanding, balance.fees_outstanding, balance.payoff_amount],
    [now.outstanding.principal, now.outstanding.interest, now.outstanding.fees, now.payoff],
    'latest balance brought forward to today = model',
  )

  const schedule = await h.schedule()
  expect(schedule.reduce((s, i) => s + i.principal_due, 0), "the schedule's principal parts sum to the principal").to.equal(terms.principal)
  same(
    schedule.map((i) => [i.installment_number, i.due_date, i.principal_due, i.principal_paid, i.interest_paid, i.fees_due, i.fees_paid, i.interest_accrued, i.interest_accrued ? i.interest_due : null, i.status]),
    now.installments.map((i) => [i.number, i.dueDate, i.principalDue, i.principalPaid, i.interestPaid, i.fees, i.feesPaid, i.closed, i.closed ? i.interest : null, refStatus(now, i)]),
    `schedule on ${today} = model ([number, due date, principal due, principal paid, interest paid, fees due, fees paid, interest final, final interest, status])`,
  )

  const balances = await h.balances()
  expectNothingNegative([
    ...balances.flatMap((b) => ['principal_outstanding', 'interest_outstanding', 'fees_outstanding', 'payoff_amount', 'past_due_amount', 'next_due_amount'].map((k) => [`snapshot ${b.sequence} ${k}`, (b[k as keyof typeof b] ?? 0) as number] as const)),
    ...schedule.flatMap((i) => (['principal_due', 'interest_due', 'fees_due', 'principal_paid', 'interest_paid', 'fees_paid'] as const).map((k) => [`installment ${i.installment_number} ${k}`, i[k]] as const)),
    ...listed.flatMap((p) => (p.allocation === null ? [] : Object.entries({ ...p.allocation.past_due, ...p.allocation, past_due: 0 }).map(([k, n]) => [`payment ${p.payment_id} ${k}`, n as number] as const))),
    ...(await h.transactions()).map((t) => [`entry ${t.sequence} amount`, t.amount] as const),
    ['payoff principal', quote.principal],
    ['payoff interest', quote.interest],
    ['payoff fees', quote.fees],
  ])
}

/**
 * Lives through `lifeSteps` on the loan `spec` books; amounts come from the use cases' own quotes,
 * so the walk never depends on the model. `check` runs after booking and after every step.
 */
const live = async (spec: LoanSpec, lifeSteps: readonly Step[], check: (h: ServicedLoan, taken: readonly Taken[], ahead: number) => Promise<void>): Promise<void> => {
  const h = await bookedOrSkip(spec, fc.pre)
  const taken: Taken[] = []
  // The due dates whose installment autopay debited: once each, whatever runs later.
  const autopaid = new Set<string>()
  await check(h, taken, 0)
  for (const st of lifeSteps) {
    const today = h.today()
    const payoff = (await h.payoff()).payoff_amount
    switch (st.kind) {
      case 'wait':
        h.moveDays(st.days, st.msOfDay)
        break
      case 'walk':
        for (const job of st.jobs) {
          h.moveDays(1, st.msOfDay)
          if (!job) continue
          expect((await h.accrue()).asOf).to.be.a('string')
          await expectLedgerIsSnapshot(h)
        }
        break
      case 'accrue': {
        const asOf = [shiftDays(today, -st.back), spec.start].sort()[1]!
        expect((await h.accrue(asOf)).asOf).to.equal(asOf)
        break
      }
      case 'reverse': {
        // A debit still in its return window (SUBMITTED) cannot be reversed, nor one returned.
        const candidates = taken.filter((p) => !p.reversed && p.returned === null && p.status !== 'SUBMITTED')
        const chosen = candidates[st.pick % Math.max(1, candidates.length)]
        if (chosen === undefined) break
        expect(right(await h.reverse(chosen.id)).status).to.equal('REVERSED')
        chosen.reversed = true
        break
      }
      case 'pay': {
        // The bill: what is past due and the next installment (docs/servicing.md "Taking a payment"); above it and the payoff is an over-payment.
        const latest = await h.latestBalance()
        const bill = latest.past_due_amount + (latest.next_due_amount ?? 0)
        if (st.how === 'over' || payoff === 0) {
          await expectRefused(h, Math.max(payoff, bill) + 1 + Math.floor(payoff * st.share), payoff)
          break
        }
        if (st.how === 'payoff' || (st.how === 'payoff-less-one' && payoff > 1)) {
          const less = st.how === 'payoff-less-one'
          await takePayment(h, taken, payoff - (less ? 1 : 0))
          await expectPaidOffBy(h, less)
          break
        }
        const amount = st.how === 'next-due' && bill > 0 ? Math.min(bill, payoff) : Math.min(payoff, Math.max(1, Math.floor(payoff * st.share)))
        await takePayment(h, taken, amount)
        break
      }
      case 'debit': {
        if (payoff === 0) break
        const amount = Math.min(payoff, Math.max(1, Math.floor(payoff * st.share)))
        // Its file effective up to four days on: posted today all the same.
        await takeDebit(h, taken, amount, shiftDays(today, st.days), st.settle)
        break
      }
      case 'return': {
        // Its bank returns a bank debit, in its window or late: undone, the product's fee charged today.
        const debits = taken.filter((p) => !p.reversed && p.returned === null && p.status !== 'SUCCEEDED')
        const chosen = debits[st.pick % Math.max(1, debits.length)]
        if (chosen === undefined) break
        same((await h.returnDebit(chosen.id, st.code)).status, 'RETURNED', 'a bank debit returned')
        chosen.returned = { on: today, fee: spec.product.returnedPaymentFee, seq: taken.filter((p) => p.returned !== null).length + 1 }
        break
      }
      case 'autopay': {
        // The next installment, debited by autopay in a file effective up to four days on: what the model says it owes on its due date, once.
        const terms = termsOf(spec)
        const dueDate = refDerive(terms, inForce(taken), today, returnFeesOf(taken)).installments.map((i) => i.dueDate).find((date) => date > today)
        if (dueDate === undefined || payoff === 0) break
        const installment = refDerive(terms, inForce(taken), dueDate, returnFeesOf(taken)).installments.find((i) => i.dueDate === dueDate)
        // What it owes on its due date, at most what a payment may ask today: the payoff, or the bill when more.
        const latest = await h.latestBalance()
        const most = Math.max(payoff, latest.past_due_amount + (latest.next_due_amount ?? 0))
        const owed = installment === undefined || autopaid.has(dueDate) ? 0 : Math.min(owedOf(installment), most)
        const debit = await h.autopay(dueDate, shiftDays(today, st.days))
        if (owed === 0 || debit === undefined) {
          same([owed, debit], [0, undefined], `an autopay debit for the installment due ${dueDate} that owes nothing more, or was debited before`)
          break
        }
        autopaid.add(dueDate)
        same([debit.asked, debit.status, debit.effective_date], [owed, 'SUBMITTED', today], `the autopay debit of the installment due ${dueDate} = what the model owes on that day (at most today's payoff or bill)`)
        taken.push({ id: debit.payment_id, amount: debit.amount, date: debit.effective_date, seq: taken.length + 1, status: 'SUBMITTED', reversed: false, returned: null })
        same(await h.autopay(dueDate, shiftDays(today, st.days)), undefined, 'a second autopay run for the same installment')
        break
      }
      case 'pay-quoted': {
        const quote = (await h.payoff(shiftDays(today, st.days))).payoff_amount
        h.moveDays(st.days, 43_200_000)
        if (quote === 0) {
          await expectRefused(h, 1, 0)
          break
        }
        const less = st.less && quote > 1
        await takePayment(h, taken, quote - (less ? 1 : 0))
        await expectPaidOffBy(h, less)
        break
      }
    }
    await check(h, taken, st.ahead)
  }
}

const SEED = 20_260_555

describe('loan servicing against the reference model', () => {
  it('books as the model: level payment, first due date and maturity', async () => {
    await fc.assert(
      fc.asyncProperty(loanSpec, async (spec) => {
        const h = await bookedOrSkip(spec, fc.pre)
        const { payment, rows } = refSchedule(termsOf(spec))
        same([h.booked.start_date, h.booked.payment_amount, h.booked.first_due_date, h.booked.maturity_date], [spec.start, payment, rows[0]!.dueDate, rows.at(-1)!.dueDate], `loan booked on ${spec.start} in ${spec.product.timeZone}`)
      }),
      { seed: SEED, numRuns: 200 },
    )
  })

  it('keeps every figure = model through random payments, over-payments, bank and autopay debits, returns, reversals, jobs on some days and clock moves in far time zones', async function () {
    this.timeout(120_000)
    await fc.assert(
      fc.asyncProperty(loanSpec, steps, async (spec, lifeSteps) => {
        const terms = termsOf(spec)
        await live(spec, lifeSteps, (h, taken, lookAhead) => expectAsModelled(h, terms, taken, lookAhead))
      }),
      { seed: SEED, numRuns: 80 },
    )
  })
})
