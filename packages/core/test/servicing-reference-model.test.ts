import { expect } from 'chai'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { overpayment } from '../src/domain/foundations/errors.js'
import type { LoanApplication } from '../src/domain/loans/loan-application.js'
import { bookLoan, type Loan } from '../src/domain/loans/loan.js'
import { deriveLoan, ledgerSums, type Buckets } from '../src/lending/loan-servicing.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { PaymentMethod } from '../src/domain/loans/payment-method.js'
import type { DayCount, PrepaymentMode, ServicingTerms } from '../src/domain/loans/servicing-terms.js'
import { getLatestLoanBalanceForParty } from '../src/use-cases/servicing/read-balances.js'
import { getLoanPayoffForParty } from '../src/use-cases/servicing/quote-payoff.js'
import { listLoanScheduleForParty } from '../src/use-cases/servicing/list-schedule.js'
import { accrueInterestForLoans } from '../src/use-cases/servicing/accrue-loans.js'
import { createPaymentMethodForPartyLoan } from '../src/use-cases/servicing/payment-methods.js'
import { createPaymentIntentForPartyLoan } from '../src/use-cases/servicing/take-payment.js'
import { reverseLoanPayment } from '../src/use-cases/servicing/reverse-payment.js'
import { settled } from '../src/use-cases/servicing/posting.js'
import {
  fakePaymentProcessor,
  fakePaymentTokenizer,
  inMemoryLoanApplicationRepository,
  inMemoryPaymentMethodRepository,
  sequentialIds,
  testClock,
} from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'

/**
 * Loan servicing against an independent reference model (docs/servicing.md "How a loan's state
 * is derived", "Interest", "Payments", "Late fees", "Schedule", "Payoff quote", "The ledger is
 * the source of truth"; the booking schedule of amortization.ts). The model below is written
 * from those texts alone: exact BigInt rationals wherever a division happens, rounded half up
 * only where the docs say, its own calendar and day counts. It imports nothing of the servicing
 * rules it checks; the use cases run against the in-memory adapters, the whole stack exercised.
 */

// ---------------------------------------------------------------------------------------------
// Reference model: exact rationals
// ---------------------------------------------------------------------------------------------

/** An exact non-negative rational `n / d`. */
type Ratio = { readonly n: bigint; readonly d: bigint }

const ratio = (n: bigint, d: bigint = 1n): Ratio => {
  if (d <= 0n || n < 0n) throw new Error(`reference model: ratio ${n}/${d} out of range`)
  return { n, d }
}
const plus = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d + b.n * a.d, a.d * b.d)
const times = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.n, a.d * b.d)
const over = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d, a.d * b.n)
/** Rounded half up to a whole minor unit (the only rounding the docs name). */
const halfUp = (a: Ratio): number => Number((2n * a.n + a.d) / (2n * a.d))
/** Rounded down (the zero-rate level payment, P ÷ n). */
const floorOf = (a: Ratio): number => Number(a.n / a.d)
const big = (n: number): bigint => BigInt(n)

// ---------------------------------------------------------------------------------------------
// Reference model: calendar and day counts
// ---------------------------------------------------------------------------------------------

const MS_PER_DAY = 86_400_000
const ymd = (date: string): readonly [number, number, number] => [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))]
const epochDay = (date: string): number => {
  const [y, m, d] = ymd(date)
  return Date.UTC(y, m - 1, d) / MS_PER_DAY
}
const fromEpochDay = (day: number): string => new Date(day * MS_PER_DAY).toISOString().slice(0, 10)
const shiftDays = (date: string, days: number): string => fromEpochDay(epochDay(date) + days)
/** Calendar days from `a` to `b`. */
const calendar = (a: string, b: string): number => epochDay(b) - epochDay(a)
/** The same day `months` later, or that month's last day. */
const shiftMonths = (date: string, months: number): string => {
  const [y, m, d] = ymd(date)
  const index = y * 12 + (m - 1) + months
  const year = Math.floor(index / 12)
  const month = index - year * 12
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return fromEpochDay(Date.UTC(year, month, Math.min(d, last)) / MS_PER_DAY)
}

/** Interest days between two dates and the days of a year, by a loan's convention. */
type RefDayCount = { readonly year: number; readonly days: (from: string, to: string) => number }

/**
 * docs/servicing.md "Interest": ACTUAL_365 counts calendar days of a 365-day year; THIRTY_360 reads
 * days off the loan's clock (started on its start date): every whole month since the start date
 * (counted from its day, as due dates are) is 30 days, a part of a month counts its calendar days,
 * at most 30; a 360-day year.
 */
const refDayCount = (convention: DayCount, start: string): RefDayCount => {
  if (convention === 'ACTUAL_365') return { year: 365, days: calendar }
  const positions = new Map<string, number>()
  const position = (date: string): number => {
    const known = positions.get(date)
    if (known !== undefined) return known
    let months = 0
    while (shiftMonths(start, months + 1) <= date) months += 1
    const p = 30 * months + Math.min(30, calendar(shiftMonths(start, months), date))
    positions.set(date, p)
    return p
  }
  return { year: 360, days: (from, to) => position(to) - position(from) }
}

// ---------------------------------------------------------------------------------------------
// Reference model: the booking schedule (amortization.ts)
// ---------------------------------------------------------------------------------------------

/** What the model needs of a loan: its terms and servicing rules. */
type RefTerms = {
  readonly principal: number
  readonly rateBps: number
  readonly termMonths: number
  readonly start: string
  readonly dayCount: DayCount
  readonly prepayment: PrepaymentMode
  readonly lateFee: { readonly flat: number; readonly bps: number; readonly graceDays: number }
}

/** Interest on `principal` over `days`: exact, rounded half up once. */
const stretchInterest = (principal: number, rateBps: number, days: number, year: number): number =>
  days <= 0 || principal <= 0 ? 0 : halfUp(ratio(big(principal) * big(rateBps) * big(days), 10_000n * big(year)))

/**
 * The level payment that leaves nothing after the last of `periods` (days each): with
 * `g_k = 1 + rate × days_k ÷ (10,000 × year)`, the balance after period k is `A_k − X·B_k`
 * (`A_k = A_{k−1}·g_k`, `B_k = B_{k−1}·g_k + 1`), so `X = A_n ÷ B_n`, rounded half up once.
 * A zero rate gives `P ÷ n` rounded down.
 */
const refLevelPayment = (principal: number, rateBps: number, periods: readonly number[], year: number): number => {
  if (periods.length === 0) return principal
  if (rateBps === 0) return floorOf(ratio(big(principal), big(periods.length)))
  let a = ratio(big(principal))
  let b = ratio(0n)
  for (const days of periods) {
    const g = ratio(10_000n * big(year) + big(rateBps) * big(days), 10_000n * big(year))
    a = times(a, g)
    b = plus(times(b, g), ratio(1n))
  }
  return halfUp(over(a, b))
}

/** Principal parts paying `payment` a period (interest first, never more than the balance), the last taking the rest. */
const refPrincipalParts = (principal: number, rateBps: number, periods: readonly number[], year: number, payment: number): readonly number[] => {
  let balance = principal
  return periods.map((days, k) => {
    const interest = stretchInterest(balance, rateBps, days, year)
    const part = k === periods.length - 1 ? balance : Math.min(Math.max(payment - interest, 0), balance)
    balance -= part
    return part
  })
}

type RefScheduleRow = { readonly dueDate: string; readonly principal: number; readonly interest: number }

/** The booking schedule: monthly due dates, the level payment, each row's principal and interest. */
const refSchedule = (t: RefTerms): { readonly payment: number; readonly rows: readonly RefScheduleRow[] } => {
  const counter = refDayCount(t.dayCount, t.start)
  const dues = Array.from({ length: t.termMonths }, (_, k) => shiftMonths(t.start, k + 1))
  const periods = dues.map((due, k) => counter.days(k === 0 ? t.start : dues[k - 1]!, due))
  const payment = refLevelPayment(t.principal, t.rateBps, periods, counter.year)
  const parts = refPrincipalParts(t.principal, t.rateBps, periods, counter.year, payment)
  let balance = t.principal
  const rows = dues.map((dueDate, k) => {
    const interest = stretchInterest(balance, t.rateBps, periods[k]!, counter.year)
    balance -= parts[k]!
    return { dueDate, principal: parts[k]!, interest }
  })
  return { payment, rows }
}

// ---------------------------------------------------------------------------------------------
// Reference model: servicing replay
// ---------------------------------------------------------------------------------------------

/** A successful payment in force: its amount, effective date and the order it was taken in. */
type RefPayment = { readonly id: string; readonly amount: number; readonly date: string; readonly seq: number }

type RefInstallment = {
  readonly number: number
  readonly dueDate: string
  principalDue: number
  principalPaid: number
  /** Interest accrued to it (final once closed). */
  interest: number
  interestPaid: number
  fees: number
  feesPaid: number
  closed: boolean
  feeChecked: boolean
}

type RefAllocation = { readonly pastDue: Buckets; readonly current: Buckets }

/** The model's state of a loan on `asOf`. */
type RefState = {
  readonly asOf: string
  readonly payment: number
  readonly installments: readonly RefInstallment[]
  readonly outstanding: Buckets
  readonly payoff: number
  readonly allocations: ReadonlyMap<string, RefAllocation>
}

type MutableBuckets = { principal: number; interest: number; fees: number }
const owedOf = (i: RefInstallment): number => i.principalDue - i.principalPaid + (i.interest - i.interestPaid) + (i.fees - i.feesPaid)

/**
 * The loan on `asOf`, replayed from its start date (docs/servicing.md). Each day: installments due
 * that day close (the last one not while principal is owed); late fees whose grace ended the day
 * before are assessed; the day's payments apply in the order they were taken. Interest accrues on
 * the principal outstanding over stretches split at due dates and payments, each rounded half up
 * once, to the open installment (the earliest not closed).
 *
 * Where the text leaves a choice, the model reads it so:
 * - "paid in full" is measured as the doc's worked example measures it (interest accrued so far):
 *   any installment a payment leaves owing nothing closes that day, the open one or a later one;
 * - a late fee's "what the late installment still owes" is what it owes that day: for the last
 *   installment after maturity, the interest accrued to that day included;
 * - interest accrued after maturity belongs to the last installment, which is past due, so a
 *   payment takes it as past-due interest;
 * - the prepayment is recorded on the installment whose principal step 2 paid, and the ones after
 *   it are recast, the first period running from the payment date; REDUCE_TERM drops those left
 *   after the balance reaches zero, REDUCE_INSTALLMENT keeps the term (a last part may be zero).
 */
const refDerive = (t: RefTerms, payments: readonly RefPayment[], asOf: string): RefState => {
  const counter = refDayCount(t.dayCount, t.start)
  const booked = refSchedule(t)
  const insts: RefInstallment[] = booked.rows.map((r, k) => ({
    number: k + 1,
    dueDate: r.dueDate,
    principalDue: r.principal,
    principalPaid: 0,
    interest: 0,
    interestPaid: 0,
    fees: 0,
    feesPaid: 0,
    closed: false,
    feeChecked: false,
  }))
  const inForce = payments.filter((p) => p.date <= asOf).sort((a, b) => (a.date !== b.date ? (a.date < b.date ? -1 : 1) : a.seq - b.seq))
  const feeDate = (i: RefInstallment): string => shiftDays(i.dueDate, t.lateFee.graceDays + 1)
  const dates = [...new Set([...insts.map((i) => i.dueDate), ...insts.map(feeDate), ...inForce.map((p) => p.date)])].filter((d) => d <= asOf).sort()
  const allocations = new Map<string, RefAllocation>()
  let principal = t.principal
  let from = t.start
  const open = (): RefInstallment | undefined => insts.find((i) => !i.closed)
  const pending = (to: string): number => stretchInterest(principal, t.rateBps, counter.days(from, to), counter.year)
  const accrueTo = (to: string): void => {
    const interest = pending(to)
    if (interest > 0) open()!.interest += interest
    from = to
  }

  const apply = (p: RefPayment, day: string): void => {
    let left = p.amount
    const pastDue: MutableBuckets = { principal: 0, interest: 0, fees: 0 }
    const current: MutableBuckets = { principal: 0, interest: 0, fees: 0 }
    const touched = new Set<RefInstallment>()
    const pay = (i: RefInstallment, bucket: keyof Buckets, into: MutableBuckets): void => {
      const owed = bucket === 'principal' ? i.principalDue - i.principalPaid : bucket === 'interest' ? i.interest - i.interestPaid : i.fees - i.feesPaid
      const amount = Math.max(0, Math.min(left, owed))
      if (amount === 0) return
      if (bucket === 'principal') i.principalPaid += amount
      else if (bucket === 'interest') i.interestPaid += amount
      else i.feesPaid += amount
      into[bucket] += amount
      left -= amount
      touched.add(i)
    }
    // 1. Past due (due before the payment date), oldest first: fees → interest → principal.
    for (const i of insts.filter((x) => x.dueDate < day)) for (const bucket of ['fees', 'interest', 'principal'] as const) pay(i, bucket, pastDue)
    // 2. Not yet past due: fees, then interest accrued to the day, then the current installment's principal.
    const notPastDue = insts.filter((x) => x.dueDate >= day)
    for (const i of notPastDue) pay(i, 'fees', current)
    for (const i of notPastDue) pay(i, 'interest', current)
    const currentInstallment = notPastDue.find((i) => i.principalDue > i.principalPaid)
    if (currentInstallment !== undefined) pay(currentInstallment, 'principal', current)
    principal -= pastDue.principal + current.principal
    // An installment the payment leaves owing nothing is paid in full: it closes that day.
    for (const i of touched) if (owedOf(i) === 0) i.closed = true
    // 3. A prepayment: recorded on the current installment, the installments after it recast from the day.
    if (left > 0) {
      if (currentInstallment === undefined) throw new Error(`reference model: payment ${p.id} of ${p.amount} is more than the payoff`)
      currentInstallment.principalDue += left
      currentInstallment.principalPaid += left
      current.principal += left
      principal -= left
      left = 0
      const at = insts.indexOf(currentInstallment)
      const rest = insts.slice(at + 1)
      if (rest.some((i) => i.principalPaid !== 0 || i.interest !== 0)) throw new Error('reference model: a recast installment was already paid or accruing')
      let keep = rest.length
      if (principal === 0) keep = 0
      else {
        const periods = rest.map((i, k) => counter.days(k === 0 ? day : rest[k - 1]!.dueDate, i.dueDate))
        const level = t.prepayment === 'REDUCE_INSTALLMENT' ? refLevelPayment(principal, t.rateBps, periods, counter.year) : booked.payment
        const parts = refPrincipalParts(principal, t.rateBps, periods, counter.year, level)
        let balance = principal
        for (const [k, i] of rest.entries()) {
          i.principalDue = parts[k]!
          balance -= parts[k]!
          // REDUCE_TERM: the schedule ends as soon as it is repaid; REDUCE_INSTALLMENT keeps the term.
          if (t.prepayment === 'REDUCE_TERM' && balance === 0 && keep === rest.length) keep = k + 1
        }
      }
      insts.splice(at + 1 + keep)
    }
    allocations.set(p.id, { pastDue: { ...pastDue }, current: { ...current } })
  }

  for (const day of dates) {
    const isDueDate = insts.some((i) => i.dueDate === day)
    const paymentsToday = inForce.filter((p) => p.date === day)
    if (isDueDate || paymentsToday.length > 0) accrueTo(day)
    const last = insts[insts.length - 1]
    for (const i of insts) if (i.dueDate === day && !(i === last && principal > 0)) i.closed = true
    for (const i of insts) {
      if (i.feeChecked || feeDate(i) !== day) continue
      i.feeChecked = true
      // What it still owes that day: for the last installment after maturity, interest accrued to the day included.
      const owed = owedOf(i) + (i === open() ? pending(day) : 0)
      if (owed > 0) i.fees += t.lateFee.flat + halfUp(ratio(big(t.lateFee.bps) * big(owed), 10_000n))
    }
    for (const p of paymentsToday) apply(p, day)
  }
  const tail = pending(asOf)
  if (tail > 0) open()!.interest += tail
  const outstanding: Buckets = {
    principal,
    interest: insts.reduce((s, i) => s + i.interest - i.interestPaid, 0),
    fees: insts.reduce((s, i) => s + i.fees - i.feesPaid, 0),
  }
  return { asOf, payment: booked.payment, installments: insts, outstanding, payoff: outstanding.principal + outstanding.interest + outstanding.fees, allocations }
}

/**
 * An installment's status on `asOf` (docs/servicing.md "Schedule"): PAID when nothing is owed and
 * its interest is final (or the loan owes no principal); LATE when its due date has passed and
 * something is owed; DUE on its due date with nothing paid; PARTIALLY_PAID when something is paid
 * and something owed; UPCOMING before its due date with nothing paid.
 */
const refStatus = (state: RefState, i: RefInstallment): string => {
  const owed = owedOf(i)
  const paid = i.principalPaid + i.interestPaid + i.feesPaid
  if (owed === 0 && (i.closed || state.outstanding.principal === 0)) return 'PAID'
  if (i.dueDate < state.asOf && owed > 0) return 'LATE'
  if (i.dueDate === state.asOf && paid === 0) return 'DUE'
  if (paid > 0) return 'PARTIALLY_PAID'
  return 'UPCOMING'
}

// ---------------------------------------------------------------------------------------------
// The worked examples of docs/servicing.md, by hand
// ---------------------------------------------------------------------------------------------

const EXAMPLE: RefTerms = {
  principal: 1_200_000,
  rateBps: 1_200,
  termMonths: 12,
  start: '2026-01-15',
  dayCount: 'THIRTY_360',
  prepayment: 'REDUCE_TERM',
  lateFee: { flat: 0, bps: 0, graceDays: 0 },
}

describe('the servicing reference model (hand-computed examples)', () => {
  it('books 1,200,000 at 12.00% over 12 months: 106,619 a month, 94,619 + 12,000, then 95,565 + 11,054, then 96,521 + 10,098', () => {
    const { payment, rows } = refSchedule(EXAMPLE)
    expect(payment).to.equal(106_619)
    expect(rows.slice(0, 3)).to.deep.equal([
      { dueDate: '2026-02-15', principal: 94_619, interest: 12_000 },
      { dueDate: '2026-03-15', principal: 95_565, interest: 11_054 },
      { dueDate: '2026-04-15', principal: 96_521, interest: 10_098 },
    ])
    expect(rows.reduce((s, r) => s + r.principal, 0)).to.equal(1_200_000)
    expect(rows.at(-1)!.dueDate).to.equal('2027-01-15')
  })

  it('accrues 12,000 to 2026-02-15 and 26,000 to 2026-03-20 under 30/360, and 12,230 for the first 31 days under Actual/365', () => {
    expect(refDerive(EXAMPLE, [], '2026-02-15').outstanding).to.deep.equal({ principal: 1_200_000, interest: 12_000, fees: 0 })
    // 2 months (60 days) and 5 days: 65 days × 1,200,000 × 12% ÷ 360 = 26,000.
    expect(refDerive(EXAMPLE, [], '2026-03-20').outstanding.interest).to.equal(26_000)
    expect(refDerive({ ...EXAMPLE, dayCount: 'ACTUAL_365' }, [], '2026-02-15').outstanding.interest).to.equal(12_230)
    // A loan paid off on its start date owes no interest.
    expect(refDerive(EXAMPLE, [{ id: 'p', amount: 1_200_000, date: '2026-01-15', seq: 1 }], '2026-06-01').payoff).to.equal(0)
  })

  it('charges 2,500 + 500 bps of the unpaid 106,619 = 7,831 on the first day after a 10-day grace', () => {
    const terms: RefTerms = { ...EXAMPLE, lateFee: { flat: 2_500, bps: 500, graceDays: 10 } }
    expect(refDerive(terms, [], '2026-02-25').outstanding.fees).to.equal(0)
    expect(refDerive(terms, [], '2026-02-26').outstanding.fees).to.equal(7_831)
  })

  it('applies the first bill, 106,619, paid on 2026-02-10: 10,400 of interest (26 days), 94,619 of installment 1 and 1,600 of prepayment', () => {
    // 30/360: no whole month since 2026-01-15, and the part of a month counts its 26 calendar days.
    const state = refDerive(EXAMPLE, [{ id: 'p', amount: 106_619, date: '2026-02-10', seq: 1 }], '2026-02-10')
    expect(state.allocations.get('p')).to.deep.equal({ pastDue: { principal: 0, interest: 0, fees: 0 }, current: { principal: 96_219, interest: 10_400, fees: 0 } })
    expect(state.outstanding).to.deep.equal({ principal: 1_103_781, interest: 0, fees: 0 })
    expect(state.installments[0]).to.deep.include({ principalDue: 96_219, principalPaid: 96_219, interest: 10_400, interestPaid: 10_400, closed: true })
    expect(state.installments.reduce((s, i) => s + i.principalDue, 0)).to.equal(1_200_000)
    // Recast from that day keeping 106,619: installment 2 runs 34 days of 30/360 on 1,103,781
    // (12,509.52 → 12,510), so its principal is 94,109 and paying 106,619 on its due date settles it.
    expect(state.installments[1]).to.deep.include({ principalDue: 94_109 })
    const next = refDerive(EXAMPLE, [{ id: 'p', amount: 106_619, date: '2026-02-10', seq: 1 }, { id: 'q', amount: 106_619, date: '2026-03-15', seq: 2 }], '2026-03-16')
    expect(next.installments[1]).to.deep.include({ principalDue: 94_109, principalPaid: 94_109, interest: 12_510, interestPaid: 12_510, closed: true })
    expect(refStatus(next, next.installments[1]!)).to.equal('PAID')
  })

  it('recasts 1,000 at 12% over 3 months after 500 paid on the first due date: REDUCE_TERM keeps 340, REDUCE_INSTALLMENT pays 259', () => {
    // Booked: 340 a month; 330 + 10, 333 + 7, 337 + 3. On 2026-02-15: 10 interest, 330 principal, 160 prepaid (490 on installment 1).
    const small: RefTerms = { ...EXAMPLE, principal: 1_000, termMonths: 3 }
    expect(refSchedule(small)).to.deep.equal({
      payment: 340,
      rows: [
        { dueDate: '2026-02-15', principal: 330, interest: 10 },
        { dueDate: '2026-03-15', principal: 333, interest: 7 },
        { dueDate: '2026-04-15', principal: 337, interest: 3 },
      ],
    })
    const paid = [{ id: 'p', amount: 500, date: '2026-02-15', seq: 1 }]
    const parts = (s: RefState) => s.installments.map((i) => [i.principalDue, i.principalPaid])
    // 510 left: REDUCE_TERM 340 − 5 (5.10) = 335, then the rest 175.
    expect(parts(refDerive(small, paid, '2026-02-15'))).to.deep.equal([[490, 490], [335, 0], [175, 0]])
    // REDUCE_INSTALLMENT: 510 × 1.01² ÷ 2.01 = 258.83 → 259; 259 − 5 = 254, then the rest 256.
    expect(parts(refDerive({ ...small, prepayment: 'REDUCE_INSTALLMENT' }, paid, '2026-02-15'))).to.deep.equal([[490, 490], [254, 0], [256, 0]])
    // 1,010 paid on 2026-02-15 (10 of interest, all 1,000 of principal) leaves nothing: the schedule ends there.
    const ended = refDerive(small, [{ id: 'q', amount: 1_010, date: '2026-02-15', seq: 1 }], '2026-02-15')
    expect(parts(ended)).to.deep.equal([[1_000, 1_000]])
    expect(ended.payoff).to.equal(0)
  })
})

// ---------------------------------------------------------------------------------------------
// The use cases, in memory
// ---------------------------------------------------------------------------------------------

const caller: Caller = { keyId: testId('key-1'), clientId: testId('client-1'), partyId: testId('11111111-1111-4111-8111-111111111111'), environment: 'live', scopes: ['partner:api'] }
const BANK = { type: 'bank_account', account_holder_name: 'Acme Corp', routing_number: '021000021', account_number: '000123456789' }

/** 10:00 UTC on `date`, plus `ms`. */
const at = (date: string, ms = 0): Date => new Date(Date.parse(`${date}T10:00:00.000Z`) + ms)

const right = <A>(r: E.Either<unknown, A>): A => {
  if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
  return r.right
}
const run = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => right(await te())
const some = async <A>(te: TE.TaskEither<unknown, O.Option<A>>): Promise<A> => {
  const o = await run(te)
  if (O.isNone(o)) throw new Error('expected Some')
  return o.value
}

/** Where `a` and `b` differ, as `path: a ≠ b` lines. */
const differences = (a: unknown, b: unknown, path = ''): readonly string[] => {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    return keys.flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`))
  }
  return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`]
}

/** `deep.equal`, failing with the fields that differ (actual ≠ expected) and both values whole: chai would shorten them. */
const same = (actual: unknown, expected: unknown, what: string): void => {
  try {
    expect(actual).to.deep.equal(expected)
  } catch {
    const diff = differences(actual, expected).slice(0, 12).join('\n    ')
    throw new Error(`${what}\n    ${diff}\n  actual:   ${JSON.stringify(actual)}\n  expected: ${JSON.stringify(expected)}`)
  }
}

/** A product's terms and servicing rules, as a loan is booked with them. */
type Product = { readonly rateBps: number; readonly termMonths: number; readonly originationFeeBps: number; readonly servicing: ServicingTerms }
type LoanSpec = { readonly product: Product; readonly amount: number; readonly start: string }

const termsOf = (spec: LoanSpec): RefTerms => ({
  principal: spec.amount,
  rateBps: spec.product.rateBps,
  termMonths: spec.product.termMonths,
  start: spec.start,
  dayCount: spec.product.servicing.dayCount,
  prepayment: spec.product.servicing.prepayment,
  lateFee: spec.product.servicing.lateFee,
})

/** A loan booked on `spec.start` (as approval books it, with the product's servicing terms), a bank account to pay from, and the use cases. */
const servicedLoan = async (spec: LoanSpec) => {
  const applications = inMemoryLoanApplicationRepository()
  const loans = applications.loans
  const paymentMethods = inMemoryPaymentMethodRepository(loans)
  const ids = sequentialIds()
  const clock = testClock(at(spec.start))
  const deps = { loans, paymentMethods, processor: fakePaymentProcessor(), tokenizer: fakePaymentTokenizer(), ids, clock }
  const application: LoanApplication = {
    id: testId(ids.next()),
    partyId: caller.partyId,
    clientId: caller.clientId,
    productId: testId(ids.next()),
    amount: spec.amount,
    currency: 'USD',
    termMonths: spec.product.termMonths,
    purpose: null,
    interestRateBps: spec.product.rateBps,
    originationFeeBps: spec.product.originationFeeBps,
    status: 'APPROVED',
    submittedAt: clock.now(),
    decision: null,
    loanId: null,
    version: 2,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  }
  const booked = bookLoan(application, ids, clock.now(), spec.product.servicing)
  loans.book(booked)
  const loan: Loan = booked.loan
  const [partyId, loanId] = [caller.partyId, loan.id]
  const method: PaymentMethod = await run(createPaymentMethodForPartyLoan(deps)(caller, { partyId, loanId, ...BANK }))
  let key = 0
  return {
    loan,
    clock,
    today: (): string => clock.now().toISOString().slice(0, 10),
    pay: (amount: number) =>
      createPaymentIntentForPartyLoan(deps)(caller, { partyId, loanId, amount, currency: 'USD', payment_method_id: method.id, idempotency_key: `k${(key += 1)}` })(),
    reverse: (paymentId: string) => reverseLoanPayment(deps)({ paymentId, reason: 'returned by the bank' })(),
    accrue: (asOf?: string) => run(accrueInterestForLoans(deps)(asOf === undefined ? {} : { as_of: asOf })),
    payoff: (asOf?: string) => run(getLoanPayoffForParty(deps)(caller, { partyId, loanId, ...(asOf === undefined ? {} : { as_of: asOf }) })),
    latestBalance: () => run(getLatestLoanBalanceForParty(deps)(caller, { partyId, loanId })),
    schedule: async () => (await run(listLoanScheduleForParty(deps)(caller, { partyId, loanId, limit: '100' }))).items,
    /** The loan, its latest snapshot and its successful payments (in the order the replay takes them). */
    servicing: async () => ({ ...(await some(loans.servicing(partyId, loanId))), payments: await run(loans.payments.succeeded(loanId)) }),
    stored: () => some(loans.findById(loanId)),
  }
}
type ServicedLoan = Awaited<ReturnType<typeof servicedLoan>>

/** A payment the test took, in the order it was taken (`seq`), and whether it has been reversed since. */
type Taken = { readonly id: string; readonly amount: number; readonly date: string; readonly seq: number; reversed: boolean }
const inForce = (taken: readonly Taken[]): readonly RefPayment[] => taken.filter((p) => !p.reversed)

/** Takes a payment of `amount` today, which must succeed, and records it. */
const takePayment = async (h: ServicedLoan, taken: Taken[], amount: number): Promise<Payment> => {
  const payment = right(await h.pay(amount))
  expect([payment.status, payment.amount, payment.effectiveDate]).to.deep.equal(['SUCCEEDED', amount, h.today()])
  taken.push({ id: payment.id, amount, date: payment.effectiveDate, seq: taken.length + 1, reversed: false })
  return payment
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const product: fc.Arbitrary<Product> = fc.record({
  rateBps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_600 })),
  termMonths: fc.integer({ min: 1, max: 36 }),
  originationFeeBps: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
  servicing: fc.record({
    dayCount: fc.constantFrom<DayCount>('THIRTY_360', 'ACTUAL_365'),
    prepayment: fc.constantFrom<PrepaymentMode>('REDUCE_TERM', 'REDUCE_INSTALLMENT'),
    lateFee: fc.record({ flat: fc.integer({ min: 0, max: 5_000 }), bps: fc.integer({ min: 0, max: 1_000 }), graceDays: fc.integer({ min: 0, max: 15 }) }),
    // The clock reads 10:00 UTC, so the loan's dates are UTC dates.
    timeZone: fc.constant('UTC'),
  }),
})
/** Booking dates from 2024 to 2027, month ends (clamped due dates) often. */
const startDate: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 0, max: 4 * 365 }).map((k) => shiftDays('2024-01-01', k)),
  fc.constantFrom('2024-01-29', '2024-01-31', '2024-02-29', '2025-01-30', '2025-03-31', '2025-08-31', '2026-01-15', '2026-10-31', '2027-12-31'),
)
/** Amounts from 1 to 50,000,000 minor units; small ones often, where rounding decides most. */
const loanSpec: fc.Arbitrary<LoanSpec> = fc.record({
  product,
  amount: fc.oneof(fc.integer({ min: 1, max: 50_000_000 }), fc.integer({ min: 1, max: 5_000 })),
  start: startDate,
})
const share = fc.double({ min: 0, max: 1, noNaN: true })

/** A step of a loan's life; after each, the checks look `ahead` days ahead too. */
type Step = { readonly ahead: number } & (
  | { readonly kind: 'wait'; readonly days: number }
  | { readonly kind: 'pay'; readonly how: 'share' | 'next-due' | 'payoff' | 'payoff-less-one'; readonly share: number }
  | { readonly kind: 'pay-quoted'; readonly days: number; readonly less: boolean }
  | { readonly kind: 'reverse'; readonly pick: number }
  | { readonly kind: 'accrue'; readonly back: number }
)
const ahead = fc.integer({ min: 0, max: 60 })
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 70 }), ahead }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      how: fc.constantFrom('share' as const, 'share' as const, 'share' as const, 'next-due' as const, 'next-due' as const, 'payoff' as const, 'payoff-less-one' as const),
      share,
      ahead,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay-quoted' as const), days: fc.integer({ min: 1, max: 60 }), less: fc.boolean(), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat(), ahead }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('accrue' as const), back: fc.nat({ max: 60 }), ahead }) },
)
const steps = fc.array(step, { minLength: 1, maxLength: 40, size: 'max' })

/** Paying exactly the quote pays the loan off; one minor unit less leaves exactly one owed. */
const expectPaidOffBy = async (h: ServicedLoan, less: boolean): Promise<void> => {
  const { loan } = await h.servicing()
  same([loan.status, (await h.payoff()).payoff], less ? ['ACTIVE', 1] : ['PAID_OFF', 0], less ? 'paying one minor unit less than the quote' : 'paying exactly the quote')
}

/**
 * Lives through `steps` on a loan booked by `spec`: clock moves of 1–70 days, payments (a share of
 * the payoff, the next due amount, exactly the payoff or one unit less, a good-through quote paid
 * on its date), reversals of earlier payments and daily-job runs (for today or a past `as_of`).
 * Amounts come from the use cases' own quotes, so the walk never depends on the model; `check`
 * runs after booking and after every step.
 */
const live = async (spec: LoanSpec, lifeSteps: readonly Step[], check: (h: ServicedLoan, taken: readonly Taken[], ahead: number) => Promise<void>): Promise<void> => {
  const h = await servicedLoan(spec)
  const taken: Taken[] = []
  await check(h, taken, 0)
  for (const st of lifeSteps) {
    const today = h.today()
    const payoff = (await h.payoff()).payoff
    switch (st.kind) {
      case 'wait':
        h.clock.advance(st.days * MS_PER_DAY)
        break
      case 'accrue': {
        const asOf = [shiftDays(today, -st.back), spec.start].sort()[1]!
        expect((await h.accrue(asOf)).asOf).to.equal(asOf)
        break
      }
      case 'reverse': {
        const candidates = taken.filter((p) => !p.reversed)
        const chosen = candidates[st.pick % Math.max(1, candidates.length)]
        if (chosen === undefined) break
        expect(right(await h.reverse(chosen.id)).status).to.equal('REVERSED')
        chosen.reversed = true
        break
      }
      case 'pay': {
        if (payoff === 0) {
          same(await h.pay(1), E.left(overpayment(0)), 'a payment on a paid-off loan')
          break
        }
        if (st.how === 'payoff' || (st.how === 'payoff-less-one' && payoff > 1)) {
          same(await h.pay(payoff + 1), E.left(overpayment(payoff)), 'one minor unit above the quote')
          const less = st.how === 'payoff-less-one'
          await takePayment(h, taken, payoff - (less ? 1 : 0))
          await expectPaidOffBy(h, less)
          break
        }
        const nextDue = st.how === 'next-due' ? (await h.latestBalance()).nextDueAmount : null
        const amount = nextDue !== null && nextDue > 0 ? Math.min(nextDue, payoff) : Math.min(payoff, Math.max(1, Math.floor(payoff * st.share)))
        await takePayment(h, taken, amount)
        break
      }
      case 'pay-quoted': {
        const quote = (await h.payoff(shiftDays(today, st.days))).payoff
        h.clock.advance(st.days * MS_PER_DAY)
        if (quote === 0) {
          same(await h.pay(1), E.left(overpayment(0)), 'a payment on a paid-off loan')
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

/**
 * The figures after any step: the ledger's bucket sums = the latest snapshot = the model on the
 * snapshot's date (the loan PAID_OFF exactly when that owes nothing); the payoff quote today and
 * `ahead` days ahead, and the latest balance brought forward to today, = the model; the
 * schedule's principal parts sum to the principal, and each installment's principal, fees and
 * paid amounts and each payment's allocation = the model's.
 */
const expectFiguresAsModelled = async (h: ServicedLoan, terms: RefTerms, taken: readonly Taken[], ahead: number): Promise<void> => {
  const today = h.today()
  const payments = inForce(taken)
  const record = await h.servicing()
  expect(record.payments.map((p) => p.id), 'payments in force').to.have.members(payments.map((p) => p.id))
  const latest = record.latest
  const owed: Buckets = { principal: latest.principalOutstanding, interest: latest.interestOutstanding, fees: latest.feesOutstanding }
  same(ledgerSums((await h.stored()).transactions), owed, 'ledger sums = latest snapshot')
  const atSnapshot = refDerive(terms, payments, latest.asOf)
  same({ ...owed, payoff: latest.payoffAmount }, { ...atSnapshot.outstanding, payoff: atSnapshot.payoff }, `latest snapshot (as of ${latest.asOf}) = model`)
  same(record.loan.status, atSnapshot.payoff === 0 ? 'PAID_OFF' : 'ACTIVE', 'loan status')

  const now = refDerive(terms, payments, today)
  const quote = await h.payoff()
  same({ asOf: quote.asOf, outstanding: quote.outstanding, payoff: quote.payoff }, { asOf: today, outstanding: now.outstanding, payoff: now.payoff }, 'payoff quote today = model')
  const later = shiftDays(today, ahead)
  const goodThrough = await h.payoff(later)
  const modelLater = refDerive(terms, payments, later)
  same(
    { asOf: goodThrough.asOf, outstanding: goodThrough.outstanding, payoff: goodThrough.payoff },
    { asOf: later, outstanding: modelLater.outstanding, payoff: modelLater.payoff },
    `payoff quote ${ahead} days ahead = model`,
  )
  const balance = await h.latestBalance()
  same(
    { principal: balance.principalOutstanding, interest: balance.interestOutstanding, fees: balance.feesOutstanding, payoff: balance.payoffAmount },
    { ...now.outstanding, payoff: now.payoff },
    'latest balance brought forward to today = model',
  )

  const schedule = await h.schedule()
  expect(schedule.reduce((s, i) => s + i.principalDue, 0), "the schedule's principal parts sum to the principal").to.equal(terms.principal)
  same(
    schedule.map((i) => [i.number, i.dueDate, i.principalDue, i.principalPaid, i.interestPaid, i.feesDue, i.feesPaid]),
    now.installments.map((i) => [i.number, i.dueDate, i.principalDue, i.principalPaid, i.interestPaid, i.fees, i.feesPaid]),
    `schedule as of ${today} = model ([number, due date, principal due, principal paid, interest paid, fees due, fees paid])`,
  )
  for (const p of record.payments) same(p.allocation, now.allocations.get(p.id), `allocation of payment ${p.id} (${p.amount} on ${p.effectiveDate}) = model`)
}

/**
 * Whether each installment's interest is final (`interest_accrued`: it closed), its interest once
 * final, and its status = the model's.
 */
const expectScheduleStateAsModelled = async (h: ServicedLoan, terms: RefTerms, taken: readonly Taken[]): Promise<void> => {
  const today = h.today()
  const now = refDerive(terms, inForce(taken), today)
  same(
    (await h.schedule()).map((i) => ({ number: i.number, interestAccrued: i.interestAccrued, finalInterest: i.interestAccrued ? i.interestDue : null, status: i.status })),
    now.installments.map((i) => ({ number: i.number, interestAccrued: i.closed, finalInterest: i.closed ? i.interest : null, status: refStatus(now, i) })),
    `schedule as of ${today}: interest_accrued, final interest and status = model`,
  )
}

const SEED = 20_260_537

describe('loan servicing against the reference model', () => {
  it('keeps ledger = latest snapshot = model, payoff quotes = model and the schedule and allocations = model through random payments, reversals, jobs and waits', async function () {
    this.timeout(180_000)
    await fc.assert(
      fc.asyncProperty(loanSpec, steps, async (spec, lifeSteps) => {
        const terms = termsOf(spec)
        await live(spec, lifeSteps, async (h, taken, lookAhead) => {
          if (taken.length === 0) {
            const booked = refSchedule(terms)
            same([h.loan.paymentAmount, h.loan.firstDueDate, h.loan.maturityDate], [booked.payment, booked.rows[0]!.dueDate, booked.rows.at(-1)!.dueDate], 'booked level payment and dates')
          }
          await expectFiguresAsModelled(h, terms, taken, lookAhead)
        })
      }),
      { seed: SEED, numRuns: 100 },
    )
  })

  it("closes installments as the model does: interest final (interest_accrued) when and only when an installment closes, statuses alike", async function () {
    this.timeout(180_000)
    await fc.assert(
      fc.asyncProperty(loanSpec, steps, async (spec, lifeSteps) => {
        const terms = termsOf(spec)
        await live(spec, lifeSteps, (h, taken) => expectScheduleStateAsModelled(h, terms, taken))
      }),
      { seed: SEED, numRuns: 60 },
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Order independence
// ---------------------------------------------------------------------------------------------

/** A payment of the plan: days after the one before (or the start), and a share of the room left, or all of it. */
type PlannedPayment = { readonly gap: number; readonly share: number; readonly all: boolean }
type Plan = {
  readonly spec: LoanSpec
  readonly payments: readonly PlannedPayment[]
  /** Which payment is reversed. */
  readonly pick: number
  /** Days from the last payment to the final date. */
  readonly tail: number
  /** The jobs of the "random days" run: where in the loan's life (0–1), how many days back `as_of` is, where in the day. */
  readonly jobs: readonly { readonly at: number; readonly back: number; readonly rank: number }[]
  /** Where between the reversed payment and the final date the "random days" run reverses it (0–1). */
  readonly reverseAt: number
}
const plan: fc.Arbitrary<Plan> = fc.record({
  spec: loanSpec,
  payments: fc.array(
    fc.record({ gap: fc.integer({ min: 0, max: 70 }), share, all: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 6, arbitrary: fc.constant(false) }) }),
    { minLength: 1, maxLength: 8 },
  ),
  pick: fc.nat(),
  tail: fc.integer({ min: 0, max: 60 }),
  jobs: fc.array(fc.record({ at: share, back: fc.nat({ max: 60 }), rank: fc.integer({ min: 0, max: 30 }) }), { maxLength: 12 }),
  reverseAt: share,
})

type PlannedAmount = { readonly index: number; readonly amount: number; readonly date: string }

/**
 * The plan's payments with their amounts, the same in every run: each within the payoff on its
 * date whether or not the reversed payment is still in force by then (by the code's own quote: the
 * runs are compared with each other). A payment with no room left (the loan paid off) is left out.
 */
const amountsOf = (p: Plan, loan: Loan) => {
  const reversedIndex = p.pick % p.payments.length
  const payments: PlannedAmount[] = []
  const settledAs = (xs: readonly PlannedAmount[]) => xs.map((x) => ({ id: testId(`p${String(x.index).padStart(3, '0')}`), amount: x.amount, effectiveDate: x.date, createdAt: at(x.date, x.index) }))
  let date = p.spec.start
  for (const [index, x] of p.payments.entries()) {
    date = shiftDays(date, x.gap)
    const room = Math.min(deriveLoan(loan, settledAs(payments), date).payoff, deriveLoan(loan, settledAs(payments.filter((y) => y.index !== reversedIndex)), date).payoff)
    if (room > 0) payments.push({ index, amount: x.all ? room : Math.max(1, Math.floor(room * x.share)), date })
  }
  return { payments, reversed: payments.find((y) => y.index === reversedIndex), end: shiftDays(date, p.tail) }
}

type Run = 'daily' | 'at the end' | 'random'

/**
 * Services the plan's loan one way, then runs the job on the final date, and answers what it ends
 * with (payments by their index in the plan): `daily` runs the job every day and reverses at once;
 * `at the end` runs it only on the final date and reverses then; `random` runs it on random days,
 * for past dates too, and reverses on a random day.
 */
const serviceAs = async (p: Plan, x: ReturnType<typeof amountsOf>, how: Run) => {
  const h = await servicedLoan(p.spec)
  const indexOf = new Map<string, number>()
  const actions: { readonly day: string; readonly rank: number; readonly act: () => Promise<unknown> }[] = []
  for (const payment of x.payments) {
    actions.push({
      day: payment.date,
      rank: 10 + payment.index,
      act: async () => {
        const taken = right(await h.pay(payment.amount))
        expect([taken.status, taken.effectiveDate]).to.deep.equal(['SUCCEEDED', payment.date])
        indexOf.set(taken.id, payment.index)
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
    h.clock.set(at(action.day, n))
    await action.act()
  }

  const record = await h.servicing()
  const stored = await h.stored()
  const derived = deriveLoan(record.loan, record.payments.map(settled), x.end)
  const byPlan = <A>(entries: readonly (readonly [string, A])[]) => entries.map(([id, a]) => [indexOf.get(id)!, a] as const).sort((a, b) => a[0] - b[0])
  // The snapshot's date is when something last moved, which depends on when jobs ran; its figures must not.
  const { id: _id, transactionId: _t, sequence: _s, createdAt: _c, asOf: _a, ...snapshot } = record.latest
  return {
    ledger: ledgerSums(stored.transactions),
    snapshot,
    status: record.loan.status,
    derived: {
      outstanding: derived.outstanding,
      payoff: derived.payoff,
      pastDueAmount: derived.pastDueAmount,
      nextDueDate: derived.nextDueDate,
      nextDueAmount: derived.nextDueAmount,
      daysPastDue: derived.daysPastDue,
      installments: derived.installments,
      allocations: byPlan([...derived.allocations]),
    },
    // The stored rows as of the loan's last posting (a paid-off loan is not visited again): amounts, not the flag.
    storedSchedule: stored.installments.map(({ interestAccrued: _f, ...i }) => i),
    storedAllocations: byPlan(record.payments.map((q) => [q.id, { allocation: q.allocation, perInstallment: q.perInstallment }] as const)),
  }
}

describe('loan servicing is independent of when the daily job and reversals run', () => {
  it('ends in the same derived state, ledger and allocations whether the job runs daily, once at the end or on random days (past as_of too), and whenever the reversal is made', async function () {
    this.timeout(180_000)
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const x = amountsOf(p, (await servicedLoan(p.spec)).loan)
        const daily = await serviceAs(p, x, 'daily')
        same(await serviceAs(p, x, 'at the end'), daily, 'job and reversal at the end (actual) = daily job, reversal at once (expected)')
        same(await serviceAs(p, x, 'random'), daily, 'jobs and reversal on random days (actual) = daily job, reversal at once (expected)')
      }),
      { seed: SEED, numRuns: 100 },
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Where the code and the docs part: the properties' counterexamples, shrunk and computed by hand
// ---------------------------------------------------------------------------------------------

const oneMonth: LoanSpec = {
  product: {
    rateBps: 1_200,
    termMonths: 1,
    originationFeeBps: 0,
    servicing: { dayCount: 'THIRTY_360', prepayment: 'REDUCE_TERM', lateFee: { flat: 2_500, bps: 500, graceDays: 10 }, timeZone: 'UTC' },
  },
  amount: 1_200_000,
  start: '2026-01-15',
}
const scheduleView = (h: ServicedLoan) => async () =>
  (await h.schedule()).map((i) => ({ number: i.number, interestDue: i.interestDue, feesDue: i.feesDue, interestAccrued: i.interestAccrued, status: i.status }))

describe('rules the properties once found broken (hand-computed, = the model)', () => {
  describe('the late fee of the last installment, after maturity', () => {
    it('is 500 bps of what it owes on the fee date, the interest accrued since maturity included: 2,500 + 500 bps × 1,216,400 = 63,320', async () => {
      // 1,200,000 at 12% for one month from 2026-01-15: due 2026-02-15 with 12,000 of interest; by
      // 2026-02-26 (the first day after a 10-day grace) 11 more days have accrued 4,400 to it.
      const h = await servicedLoan(oneMonth)
      const expected = { principal: 1_200_000, interest: 16_400, fees: 63_320 }
      same(refDerive(termsOf(oneMonth), [], '2026-02-26').outstanding, expected, 'model')
      h.clock.set(at('2026-02-26'))
      await h.accrue()
      same((await h.payoff()).outstanding, expected, 'payoff quote on 2026-02-26')
      same(ledgerSums((await h.stored()).transactions), expected, 'ledger on 2026-02-26')
    })
  })

  describe('interest_accrued of the last installment (its interest is final once it closes)', () => {
    it('is true once a payoff pays it in full before its due date', async () => {
      // On 2026-02-10: 26 days of 30/360 interest, 10,400; 1,210,400 pays everything.
      const h = await servicedLoan(oneMonth)
      h.clock.set(at('2026-02-10'))
      await takePayment(h, [], 1_210_400)
      same(await scheduleView(h)(), [{ number: 1, interestDue: 10_400, feesDue: 0, interestAccrued: true, status: 'PAID' }], 'schedule on 2026-02-10')
    })

    it('stays false after maturity while principal is owed: interest keeps accruing to it', async () => {
      // 12,000 to 2026-02-15, then 5 days of 400.
      const h = await servicedLoan(oneMonth)
      h.clock.set(at('2026-02-20'))
      same(await scheduleView(h)(), [{ number: 1, interestDue: 14_000, feesDue: 0, interestAccrued: false, status: 'LATE' }], 'schedule on 2026-02-20')
    })
  })

  describe('an installment paid in full ahead while an earlier one is still open', () => {
    it('closes that day and is never late: no interest, no late fee', async () => {
      // 1,000,000 at 36% over 36 months (30/360, REDUCE_TERM; late fee 1,000 + 100 bps, no grace),
      // booked 2026-01-15: 45,804 a month. On the day of booking 60,000 pays installment 1
      // (15,804) and prepays 44,196; 940,000 is recast from that day keeping 45,804: installment 2
      // (due 2026-03-15, 60 days: 56,400 of interest) gets no principal, installment 3 gets
      // 45,804 − 28,200 = 17,604. The same day 17,604 pays installment 3 in full.
      const spec: LoanSpec = {
        product: { rateBps: 3_600, termMonths: 36, originationFeeBps: 0, servicing: { dayCount: 'THIRTY_360', prepayment: 'REDUCE_TERM', lateFee: { flat: 1_000, bps: 100, graceDays: 0 }, timeZone: 'UTC' } },
        amount: 1_000_000,
        start: '2026-01-15',
      }
      const h = await servicedLoan(spec)
      const taken: Taken[] = []
      await takePayment(h, taken, 60_000)
      expect((await h.schedule()).slice(0, 3).map((i) => i.principalDue)).to.deep.equal([60_000, 0, 17_604])
      await takePayment(h, taken, 17_604)
      // Then nothing is paid. Installment 2 closes on 2026-03-15 with 60 days on 922,396: 55,343.76 → 55,344,
      // and is charged 1,000 + 1% × 55,344 = 1,553 on 2026-03-16. Interest from 2026-03-15 belongs to
      // installment 4 (due 2026-05-15), so on 2026-04-16 only installment 2 is late.
      h.clock.set(at('2026-04-16'))
      await h.accrue()
      same(refDerive(termsOf(spec), inForce(taken), '2026-04-16').outstanding.fees, 1_553, 'model fees on 2026-04-16')
      same((await scheduleView(h)()).slice(1, 3), [
        { number: 2, interestDue: 55_344, feesDue: 1_553, interestAccrued: true, status: 'LATE' },
        { number: 3, interestDue: 0, feesDue: 0, interestAccrued: true, status: 'PAID' },
      ], 'installments 2 and 3 on 2026-04-16')
      same((await h.payoff()).outstanding.fees, 1_553, 'fees on 2026-04-16')
    })
  })
})
