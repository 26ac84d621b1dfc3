import { expect } from 'chai'
import fc from 'fast-check'
import type { LoanApplication } from '../src/domain/loan-application.js'
import { bookLoan, type LedgerTransaction } from '../src/domain/loan.js'
import {
  accrueInterest,
  allocatePayment,
  dueFigures,
  installmentStatus,
  ledgerSums,
  payoffOf,
  paymentEntry,
  reversePayment,
  scheduleOwed,
  servicingStateOf,
  type InstallmentPayments,
  type LoanState,
} from '../src/domain/loan-servicing.js'
import { testId } from '../src/testing/test-ids.js'

/** Servicing invariants (docs/servicing.md): ledger sums = outstanding = schedule still owed. */

const application = (amount: number, rate: number, fee: number, term: number): LoanApplication => ({
  id: testId('app'),
  partyId: testId('party'),
  clientId: testId('client'),
  productId: testId('product'),
  amount,
  currency: 'USD',
  termMonths: term,
  purpose: null,
  interestRateBps: rate,
  originationFeeBps: fee,
  status: 'SUBMITTED',
  submittedAt: null,
  decision: null,
  loanId: null,
  version: 1,
  createdAt: new Date('2026-01-15T10:00:00.000Z'),
  updatedAt: new Date('2026-01-15T10:00:00.000Z'),
})

const counter = () => {
  let n = 0
  return () => `id-${(n += 1)}`
}

const plusDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

type Op =
  | { readonly kind: 'wait'; readonly days: number }
  | { readonly kind: 'accrue' }
  | { readonly kind: 'pay'; readonly share: number }
  | { readonly kind: 'reverse'; readonly pick: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 70 }) }),
  fc.record({ kind: fc.constant('accrue' as const) }),
  fc.record({ kind: fc.constant('pay' as const), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }),
)

const loan = fc.record({
  amount: fc.integer({ min: 1, max: 50_000_000 }),
  rate: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000 })),
  fee: fc.integer({ min: 0, max: 1_000 }),
  term: fc.integer({ min: 1, max: 24 }),
})

const expectConsistent = (state: LoanState, ledger: readonly LedgerTransaction[]) => {
  expect(ledgerSums(ledger)).to.deep.equal(state.outstanding)
  expect(scheduleOwed(state.installments)).to.deep.equal(state.outstanding)
  for (const i of state.installments) {
    expect(i.principalPaid).to.be.within(0, i.principalDue)
    expect(i.interestPaid).to.be.within(0, Math.max(i.interestDue, 0))
  }
}

describe('loan servicing', () => {
  it('keeps ledger sums, outstanding and the schedule equal through any payments, accruals and reversals', () => {
    fc.assert(
      fc.property(loan, fc.array(op, { maxLength: 40 }), ({ amount, rate, fee, term }, ops) => {
        const ids = counter()
        const now = new Date('2026-01-15T10:00:00.000Z')
        const booked = bookLoan(application(amount, rate, fee, term), { next: ids }, now)
        let state = servicingStateOf(booked)
        let ledger: LedgerTransaction[] = [...booked.transactions]
        let today = booked.loan.startDate
        const payments: { entry: LedgerTransaction; perInstallment: InstallmentPayments; reversed: boolean }[] = []
        expectConsistent(state, ledger)
        for (const o of ops) {
          if (o.kind === 'wait') today = plusDays(today, o.days)
          if (o.kind === 'accrue' || o.kind === 'pay') {
            const accrued = accrueInterest(state, today, ids, now)
            state = accrued.state
            ledger = [...ledger, ...accrued.transactions]
          }
          if (o.kind === 'pay') {
            const payoff = payoffOf(state)
            const want = Math.min(payoff, Math.max(1, Math.floor(payoff * o.share)))
            if (payoff > 0) {
              const { state: after, allocation, perInstallment } = allocatePayment(state, want, today)
              const entry = paymentEntry(state.loan.id, testId('payment'), allocation, today, ids(), now)
              // The allocation conserves the amount.
              expect(entry.amount).to.equal(want)
              expect(perInstallment.reduce((s, p) => s + p.paid.principal + p.paid.interest + p.paid.fees, 0)).to.equal(want)
              state = after
              ledger = [...ledger, entry]
              payments.push({ entry, perInstallment, reversed: false })
            }
          }
          if (o.kind === 'reverse') {
            const open = payments.filter((p) => !p.reversed)
            const chosen = open[o.pick % Math.max(open.length, 1)]
            if (chosen !== undefined) {
              const reversed = reversePayment(state, chosen.entry, chosen.perInstallment, today, ids(), now)
              chosen.reversed = true
              state = reversed.state
              ledger = [...ledger, reversed.transaction]
            }
          }
          expectConsistent(state, ledger)
        }
      }),
      { seed: 20261122, numRuns: 500 },
    )
  })

  it('pays past due first, then fees, interest and principal, oldest installment first', () => {
    const ids = counter()
    const booked = bookLoan(application(1_200_000, 1_200, 0, 12), { next: ids }, new Date('2026-01-15T10:00:00.000Z'))
    // Two installments come due (2026-02-15 and 2026-03-15); pay on 2026-03-20: both are past due.
    const accrued = accrueInterest(servicingStateOf(booked), '2026-03-20', ids, new Date())
    const [first, second] = accrued.state.installments
    expect(accrued.transactions.map((t) => [t.type, t.effectiveDate, t.interest])).to.deep.equal([
      ['INTEREST_ACCRUAL', '2026-02-15', 12_000],
      ['INTEREST_ACCRUAL', '2026-03-15', 12_000],
    ])
    const owedFirst = first!.principalDue + first!.interestDue
    const { allocation, perInstallment } = allocatePayment(accrued.state, owedFirst + 12_000 + 5, '2026-03-20')
    expect(allocation).to.deep.equal({
      pastDue: { fees: 0, interest: 24_000, principal: first!.principalDue + 5 },
      current: { fees: 0, interest: 0, principal: 0 },
    })
    expect(perInstallment).to.deep.equal([
      { number: 1, paid: { principal: first!.principalDue, interest: 12_000, fees: 0 } },
      { number: 2, paid: { principal: 5, interest: 12_000, fees: 0 } },
    ])
    expect(second!.dueDate).to.equal('2026-03-15')
  })

  it('accrues interest on the principal outstanding, so paying ahead lowers later interest', () => {
    const ids = counter()
    const booked = bookLoan(application(1_200_000, 1_200, 0, 12), { next: ids }, new Date('2026-01-15T10:00:00.000Z'))
    const state = servicingStateOf(booked)
    const paidAhead = allocatePayment(state, 600_000, '2026-01-20')
    expect(paidAhead.allocation.current).to.deep.equal({ principal: 600_000, interest: 0, fees: 0 })
    const accrued = accrueInterest(paidAhead.state, '2026-02-15', ids, new Date())
    expect(accrued.transactions.map((t) => t.interest)).to.deep.equal([6_000])
  })

  it('gives each installment its status as of a date', () => {
    const ids = counter()
    const booked = bookLoan(application(1_200_000, 1_200, 0, 3), { next: ids }, new Date('2026-01-15T10:00:00.000Z'))
    const accrued = accrueInterest(servicingStateOf(booked), '2026-02-15', ids, new Date()).state
    const statuses = (s: LoanState, asOf: string) => s.installments.map((i) => installmentStatus(i, asOf, s.outstanding.principal))
    expect(statuses(accrued, '2026-02-15')).to.deep.equal(['DUE', 'UPCOMING', 'UPCOMING'])
    expect(statuses(accrued, '2026-02-16')).to.deep.equal(['LATE', 'UPCOMING', 'UPCOMING'])
    const part = allocatePayment(accrued, 100, '2026-02-15').state
    expect(statuses(part, '2026-02-15')).to.deep.equal(['PARTIALLY_PAID', 'UPCOMING', 'UPCOMING'])
    const full = allocatePayment(accrued, payoffOf(accrued), '2026-02-15').state
    expect(statuses(full, '2026-02-15')).to.deep.equal(['PAID', 'PAID', 'PAID'])
    expect(dueFigures(accrued.installments, '2026-02-16').pastDueAmount).to.equal(
      accrued.installments[0]!.principalDue + accrued.installments[0]!.interestDue,
    )
  })
})
