/**
 * An independent reference model of loan servicing, written from docs/servicing.md ("How a loan's
 * state is derived", "Interest", "Payments", "Late fees", "Schedule", "Payoff quote",
 * "Delinquency", "Business time zone") and the booking schedule it describes: exact BigInt
 * rationals wherever a division happens, rounded half up only where the docs say, its own
 * calendar, day counts and time zones. It imports nothing of the engine it checks.
 */

/** Amounts by bucket. */
export type RefBuckets = { readonly principal: number; readonly interest: number; readonly fees: number }
export type RefDayCountConvention = 'THIRTY_360' | 'ACTUAL_365'
export type RefPrepayment = 'REDUCE_TERM' | 'REDUCE_INSTALLMENT'

// ---------------------------------------------------------------------------------------------
// Reference model: exact rationals
// ---------------------------------------------------------------------------------------------

/** An exact non-negative rational `n / d`. */
type Ratio = { readonly n: bigint; readonly d: bigint }

export const ratio = (n: bigint, d: bigint = 1n): Ratio => {
  if (d <= 0n || n < 0n) throw new Error(`reference model: ratio ${n}/${d} out of range`)
  return { n, d }
}
const plus = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d + b.n * a.d, a.d * b.d)
const times = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.n, a.d * b.d)
const over = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d, a.d * b.n)
/** Rounded half up to a whole minor unit (the only rounding the docs name). */
export const halfUp = (a: Ratio): number => Number((2n * a.n + a.d) / (2n * a.d))
/** Rounded down (the zero-rate level payment, P ÷ n). */
const floorOf = (a: Ratio): number => Number(a.n / a.d)
export const big = (n: number): bigint => BigInt(n)

// ---------------------------------------------------------------------------------------------
// Reference model: calendar and day counts
// ---------------------------------------------------------------------------------------------

export const MS_PER_DAY = 86_400_000
const ymd = (date: string): readonly [number, number, number] => [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))]
export const epochDay = (date: string): number => {
  const [y, m, d] = ymd(date)
  return Date.UTC(y, m - 1, d) / MS_PER_DAY
}
const fromEpochDay = (day: number): string => new Date(day * MS_PER_DAY).toISOString().slice(0, 10)
export const shiftDays = (date: string, days: number): string => fromEpochDay(epochDay(date) + days)
/** Calendar days from `a` to `b`. */
export const calendar = (a: string, b: string): number => epochDay(b) - epochDay(a)
/** The same day `months` later, or that month's last day. */
export const shiftMonths = (date: string, months: number): string => {
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
export const refDayCount = (convention: RefDayCountConvention, start: string): RefDayCount => {
  if (convention === 'ACTUAL_365') return { year: 365, days: calendar }
  const positions = new Map<string, number>()
  const position = (date: string): number => {
    const known = positions.get(date)
    if (known !== undefined) return known
    // Whole months since the start: the month difference, less one if that day is not reached yet.
    let months = Math.max(0, (ymd(date)[0] - ymd(start)[0]) * 12 + ymd(date)[1] - ymd(start)[1])
    while (months > 0 && shiftMonths(start, months) > date) months -= 1
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
export type RefTerms = {
  readonly principal: number
  readonly rateBps: number
  readonly termMonths: number
  readonly start: string
  readonly dayCount: RefDayCountConvention
  readonly prepayment: RefPrepayment
  readonly lateFee: { readonly flat: number; readonly bps: number; readonly graceDays: number }
}

/** Interest on `principal` over `days`: exact, rounded half up once. */
export const stretchInterest = (principal: number, rateBps: number, days: number, year: number): number =>
  days <= 0 || principal <= 0 ? 0 : halfUp(ratio(big(principal) * big(rateBps) * big(days), 10_000n * big(year)))

/**
 * The level payment that leaves nothing after the last of `periods` (days each): with
 * `g_k = 1 + rate × days_k ÷ (10,000 × year)`, the balance after period k is `A_k − X·B_k`
 * (`A_k = A_{k−1}·g_k`, `B_k = B_{k−1}·g_k + 1`), so `X = A_n ÷ B_n`, rounded half up once.
 * A zero rate gives `P ÷ n` rounded down.
 */
export const refLevelPayment = (principal: number, rateBps: number, periods: readonly number[], year: number): number => {
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

export type RefScheduleRow = { readonly dueDate: string; readonly principal: number; readonly interest: number }

/** The booking schedule: monthly due dates, the level payment, each row's principal and interest. */
export const refSchedule = (t: RefTerms): { readonly payment: number; readonly rows: readonly RefScheduleRow[] } => {
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
export type RefPayment = { readonly id: string; readonly amount: number; readonly date: string; readonly seq: number }

/** A returned payment's fee: charged on `date`, the day of the return, in the order the returns came (`seq`). */
export type RefReturnFee = { readonly id: string; readonly amount: number; readonly date: string; readonly seq: number }

export type RefInstallment = {
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

export type RefAllocation = { readonly pastDue: RefBuckets; readonly current: RefBuckets }

/** The model's state of a loan on `asOf`. */
export type RefState = {
  readonly asOf: string
  readonly payment: number
  readonly installments: readonly RefInstallment[]
  readonly outstanding: RefBuckets
  readonly payoff: number
  readonly allocations: ReadonlyMap<string, RefAllocation>
}

type MutableBuckets = { principal: number; interest: number; fees: number }
export const owedOf = (i: RefInstallment): number => i.principalDue - i.principalPaid + (i.interest - i.interestPaid) + (i.fees - i.feesPaid)

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
 *   after the balance reaches zero, REDUCE_INSTALLMENT keeps the term (a last part may be zero);
 * - a returned payment's fee ("Returns": charged on the day of the return, before that day's
 *   payments, to the oldest installment owing anything that day, the last when none does) is a
 *   fee that installment owes, "owing" measured as a late fee's is (the open installment's
 *   interest accrued to the day included).
 */
export const refDerive = (t: RefTerms, payments: readonly RefPayment[], asOf: string, returnFees: readonly RefReturnFee[] = []): RefState => {
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
  const fees = returnFees.filter((f) => f.date <= asOf).sort((a, b) => a.seq - b.seq)
  const dates = [...new Set([...insts.map((i) => i.dueDate), ...insts.map(feeDate), ...inForce.map((p) => p.date), ...fees.map((f) => f.date)])].filter((d) => d <= asOf).sort()
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
    const pay = (i: RefInstallment, bucket: keyof RefBuckets, into: MutableBuckets): void => {
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
    for (const f of fees.filter((x) => x.date === day)) (insts.find((i) => owedOf(i) + (i === open() ? pending(day) : 0) > 0) ?? insts[insts.length - 1]!).fees += f.amount
    for (const p of paymentsToday) apply(p, day)
  }
  const tail = pending(asOf)
  if (tail > 0) open()!.interest += tail
  const outstanding: RefBuckets = {
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
 * and something owed; UPCOMING before its due date with nothing paid. The table leaves out an
 * installment past its due date that owes nothing yet is not PAID (the last one after maturity,
 * its interest not final while principal is owed): the model reads it as LATE.
 */
export const refStatus = (state: RefState, i: RefInstallment): string => {
  const owed = owedOf(i)
  const paid = i.principalPaid + i.interestPaid + i.feesPaid
  if (owed === 0 && (i.closed || state.outstanding.principal === 0)) return 'PAID'
  if (i.dueDate < state.asOf) return 'LATE'
  if (i.dueDate === state.asOf && paid === 0) return 'DUE'
  if (paid > 0) return 'PARTIALLY_PAID'
  return 'UPCOMING'
}

/** Days past due on the state's date ("Delinquency"): since the oldest installment due before it that still owes anything fell due. */
export const refDaysPastDue = (state: RefState): number => {
  const oldest = state.installments.find((i) => i.dueDate < state.asOf && owedOf(i) > 0)
  return oldest === undefined ? 0 : calendar(oldest.dueDate, state.asOf)
}

/** The delinquency bucket of `days` past due: CURRENT, then 1–30, 31–60, 61–90 and over 90. */
export const refDelinquencyBucket = (days: number): string =>
  days === 0 ? 'CURRENT' : days <= 30 ? 'DPD_1_30' : days <= 60 ? 'DPD_31_60' : days <= 90 ? 'DPD_61_90' : 'DPD_90_PLUS'
