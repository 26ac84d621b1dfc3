import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import {
  approveLoanApplication,
  balanceView,
  createLoanApplication,
  createLoanProduct,
  createPaymentIntentForPartyLoan,
  createPaymentMethodForPartyLoan,
  getLatestLoanBalanceForParty,
  getLoanForParty,
  getLoanPayoffForParty,
  installmentView,
  listLoanBalancesForParty,
  listLoanScheduleForParty,
  listPaymentsForPartyLoan,
  listTransactionsForPartyLoan,
  loanView,
  type Page,
  type Party,
  type PaymentId,
  type Caller,
  paymentView,
  payoffView,
  reverseLoanPayment,
  returnBankDebit,
  OPERATOR_CONTEXT,
  runInterestAccrual,
  setLoanAutopayForParty,
  settleSubmittedPayment,
  submitLoanApplication,
  submitPendingPayment,
  takeAutopayDebit,
  transactionView,
} from '../../src/index.js'
import {
  fakePaymentProcessor,
  fakePaymentTokenizer,
  inMemoryAuditLog,
  inMemoryLoanApplicationRepository,
  inMemoryLoanProductRepository,
  inMemoryOnboardingSessionRepository,
  inMemoryPaymentMethodRepository,
  sandboxChargeOutcome,
  sequentialIds,
  testClock,
  testId,
} from '../../src/testing/index.js'
import { acmeParty } from '../fixtures/parties.js'
import { MS_PER_DAY, type RefAllocation, type RefBuckets, type RefDayCountConvention, type RefPayment, type RefPrepayment, type RefReturnFee, type RefTerms, shiftDays } from './model.js'

/**
 * The use cases of core's public entry, over the in-memory adapters, as a partner and an operator
 * drive them: a product, an application approved into a loan, payments, reversals, the daily job,
 * and the partner-visible views of every read.
 */

const PARTY = testId('11111111-1111-4111-8111-111111111111')
export const caller: Caller = { keyId: testId('key-1'), clientId: testId('client-1'), partyId: PARTY, environment: 'live', scopes: ['partner:api'] }
const BANK = { type: 'bank_account', account_holder_name: 'Acme Corp', routing_number: '021000021', account_number: '000123456789' }
const party: Party = acmeParty({ id: PARTY, sessionId: testId('22222222-2222-4222-8222-222222222222'), clientId: caller.clientId, createdAt: new Date('2024-01-01T00:00:00.000Z') })

export const right = <A>(r: E.Either<unknown, A>): A => {
  if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
  return r.right
}
export const run = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => right(await te())

/** Where `a` and `b` differ, as `path: a ≠ b` lines. */
const differences = (a: unknown, b: unknown, path = ''): readonly string[] => {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    return keys.flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`))
  }
  return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`]
}

/** `deep.equal`, failing with the fields that differ (actual ≠ expected) and both values whole. */
export const same = (actual: unknown, expected: unknown, what: string): void => {
  try {
    expect(actual).to.deep.equal(expected)
  } catch {
    const diff = differences(actual, expected).slice(0, 12).join('\n    ')
    throw new Error(`${what}\n    ${diff}\n  actual:   ${JSON.stringify(actual)}\n  expected: ${JSON.stringify(expected)}`)
  }
}

/** The calendar date of `instant` in the IANA `zone`. */
export const localDate = (instant: Date, zone: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant)

/** How far `zone`'s wall clock is ahead of UTC at `instant`, in ms. */
const offsetAt = (instant: Date, zone: string): number => {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(instant)
  const part = (type: string): number => Number(parts.find((p) => p.type === type)!.value)
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'))
  return wall - (instant.getTime() - (instant.getTime() % 1_000))
}

/** The instant `msOfDay` into the local day `date` of `zone` (never a wall time a DST change skips: those are near noon). */
export const localInstant = (date: string, msOfDay: number, zone: string): Date => {
  const wall = Date.parse(`${date}T00:00:00.000Z`) + msOfDay
  let guess = wall
  for (let k = 0; k < 3; k += 1) guess = wall - offsetAt(new Date(guess), zone)
  const instant = new Date(guess)
  expect(localDate(instant, zone), `${instant.toISOString()} is on ${date} in ${zone}`).to.equal(date)
  return instant
}

export type Product = {
  readonly rateBps: number
  readonly termMonths: number
  readonly originationFeeBps: number
  readonly dayCount: RefDayCountConvention
  readonly prepayment: RefPrepayment
  readonly lateFee: { readonly flat: number; readonly bps: number; readonly graceDays: number }
  /** Charged when the borrower's bank returns a debit (0: none). */
  readonly returnedPaymentFee: number
  readonly timeZone: string
}
/** A loan of `amount` on `product`, approved `msOfDay` into the local day `start`. */
export type LoanSpec = { readonly product: Product; readonly amount: number; readonly start: string; readonly msOfDay: number }

export const termsOf = (spec: LoanSpec): RefTerms => ({
  principal: spec.amount,
  rateBps: spec.product.rateBps,
  termMonths: spec.product.termMonths,
  start: spec.start,
  dayCount: spec.product.dayCount,
  prepayment: spec.product.prepayment,
  lateFee: spec.product.lateFee,
})

/** Every page of a list use case. */
const all = async <A>(list: (command: object) => TE.TaskEither<unknown, Page<A>>, command: object): Promise<readonly A[]> => {
  const items: A[] = []
  let cursor: string | null = null
  do {
    const page: Page<A> = await run(list({ ...command, limit: 100, ...(cursor === null ? {} : { cursor }) }))
    items.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== null)
  return items
}

/** A partner-visible allocation: `{past_due: {fees, interest, principal}, fees, interest, principal}`. */
export const allocationJson = (a: RefAllocation) => {
  const b = (x: RefBuckets) => ({ fees: x.fees, interest: x.interest, principal: x.principal })
  return { past_due: b(a.pastDue), ...b(a.current) }
}

/**
 * A loan booked by `spec` through the product, application and approval use cases (the clock at
 * `spec.msOfDay` into its start date in the product's zone), a bank account to pay from, and the
 * use cases it is serviced by. `undefined` when the product guardrail refuses the product.
 */
export const servicedLoan = async (spec: LoanSpec) => {
  const audit = inMemoryAuditLog()
  const products = inMemoryLoanProductRepository([], audit)
  const applications = inMemoryLoanApplicationRepository(audit)
  const loans = applications.loans
  const zone = spec.product.timeZone
  const clock = testClock(localInstant(spec.start, spec.msOfDay, zone))
  const ids = sequentialIds()
  const parties = inMemoryOnboardingSessionRepository(new Map([[PARTY, party]]), audit).parties
  // The tokens of the loan's second bank account, whose debits go out in bank files (`debit`): their charges are PENDING.
  const debitTokens = new Set<string>()
  const processor = fakePaymentProcessor((request) => (debitTokens.has(request.token) ? { status: 'PENDING' } : sandboxChargeOutcome(request.token)))
  const deps = { audit, products, applications, loans, parties, paymentMethods: inMemoryPaymentMethodRepository(loans, audit), processor, tokenizer: fakePaymentTokenizer(), ids, clock }
  const p = spec.product
  const created = await createLoanProduct(deps)({
    name: 'Generated',
    currency: 'USD',
    min_amount: spec.amount,
    max_amount: spec.amount,
    min_term_months: p.termMonths,
    max_term_months: p.termMonths,
    interest_rate_bps: p.rateBps,
    origination_fee_bps: p.originationFeeBps,
    day_count: p.dayCount,
    prepayment: p.prepayment,
    late_fee_flat: p.lateFee.flat,
    late_fee_bps: p.lateFee.bps,
    late_fee_grace_days: p.lateFee.graceDays,
    returned_payment_fee: p.returnedPaymentFee,
    time_zone: zone,
  })()
  if (E.isLeft(created)) return undefined
  const draft = await run(createLoanApplication(deps)(caller, { product_id: created.right.id, amount: spec.amount, currency: 'USD', term_months: p.termMonths }))
  await run(submitLoanApplication(deps)(caller, { applicationId: draft.id }))
  const { loan } = await run(approveLoanApplication(deps)({ applicationId: draft.id }))
  const [partyId, loanId] = [PARTY, loan.id]
  const method = await run(createPaymentMethodForPartyLoan(deps)(caller, { partyId, loanId, ...BANK }))
  // The default method, so autopay debits it too (`autopay`).
  const debitMethod = await run(createPaymentMethodForPartyLoan(deps)(caller, { partyId, loanId, ...BANK, account_number: '000987654321', is_default: true }))
  debitTokens.add(debitMethod.token)
  const ofLoan = { partyId, loanId }
  await run(setLoanAutopayForParty({ ...deps, debitsAutopay: true })(caller, { ...ofLoan, enabled: true }))
  let key = 0
  return {
    clock,
    booked: loanView(loan, clock.now()),
    /** The loan's today: the clock's date in its zone. */
    today: (): string => localDate(clock.now(), zone),
    /** Moves the clock `days` local days on, to `msOfDay` into that day. */
    moveDays: (days: number, msOfDay: number): void => clock.set(localInstant(shiftDays(localDate(clock.now(), zone), days), msOfDay, zone)),
    /** Sets the clock to `msOfDay` (10:00 by default) into the local day `date`. */
    moveTo: (date: string, ms = 36_000_000): void => clock.set(localInstant(date, ms, zone)),
    pay: async (amount: number) =>
      E.map(paymentView)(await createPaymentIntentForPartyLoan(deps)(caller, { ...ofLoan, amount, currency: 'USD', payment_method_id: method.id, idempotency_key: `k${(key += 1)}` })()),
    reverse: async (paymentId: string) => E.map(paymentView)(await reverseLoanPayment(deps)({ paymentId, reason: 'returned by the bank' })()),
    /** A bank debit of `amount`, accepted (`PENDING`) and at once submitted in a file effective on `effectiveDate`; settled too when `settle`. */
    debit: async (amount: number, effectiveDate: string, settle: boolean) => {
      const pending = paymentView(await run(createPaymentIntentForPartyLoan(deps)(caller, { ...ofLoan, amount, currency: 'USD', payment_method_id: debitMethod.id, idempotency_key: `k${(key += 1)}` })))
      same([pending.status, pending.allocation], ['PENDING', null], 'a bank debit accepted')
      const submitted = await run(submitPendingPayment(deps)(pending.payment_id as PaymentId, effectiveDate))
      return paymentView(settle ? await run(settleSubmittedPayment(deps)(submitted.id)) : submitted)
    },
    /**
     * The autopay debit of the installment due on `dueDate` (the loan's autopay is on from booking), taken as the
     * cut-off before it takes it, then submitted in a file effective on `effectiveDate`: with what it
     * asked; none when the installment owes nothing more.
     */
    autopay: async (dueDate: string, effectiveDate: string) => {
      const taken = await run(takeAutopayDebit(deps)({ loanId: loan.id, partyId, clientId: caller.clientId, dueDate }))
      if (taken._tag === 'None') return undefined
      same([taken.value.status, taken.value.paymentMethodId], ['PENDING', debitMethod.id], 'an autopay debit accepted from the default method')
      const submitted = await run(submitPendingPayment(deps)(taken.value.id, effectiveDate))
      return { ...paymentView(submitted), asked: taken.value.requestedAmount ?? taken.value.amount }
    },
    /** The bank debit `paymentId` returned by its bank with `returnCode` (as an ingested return file applies it). */
    returnDebit: async (paymentId: string, returnCode: string) =>
      paymentView((await run(returnBankDebit(deps)(paymentId as PaymentId, { returnCode, inboundFileId: testId('00000000-0000-4000-8000-00000000f11e'), context: OPERATOR_CONTEXT }))).payment),
    accrue: (asOf?: string) => run(runInterestAccrual(deps)(asOf === undefined ? {} : { as_of: asOf })),
    payoff: async (asOf?: string) => payoffView(await run(getLoanPayoffForParty(deps)(caller, { ...ofLoan, ...(asOf === undefined ? {} : { as_of: asOf }) }))),
    latestBalance: async () => balanceView(await run(getLatestLoanBalanceForParty(deps)(caller, ofLoan))),
    loan: async () => loanView(await run(getLoanForParty(deps)(caller, ofLoan)), clock.now()),
    schedule: async () => (await all((c) => listLoanScheduleForParty(deps)(caller, c), ofLoan)).map(installmentView),
    payments: async () => (await all((c) => listPaymentsForPartyLoan(deps)(caller, c), ofLoan)).map(paymentView),
    balances: async () => (await all((c) => listLoanBalancesForParty(deps)(caller, c), ofLoan)).map(balanceView),
    transactions: async () => (await all((c) => listTransactionsForPartyLoan(deps)(caller, c), ofLoan)).map(transactionView),
  }
}
export type ServicedLoan = NonNullable<Awaited<ReturnType<typeof servicedLoan>>>

/** The loan `spec` books; a spec the guardrail refuses is not a loan and the run is skipped. */
export const bookedOrSkip = async (spec: LoanSpec, pre: (ok: boolean) => void): Promise<ServicedLoan> => {
  const h = await servicedLoan(spec)
  pre(h !== undefined)
  return h!
}

/** The loan `spec` books, which the guardrail must accept. */
export const booked = async (spec: LoanSpec): Promise<ServicedLoan> => bookedOrSkip(spec, (ok) => expect(ok, 'the product is accepted').to.equal(true))

/**
 * A payment the test took, in the order it was posted (`seq`), its status as listed, and whether
 * it has been reversed since, or returned by its bank (the day, the fee and the order of returns).
 */
export type Taken = {
  readonly id: string
  readonly amount: number
  readonly date: string
  readonly seq: number
  readonly status: 'SUCCEEDED' | 'SUBMITTED' | 'SETTLED'
  reversed: boolean
  returned: { readonly on: string; readonly fee: number; readonly seq: number } | null
}
export const inForce = (taken: readonly Taken[]): readonly RefPayment[] => taken.filter((p) => !p.reversed && p.returned === null)
/** The fees the returns of `taken` charged, as the model takes them. */
export const returnFeesOf = (taken: readonly Taken[]): readonly RefReturnFee[] =>
  taken.flatMap((p) => (p.returned === null || p.returned.fee === 0 ? [] : [{ id: p.id, amount: p.returned.fee, date: p.returned.on, seq: p.returned.seq }]))
/** The status `taken` is listed with. */
export const listedStatus = (p: Taken): string => (p.reversed ? 'REVERSED' : p.returned !== null ? 'RETURNED' : p.status)

/** Takes a payment of `amount` today, which must succeed, and records it. */
export const takePayment = async (h: ServicedLoan, taken: Taken[], amount: number): Promise<string> => {
  const payment = right(await h.pay(amount))
  same([payment.status, payment.amount, payment.effective_date], ['SUCCEEDED', amount, h.today()], 'a payment taken today')
  taken.push({ id: payment.payment_id, amount, date: payment.effective_date, seq: taken.length + 1, status: 'SUCCEEDED', reversed: false, returned: null })
  return payment.payment_id
}

/** Debits `amount` in a bank file effective on `effectiveDate`, which must be submitted today (and settled when `settle`), and records it. */
export const takeDebit = async (h: ServicedLoan, taken: Taken[], amount: number, effectiveDate: string, settle: boolean): Promise<void> => {
  const debit = await h.debit(amount, effectiveDate, settle)
  const status = settle ? 'SETTLED' : 'SUBMITTED'
  same([debit.status, debit.amount, debit.effective_date], [status, amount, h.today()], 'a bank debit submitted today')
  taken.push({ id: debit.payment_id, amount, date: debit.effective_date, seq: taken.length + 1, status, reversed: false, returned: null })
}

/** What the ledger's entries sum to, by bucket. */
export const ledgerBuckets = (entries: readonly { readonly principal: number; readonly interest: number; readonly fees: number }[]): RefBuckets =>
  entries.reduce((s, t) => ({ principal: s.principal + t.principal, interest: s.interest + t.interest, fees: s.fees + t.fees }), { principal: 0, interest: 0, fees: 0 })

export { MS_PER_DAY }
