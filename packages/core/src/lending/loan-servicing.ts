import { amortize, amortizeOver, levelPaymentFor } from './amortization.js'
import { calendarDays, dayCounter, divideHalfUp, interestBetween, addDays } from './day-count.js'
import type { BalanceSnapshot, InstallmentStatus, LedgerTransaction, Loan, LoanInstallment, LoanStatus, TransactionType } from '../domain/loans/loan.js'
import type { LoanId, PaymentId } from '../domain/foundations/ids.js'

/**
 * Servicing rules (docs/servicing.md), as pure functions. A loan's state on any date is derived
 * by replaying its terms and its successful payments from the day it was booked: daily interest
 * by the loan's day-count convention, installments closing on their due date (or earlier, when
 * paid in full), late fees after the grace period, payments by the waterfall, prepayments
 * recasting the rest of the schedule. Nothing depends on when a job or a request ran, so a
 * reversal or a read on any date gives the one answer the rules give (`deriveLoan`). The
 * repository locks the loan, `postChange` compares the derived state with its ledger, and the
 * difference is posted as ledger entries.
 */

/** What is owed in each bucket. */
export type Buckets = { readonly principal: number; readonly interest: number; readonly fees: number }

/** Nothing in any bucket. */
export const ZERO: Buckets = { principal: 0, interest: 0, fees: 0 }

const add = (a: Buckets, b: Buckets): Buckets => ({ principal: a.principal + b.principal, interest: a.interest + b.interest, fees: a.fees + b.fees })
const subtract = (a: Buckets, b: Buckets): Buckets => ({ principal: a.principal - b.principal, interest: a.interest - b.interest, fees: a.fees - b.fees })
const total = (b: Buckets): number => b.principal + b.interest + b.fees
const sameBuckets = (a: Buckets, b: Buckets): boolean => a.principal === b.principal && a.interest === b.interest && a.fees === b.fees
/** `-n` without a negative zero (which JSON would hide but deep equality would not). */
const negate = (n: number): number => (n === 0 ? 0 : -n)
const negated = (b: Buckets): Buckets => ({ principal: negate(b.principal), interest: negate(b.interest), fees: negate(b.fees) })

/** An installment as servicing shows it: what is due, what is paid, whether its interest is final. */
export type ServicedInstallment = LoanInstallment

/** An installment with its status as of the date it was derived for. */
export type ScheduledInstallment = ServicedInstallment & { readonly status: InstallmentStatus }

/** What a payment paid: past due first, then the current buckets. */
export type Allocation = { readonly pastDue: Buckets; readonly current: Buckets }

/** Per installment (by number), what a payment paid on it. */
export type InstallmentPayments = readonly { readonly number: number; readonly paid: Buckets }[]

/** A successful payment as the replay takes it: by effective date, those of one date in the order they were taken. */
export type SettledPayment = { readonly id: PaymentId; readonly amount: number; readonly effectiveDate: string; readonly createdAt: Date }

/** The delinquency buckets of docs/servicing.md "Delinquency", by days past due. */
export const DELINQUENCY_BUCKETS = ['CURRENT', 'DPD_1_30', 'DPD_31_60', 'DPD_61_90', 'DPD_90_PLUS'] as const
/** One of `DELINQUENCY_BUCKETS`. */
export type DelinquencyBucket = (typeof DELINQUENCY_BUCKETS)[number]

/** The delinquency bucket of `daysPastDue`. */
export const delinquencyBucketOf = (daysPastDue: number): DelinquencyBucket =>
  daysPastDue === 0 ? 'CURRENT' : daysPastDue <= 30 ? 'DPD_1_30' : daysPastDue <= 60 ? 'DPD_31_60' : daysPastDue <= 90 ? 'DPD_61_90' : 'DPD_90_PLUS'

/** A loan as derived for a date (`asOf`) from its terms and payments. */
export type DerivedLoan = {
  readonly asOf: string
  /** The schedule as it stands: installments after a prepayment that shortened the term are gone. */
  readonly installments: readonly ScheduledInstallment[]
  /** Owed on `asOf`: principal, interest accrued to `asOf`, fees assessed by `asOf`. */
  readonly outstanding: Buckets
  /** Everything owed on `asOf`: what pays the loan off on that date. */
  readonly payoff: number
  /** What fell due before `asOf` and is unpaid. */
  readonly pastDueAmount: number
  readonly nextDueDate: string | null
  /** What the next installment asks for: its unpaid principal and fees and its interest to its due date (projected). */
  readonly nextDueAmount: number | null
  /** Days since the oldest unpaid installment fell due (0 when none is past due). */
  readonly daysPastDue: number
  /** Each payment's allocation by the replay, by payment id. */
  readonly allocations: ReadonlyMap<PaymentId, { readonly allocation: Allocation; readonly perInstallment: InstallmentPayments }>
}

/** A payoff quote: what pays the loan off on `asOf`, by bucket. */
export type PayoffQuote = { readonly loan: Loan; readonly asOf: string; readonly outstanding: Buckets; readonly payoff: number }

/** An installment while the replay works on it (and as a checkpoint keeps it). */
export type Working = {
  number: number
  dueDate: string
  principalDue: number
  /** Interest accrued to it so far (segments closed). */
  interest: number
  feesDue: number
  principalPaid: number
  interestPaid: number
  feesPaid: number
  /** Its interest is final: its due date came, or it was paid in full before. */
  closed: boolean
  /** Its due date has been reached by the replay. */
  reached: boolean
  /** Its late fee date has been passed by the replay. */
  feeChecked: boolean
}

/** The payments by effective date; those of one date stay in the order given (the order they were taken). */
const sortedPayments = (payments: readonly SettledPayment[]): readonly SettledPayment[] =>
  [...payments].sort((a, b) => (a.effectiveDate < b.effectiveDate ? -1 : a.effectiveDate > b.effectiveDate ? 1 : 0))

const take = (available: number, owed: number): number => Math.max(0, Math.min(available, owed))

/**
 * Derives the loan's state on `asOf` from its terms and its successful payments, in the order
 * they were taken (those dated after `asOf` are left out). The rules, in the order the replay applies them on each day:
 * installments due that day close (their interest is final); late fees whose grace ended the day
 * before are assessed; the day's payments are applied in the order they were taken. Between
 * events, interest accrues on the principal outstanding, to the earliest open installment, rounded
 * half up once per stretch between events.
 */
export const deriveLoan = (loan: Loan, payments: readonly SettledPayment[], asOf: string): DerivedLoan => replay(loan, null, payments, asOf).derived

/**
 * The loan on `date`, resumed from its checkpoint (`payments` null: nothing since it) or, given
 * its successful payments, replayed from booking.
 */
export const derivedOn = (loan: Loan, payments: readonly SettledPayment[] | null, date: string): DerivedLoan =>
  payments === null ? replay(loan, loan.checkpoint, [], date).derived : replay(loan, null, payments, date).derived

/**
 * Where a replay stood at the end of a date: every event up to that date applied, interest cut at
 * the last event (`cursor`). JSON, so a repository can keep the one of a loan's latest posting and
 * the next change resumes from it instead of replaying every payment since booking.
 */
export type ServicingCheckpoint = {
  /** The date the replay was advanced to: later payments (dated on or after it) resume from here. */
  readonly date: string
  readonly principal: number
  readonly cursor: string
  readonly open: number
  readonly level: number
  readonly installments: readonly Working[]
}

/**
 * `deriveLoan`, from `from` (a checkpoint of an earlier replay of the same loan, whose payments
 * `payments` follows: each dated on or after `from.date`) or from booking (null, then `payments`
 * is every successful payment). Also answers the checkpoint of this replay on `asOf`.
 */
export const replay = (
  loan: Loan,
  from: ServicingCheckpoint | null,
  payments: readonly SettledPayment[],
  asOf: string,
): { readonly derived: DerivedLoan; readonly checkpoint: ServicingCheckpoint } => {
  const counter = dayCounter(loan.dayCount, loan.startDate)
  const rate = loan.interestRateBps
  const inst: Working[] =
    from === null
      ? amortize({ principal: loan.principal, annualRateBps: rate, termMonths: loan.termMonths, startDate: loan.startDate, dayCount: loan.dayCount }).map((i) => ({
          number: i.number,
          dueDate: i.dueDate,
          principalDue: i.principal,
          interest: 0,
          feesDue: 0,
          principalPaid: 0,
          interestPaid: 0,
          feesPaid: 0,
          closed: false,
          reached: false,
          feeChecked: false,
        }))
      : from.installments.map((i) => ({ ...i }))
  let principal = from?.principal ?? loan.principal
  let cursor = from?.cursor ?? loan.startDate
  let open = from?.open ?? 0
  let level = from?.level ?? loan.paymentAmount
  const allocations = new Map<PaymentId, { allocation: Allocation; perInstallment: InstallmentPayments }>()
  const lastIndex = (): number => inst.length - 1
  /** The installment interest accrues to: the earliest not closed (the last, once all have). */
  const firstOpen = (): number => {
    const k = inst.findIndex((i) => !i.closed)
    return k === -1 ? lastIndex() : k
  }
  const owed = (i: Working): Buckets => ({ principal: i.principalDue - i.principalPaid, interest: i.interest - i.interestPaid, fees: i.feesDue - i.feesPaid })

  /** Accrues interest from the cursor to `date` onto the open installment. */
  const cut = (date: string): void => {
    if (date <= cursor) return
    const interest = interestBetween(counter, principal, rate, cursor, date)
    inst[open]!.interest += interest
    cursor = date
  }

  const feeDate = (i: Working): string => addDays(i.dueDate, loan.lateFee.graceDays + 1)
  const chargesLateFees = loan.lateFee.flat > 0 || loan.lateFee.bps > 0

  /** Moves the replay to the start of `date`: due dates and late-fee dates on or before it. */
  const advance = (date: string): void => {
    for (;;) {
      const due = inst.find((i) => !i.reached && i.dueDate <= date)
      const fee = chargesLateFees ? inst.find((i) => i.reached && !i.feeChecked && feeDate(i) <= date) : undefined
      if (due === undefined && fee === undefined) return
      if (due !== undefined && (fee === undefined || due.dueDate <= feeDate(fee))) {
        cut(due.dueDate)
        due.reached = true
        if (inst.indexOf(due) < lastIndex()) due.closed = true
        open = firstOpen()
        continue
      }
      const late = fee!
      late.feeChecked = true
      // What it still owes that day: for the open installment (the last, after maturity), the
      // interest accrued to that day too.
      const accruing = inst.indexOf(late) === open ? interestBetween(counter, principal, rate, cursor, feeDate(late)) : 0
      const unpaid = total(owed(late)) + accruing
      if (unpaid > 0) {
        const amount = loan.lateFee.flat + Number(divideHalfUp(BigInt(unpaid) * BigInt(loan.lateFee.bps), 10_000n))
        late.feesDue += amount
      }
    }
  }

  /**
   * Re-amortizes what is left after the installment at `current` once `prepaid` of it has been
   * moved onto that installment, the next interest period starting on `from`.
   */
  const recast = (current: number, prepaid: number, from: string): void => {
    const future = inst.slice(current + 1)
    const remaining = future.reduce((sum, i) => sum + i.principalDue - i.principalPaid, 0) - prepaid
    if (future.length === 0) return
    if (remaining === 0) {
      inst.splice(current + 1)
      return
    }
    const dueDates = future.map((i) => i.dueDate)
    const terms = { principal: remaining, annualRateBps: rate, counter, from, dueDates }
    if (loan.prepayment === 'REDUCE_INSTALLMENT') level = levelPaymentFor(remaining, rate, counter, from, dueDates)
    const rows = amortizeOver(terms, level)
    const kept = loan.prepayment === 'REDUCE_TERM' ? rows.findIndex((r) => r.balanceAfter === 0) + 1 : rows.length
    rows.slice(0, kept).forEach((r, k) => {
      future[k]!.principalDue = future[k]!.principalPaid + r.principal
    })
    inst.splice(current + 1 + kept)
  }

  const apply = (payment: SettledPayment): void => {
    const date = payment.effectiveDate
    cut(date)
    let left = payment.amount
    let pastDue = ZERO
    let current = ZERO
    const paid = new Map<number, Buckets>()
    const pay = (i: Working, part: Buckets, into: 'pastDue' | 'current'): void => {
      i.principalPaid += part.principal
      i.interestPaid += part.interest
      i.feesPaid += part.fees
      paid.set(i.number, add(paid.get(i.number) ?? ZERO, part))
      left -= total(part)
      if (into === 'pastDue') pastDue = add(pastDue, part)
      else current = add(current, part)
    }
    // 1. Past due, oldest first: fees → interest → principal in each.
    for (const i of inst) {
      if (i.dueDate >= date || left === 0) continue
      const o = owed(i)
      const fees = take(left, o.fees)
      const interest = take(left - fees, o.interest)
      pay(i, { principal: take(left - fees - interest, o.principal), interest, fees }, 'pastDue')
    }
    // 2. Then what is not yet past due: fees, then interest accrued to the payment date, then the current installment's principal.
    const notPastDue = inst.filter((i) => i.dueDate >= date)
    for (const bucket of ['fees', 'interest'] as const) {
      for (const i of notPastDue) {
        const part = take(left, owed(i)[bucket])
        if (part > 0) pay(i, { ...ZERO, [bucket]: part }, 'current')
      }
    }
    const currentIndex = inst.findIndex((i) => i.dueDate >= date && owed(i).principal > 0)
    if (currentIndex >= 0) {
      const i = inst[currentIndex]!
      pay(i, { ...ZERO, principal: take(left, owed(i).principal) }, 'current')
      // 3. A prepayment: principal beyond the current installment, recorded on it; the rest of the schedule is recast.
      const ahead = inst.slice(currentIndex + 1).reduce((sum, j) => sum + j.principalDue - j.principalPaid, 0)
      const prepaid = take(left, ahead)
      if (prepaid > 0) {
        i.principalDue += prepaid
        pay(i, { ...ZERO, principal: prepaid }, 'current')
        recast(currentIndex, prepaid, date)
      }
    }
    // An installment this payment paid in full before its due date closes: its interest is
    // final, and what accrues next belongs to the next open installment.
    for (const i of inst) {
      if (paid.has(i.number) && !i.closed && total(owed(i)) === 0) i.closed = true
    }
    open = firstOpen()
    principal -= pastDue.principal + current.principal
    const perInstallment = [...paid.entries()].filter(([, b]) => total(b) > 0).sort(([a], [b]) => a - b).map(([number, b]) => ({ number, paid: b }))
    allocations.set(payment.id, { allocation: { pastDue, current }, perInstallment })
  }

  for (const payment of sortedPayments(payments)) {
    if (payment.effectiveDate > asOf) continue
    advance(payment.effectiveDate)
    apply(payment)
  }
  advance(asOf)
  const checkpoint: ServicingCheckpoint = { date: asOf, principal, cursor, open, level, installments: inst.map((i) => ({ ...i })) }

  // Interest accrued since the last event, to `asOf`, without closing the stretch (a read changes nothing).
  const pending = interestBetween(counter, principal, rate, cursor, asOf)
  const accruedOf = (k: number): number => inst[k]!.interest + (k === open ? pending : 0)
  const outstanding = inst.reduce(
    (sum, i, k) => add(sum, { principal: i.principalDue - i.principalPaid, interest: accruedOf(k) - i.interestPaid, fees: i.feesDue - i.feesPaid }),
    ZERO,
  )
  // principalFrom[k]: the principal still owed on installment k and those after it (sums from the end).
  const principalFrom: number[] = new Array<number>(inst.length)
  for (let k = inst.length - 1, after = 0; k >= 0; k--) principalFrom[k] = after += inst[k]!.principalDue - inst[k]!.principalPaid
  // Interest still to come on an installment not yet due, as if everything were paid on time from now on.
  const projectedOf = (k: number): number => {
    const i = inst[k]!
    if (i.closed || i.dueDate <= asOf || k < open) return 0
    const from = k === open ? (cursor > asOf ? cursor : asOf) : inst[k - 1]!.dueDate
    return interestBetween(counter, principalFrom[k]!, rate, from, i.dueDate)
  }
  const installments = inst.map((i, k): ScheduledInstallment => {
    const accrued = accruedOf(k)
    const interestDue = accrued + projectedOf(k)
    const row: ServicedInstallment = {
      loanId: loan.id,
      number: i.number,
      dueDate: i.dueDate,
      principalDue: i.principalDue,
      interestDue,
      feesDue: i.feesDue,
      principalPaid: i.principalPaid,
      interestPaid: i.interestPaid,
      feesPaid: i.feesPaid,
      // Final once it closed (docs/servicing.md "Schedule").
      interestAccrued: i.closed,
    }
    const unpaid = row.principalDue - row.principalPaid + (interestDue - row.interestPaid) + (row.feesDue - row.feesPaid)
    const paidSoFar = row.principalPaid + row.interestPaid + row.feesPaid
    const status: InstallmentStatus =
      unpaid === 0 && (row.interestAccrued || outstanding.principal === 0)
        ? 'PAID'
        : i.dueDate < asOf
          ? 'LATE'
          : paidSoFar > 0
            ? 'PARTIALLY_PAID'
            : i.dueDate === asOf
              ? 'DUE'
              : 'UPCOMING'
    return { ...row, status }
  })
  const unpaidOf = (i: ScheduledInstallment): number => i.principalDue - i.principalPaid + (i.interestDue - i.interestPaid) + (i.feesDue - i.feesPaid)
  const pastDue = installments.filter((i) => i.dueDate < asOf && unpaidOf(i) > 0)
  const next = installments.find((i) => i.dueDate >= asOf && unpaidOf(i) > 0)
  const oldest = pastDue[0]
  const derived: DerivedLoan = {
    asOf,
    installments,
    outstanding,
    payoff: total(outstanding),
    pastDueAmount: pastDue.reduce((sum, i) => sum + unpaidOf(i), 0),
    nextDueDate: next?.dueDate ?? null,
    nextDueAmount: next === undefined ? null : unpaidOf(next),
    daysPastDue: oldest === undefined ? 0 : calendarDays(oldest.dueDate, asOf),
    allocations,
  }
  return { derived, checkpoint }
}

/** The sum of a ledger's bucket changes. */
export const ledgerSums = (transactions: readonly Pick<LedgerTransaction, 'principal' | 'interest' | 'fees'>[]): Buckets =>
  transactions.reduce((sum, t) => add(sum, { principal: t.principal, interest: t.interest, fees: t.fees }), ZERO)

const entry = (
  loanId: LoanId,
  type: TransactionType,
  change: Buckets,
  amount: number,
  effectiveDate: string,
  id: string,
  now: Date,
  links: { readonly paymentId?: PaymentId; readonly reversesId?: string } = {},
): LedgerTransaction => ({
  id,
  loanId,
  type,
  effectiveDate,
  amount,
  principal: change.principal,
  interest: change.interest,
  fees: change.fees,
  paymentId: links.paymentId ?? null,
  reversesId: links.reversesId ?? null,
  createdAt: now,
})

/** The `PAYMENT` ledger entry of an allocation: every bucket goes down by what was paid in it. */
export const paymentEntry = (loanId: LoanId, paymentId: PaymentId, allocation: Allocation, effectiveDate: string, id: string, now: Date): LedgerTransaction => {
  const paid = add(allocation.pastDue, allocation.current)
  return entry(loanId, 'PAYMENT', negated(paid), total(paid), effectiveDate, id, now, { paymentId })
}

/** A payment as the ledger knows it: its id, its current allocation (null for a failed one) and its `PAYMENT` entry. */
export type PostedPayment = {
  readonly id: PaymentId
  readonly amount: number
  readonly effectiveDate: string
  readonly createdAt: Date
  readonly allocation: Allocation | null
  readonly perInstallment: InstallmentPayments
  readonly transactionId: string | null
}

/** What changes a loan: a payment taken, a payment reversed, or only time (the daily job). */
export type LoanEvent =
  | { readonly type: 'PAYMENT'; readonly payment: SettledPayment }
  | { readonly type: 'REVERSAL'; readonly payment: PostedPayment }
  | { readonly type: 'TIME' }

/** What `postChange` posts: the entries, the payments whose allocation the replay changed, and the derived state. */
export type LoanChange = {
  readonly transactions: readonly LedgerTransaction[]
  /** The event's payment's allocation (a `PAYMENT` event), or null. */
  readonly allocation: { readonly allocation: Allocation; readonly perInstallment: InstallmentPayments; readonly transactionId: string } | null
  /** Earlier payments re-allocated by the replay, with their new allocation. */
  readonly reallocated: readonly { readonly id: PaymentId; readonly allocation: Allocation; readonly perInstallment: InstallmentPayments }[]
  readonly derived: DerivedLoan
  /** Where this replay stood on the posting's date: the loan's next change resumes from it. */
  readonly checkpoint: ServicingCheckpoint
}

const allocated = (a: Allocation): Buckets => add(a.pastDue, a.current)

/** Whether a payment is posted as the replay applies it: same allocation, same installments. */
const sameAllocation = (next: { readonly allocation: Allocation; readonly perInstallment: InstallmentPayments }, posted: PostedPayment): boolean =>
  posted.allocation !== null &&
  sameBuckets(next.allocation.pastDue, posted.allocation.pastDue) &&
  sameBuckets(next.allocation.current, posted.allocation.current) &&
  next.perInstallment.length === posted.perInstallment.length &&
  next.perInstallment.every((p, k) => p.number === posted.perInstallment[k]!.number && sameBuckets(p.paid, posted.perInstallment[k]!.paid))

/**
 * Whether `event` on `date` can resume from `checkpoint`: a payment or the passing of time on or
 * after it (a reversal re-derives the loan from booking, and so does a loan without one).
 */
export const resumes = (checkpoint: ServicingCheckpoint | null, event: LoanEvent, date: string): checkpoint is ServicingCheckpoint =>
  checkpoint !== null && event.type !== 'REVERSAL' && date >= checkpoint.date && (event.type !== 'PAYMENT' || event.payment.effectiveDate >= checkpoint.date)

/**
 * The ledger entries that bring the ledger (whose bucket sums are `ledger`) to the state the
 * rules derive on `date` after `event`. A payment or the passing of time resumes from the loan's
 * `checkpoint` (its latest posting's); a reversal, or a loan without a checkpoint, replays from
 * booking with `payments` (its successful payments before the event, each with the allocation it
 * is posted with; required then). In ledger order: the interest and late fees charged since the
 * last posting (`INTEREST_ACCRUAL`, `LATE_FEE`; negative when a replay lowers them), the event's
 * entry (`PAYMENT` or `REVERSAL`), then a `REALLOCATION` for each earlier payment the replay
 * applies differently (its buckets sum to zero). Afterwards the ledger's bucket sums equal the
 * derived `outstanding`.
 */
export const postChange = (args: {
  readonly loan: Loan
  readonly ledger: Buckets
  readonly checkpoint: ServicingCheckpoint | null
  readonly payments: readonly PostedPayment[] | null
  readonly event: LoanEvent
  readonly date: string
  readonly ids: () => string
  readonly now: Date
}): LoanChange => {
  const { loan, event, date, now } = args
  const resumed = resumes(args.checkpoint, event, date)
  const reversedId = event.type === 'REVERSAL' ? event.payment.id : null
  if (!resumed && args.payments === null) throw new Error(`postChange: loan ${loan.id} is replayed from booking but its payments were not given`)
  const settled = resumed ? [] : (args.payments ?? []).filter((p) => p.allocation !== null && p.id !== reversedId)
  const fresh = event.type === 'PAYMENT' ? [event.payment] : []
  const { derived, checkpoint } = resumed ? replay(loan, args.checkpoint, fresh, date) : replay(loan, null, [...settled, ...fresh], date)
  let ledger = args.ledger
  const later: LedgerTransaction[] = []
  let allocation: LoanChange['allocation'] = null
  if (event.type === 'PAYMENT') {
    const mine = derived.allocations.get(event.payment.id)!
    const posted = paymentEntry(loan.id, event.payment.id, mine.allocation, date, args.ids(), now)
    later.push(posted)
    ledger = subtract(ledger, allocated(mine.allocation))
    allocation = { ...mine, transactionId: posted.id }
  }
  if (event.type === 'REVERSAL') {
    const undone = allocated(event.payment.allocation!)
    later.push(entry(loan.id, 'REVERSAL', undone, total(undone), date, args.ids(), now, { paymentId: event.payment.id, reversesId: event.payment.transactionId ?? undefined }))
    ledger = add(ledger, undone)
  }
  const reallocated: LoanChange['reallocated'][number][] = []
  for (const p of settled) {
    const next = derived.allocations.get(p.id)
    if (next === undefined || sameAllocation(next, p)) continue
    const moved = subtract(allocated(next.allocation), allocated(p.allocation!))
    if (!sameBuckets(moved, ZERO)) {
      const shifted = [moved.principal, moved.interest, moved.fees].filter((n) => n > 0).reduce((a, b) => a + b, 0)
      later.push(entry(loan.id, 'REALLOCATION', negated(moved), shifted, date, args.ids(), now, { paymentId: p.id }))
      ledger = subtract(ledger, moved)
    }
    reallocated.push({ id: p.id, ...next })
  }
  const charges = subtract(derived.outstanding, ledger)
  if (charges.principal !== 0) throw new Error(`postChange: principal does not reconcile on loan ${loan.id} (${charges.principal})`)
  const first: LedgerTransaction[] = []
  if (charges.interest !== 0) first.push(entry(loan.id, 'INTEREST_ACCRUAL', { ...ZERO, interest: charges.interest }, Math.abs(charges.interest), date, args.ids(), now))
  if (charges.fees !== 0) first.push(entry(loan.id, 'LATE_FEE', { ...ZERO, fees: charges.fees }, Math.abs(charges.fees), date, args.ids(), now))
  return { transactions: [...first, ...later], allocation, reallocated, derived, checkpoint }
}

/**
 * The `CHARGE_OFF` entry that writes off everything `owed` (each bucket goes to zero), and the
 * snapshot after it: nothing outstanding, nothing due.
 */
export const chargeOffEntries = (
  loanId: LoanId,
  owed: Buckets,
  date: string,
  ids: () => string,
  now: Date,
): { readonly transaction: LedgerTransaction; readonly balance: BalanceSnapshot } => {
  const transaction = entry(loanId, 'CHARGE_OFF', negated(owed), total(owed), date, ids(), now)
  const balance: BalanceSnapshot = {
    id: ids(),
    loanId,
    transactionId: transaction.id,
    asOf: date,
    principalOutstanding: 0,
    interestOutstanding: 0,
    feesOutstanding: 0,
    payoffAmount: 0,
    pastDueAmount: 0,
    nextDueDate: null,
    nextDueAmount: null,
    createdAt: now,
  }
  return { transaction, balance }
}

/** The balance snapshot of a derived state, after the ledger entry `transactionId`. */
export const snapshotOf = (derived: DerivedLoan, loanId: LoanId, transactionId: string, id: string, now: Date): BalanceSnapshot => ({
  id,
  loanId,
  transactionId,
  asOf: derived.asOf,
  principalOutstanding: derived.outstanding.principal,
  interestOutstanding: derived.outstanding.interest,
  feesOutstanding: derived.outstanding.fees,
  payoffAmount: derived.payoff,
  pastDueAmount: derived.pastDueAmount,
  nextDueDate: derived.nextDueDate,
  nextDueAmount: derived.nextDueAmount,
  createdAt: now,
})

/** Whether two snapshots tell the same figures (ignoring identity, time and date). */
export const sameFigures = (a: BalanceSnapshot, b: BalanceSnapshot): boolean =>
  a.principalOutstanding === b.principalOutstanding &&
  a.interestOutstanding === b.interestOutstanding &&
  a.feesOutstanding === b.feesOutstanding &&
  a.pastDueAmount === b.pastDueAmount &&
  a.nextDueDate === b.nextDueDate &&
  a.nextDueAmount === b.nextDueAmount

/**
 * The loan's status after a change, if it moves: `PAID_OFF` once nothing is owed (a payoff),
 * `ACTIVE` again if a reversal brings a debt back. Charged-off loans stay charged off.
 */
export const statusChange = (loan: Loan, derived: DerivedLoan): { readonly loanStatus?: LoanStatus } => {
  if (loan.status === 'CHARGED_OFF') return {}
  const next: LoanStatus = derived.payoff === 0 ? 'PAID_OFF' : 'ACTIVE'
  return next === loan.status ? {} : { loanStatus: next }
}
