import { expect } from 'chai'
import fc from 'fast-check'
import { amortize } from '../src/lending/amortization.js'
import type { LoanApplication } from '../src/domain/loans/loan-application.js'
import { bookLoan, type BookedLoan, type LedgerTransaction } from '../src/domain/loans/loan.js'
import { schedulePreview } from '../src/views/loan-applications.js'
import { basisPointsOf } from '../src/domain/foundations/money.js'
import { DEFAULT_SERVICING_TERMS } from '../src/domain/loans/servicing-terms.js'
import { testId } from '../src/testing/test-ids.js'

/**
 * Booking a loan (docs/applications.md "Decisioning"): `bookLoan` writes the loan, its schedule,
 * the ledger's opening entries and the first balance snapshot; `schedulePreview` answers the
 * same schedule before booking. The expected values here are computed independently (BigInt
 * fee, calendar arithmetic by hand), not with the functions under test.
 */

const application = (over: Partial<LoanApplication> = {}): LoanApplication => ({
  id: testId('application-1'),
  partyId: testId('party-1'),
  clientId: testId('client-1'),
  productId: testId('product-1'),
  amount: 1_200_000,
  currency: 'USD',
  termMonths: 12,
  purpose: null,
  interestRateBps: 1199,
  originationFeeBps: 200,
  status: 'SUBMITTED',
  submittedAt: new Date('2026-01-10T09:00:00.000Z'),
  decision: null,
  loanId: null,
  version: 2,
  createdAt: new Date('2026-01-09T09:00:00.000Z'),
  updatedAt: new Date('2026-01-10T09:00:00.000Z'),
  ...over,
})

const counter = () => {
  let n = 0
  return () => `id-${(n += 1)}`
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0)

/** round-half-up(amount × bps ÷ 10000), by quotient and remainder in BigInt. */
const referenceFee = (amount: number, bps: number): number => {
  const product = BigInt(amount) * BigInt(bps)
  const quotient = product / 10_000n
  const remainder = product % 10_000n
  return Number(remainder * 2n >= 10_000n ? quotient + 1n : quotient)
}

const daysIn = (year: number, month: number): number =>
  [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** `YYYY-MM-DD` plus `months` on the same day, or that month's last day (month arithmetic by hand). */
const monthsAfter = (date: string, months: number): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  const index = y * 12 + (m - 1) + months
  const year = Math.floor(index / 12)
  const month = (index % 12) + 1
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(d, daysIn(year, month)))}`
}

/** Start dates over a century, with the 29th–31st (and so month-end clamping) well represented. */
const startDate = fc
  .record({
    year: fc.integer({ min: 2000, max: 2099 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.oneof(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 29, max: 31 })),
  })
  .map(({ year, month, day }) => `${year}-${pad(month)}-${pad(Math.min(day, daysIn(year, month)))}`)

/** An instant on the start date (UTC), from just after midnight to just before the next. */
const instantOn = (date: string, msIntoDay: number): Date => new Date(Date.parse(`${date}T00:00:00.000Z`) + msIntoDay)

const randomLoan = fc.record({
  amount: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 100_000_000_000 })),
  rate: fc.oneof(fc.constant(0), fc.constant(10_000), fc.integer({ min: 0, max: 10_000 })),
  fee: fc.oneof(fc.constant(0), fc.constant(10_000), fc.integer({ min: 0, max: 10_000 })),
  term: fc.oneof(fc.constant(1), fc.constant(480), fc.integer({ min: 1, max: 480 })),
  start: startDate,
  msIntoDay: fc.oneof(fc.constant(0), fc.constant(86_399_999), fc.integer({ min: 0, max: 86_399_999 })),
})

const PROPERTY_RUNS = { numRuns: 1000, seed: 20260115 }
/** Booking computes the schedule, its replay and its APR: a few hundred loans keep the run short. */
const BOOKING_RUNS = { numRuns: 300, seed: 20260115 }

describe('basisPointsOf', () => {
  it('takes 200 bps of 1,234,567 as 24,691 (24,691.34 rounded)', () => {
    expect(basisPointsOf(1_234_567, 200)).to.equal(24_691)
  })

  it('rounds exact halves up and anything below a half down', () => {
    // [amount, bps, exact amount × bps ÷ 10000, expected]
    const cases: readonly (readonly [number, number, string, number])[] = [
      [25, 200, '0.5', 1],
      [75, 200, '1.5', 2],
      [1, 5_000, '0.5', 1],
      [3, 5_000, '1.5', 2],
      [1, 4_999, '0.4999', 0],
      [24, 200, '0.48', 0],
      [12_500, 1, '1.25', 1],
      [15_000, 1, '1.5', 2],
      [17_499, 2, '3.4998', 3],
      [1_000_000, 0, '0', 0],
      [100_000_000_000, 10_000, '100000000000', 100_000_000_000],
    ]
    expect(cases.map(([amount, bps]) => basisPointsOf(amount, bps))).to.deep.equal(cases.map(([, , , fee]) => fee))
  })

  it('is exact at the largest safe amount, where floating point would round wrongly', () => {
    // 9,007,199,254,740,991 × 1 ÷ 10000 = 900,719,925,474.0991; × 5000 ÷ 10000 = 4,503,599,627,370,495.5
    expect(basisPointsOf(Number.MAX_SAFE_INTEGER, 1)).to.equal(900_719_925_474)
    expect(basisPointsOf(Number.MAX_SAFE_INTEGER, 5_000)).to.equal(4_503_599_627_370_496)
  })

  it('equals round-half-up(amount × bps ÷ 10000) computed by quotient and remainder', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000_000 }), fc.integer({ min: 0, max: 10_000 }), (amount, bps) => {
        expect(basisPointsOf(amount, bps)).to.equal(referenceFee(amount, bps))
      }),
      PROPERTY_RUNS,
    )
  })
})

describe('bookLoan', () => {
  describe('with a worked example: 12,000.00 at 11.99% over 12 months, 2% fee, approved on 31 January', () => {
    // Payment and rows computed independently with Python's decimal module: annuity payment
    // P·r/(1 − (1 + r)^−n) with r = 0.1199/12 is 106,612.93 → 106,613; interest per row is
    // balance × 0.1199 / 12 rounded half up; the last row takes the remaining principal.
    const now = new Date('2026-01-31T23:59:59.999Z')
    const booked = bookLoan(application(), { next: counter() }, now)

    it('books the loan on the UTC approval date, fee withheld from the proceeds', () => {
      expect(booked.loan).to.deep.equal({
        id: 'id-1',
        partyId: 'party-1',
        applicationId: 'application-1',
        productId: 'product-1',
        status: 'ACTIVE',
        currency: 'USD',
        principal: 1_200_000,
        interestRateBps: 1199,
        termMonths: 12,
        paymentAmount: 106_613,
        originationFee: 24_000,
        disbursedAmount: 1_176_000,
        startDate: '2026-01-31',
        firstDueDate: '2026-02-28',
        maturityDate: '2027-01-31',
        ...DEFAULT_SERVICING_TERMS,
        oldestUnpaidDueDate: '2026-02-28',
        chargedOffOn: null,
        // Where the servicing replay stands on the start date (its use is loan-servicing.test.ts's).
        checkpoint: booked.loan.checkpoint,
        // Twelve payments of 106,613 against 1,176,000 received; the APR (Appendix J, every unit
        // period a whole month) computed independently by bisection over exact fractions in Python:
        // 15.84455…%, 15.845 to three decimals.
        disclosure: { amountFinanced: 1_176_000, financeCharge: 103_356, totalOfPayments: 1_279_356, aprThousandths: 15_845 },
        createdAt: now,
      })
    })

    it('writes every installment of the schedule, nothing paid and no interest accrued yet', () => {
      const rows: readonly (readonly [string, number, number])[] = [
        ['2026-02-28', 94_623, 11_990],
        ['2026-03-31', 95_568, 11_045],
        ['2026-04-30', 96_523, 10_090],
        ['2026-05-31', 97_488, 9_125],
        ['2026-06-30', 98_462, 8_151],
        ['2026-07-31', 99_446, 7_167],
        ['2026-08-31', 100_439, 6_174],
        ['2026-09-30', 101_443, 5_170],
        ['2026-10-31', 102_456, 4_157],
        ['2026-11-30', 103_480, 3_133],
        ['2026-12-31', 104_514, 2_099],
        ['2027-01-31', 105_558, 1_055],
      ]
      expect(booked.installments).to.deep.equal(
        rows.map(([dueDate, principalDue, interestDue], i) => ({
          loanId: 'id-1',
          number: i + 1,
          dueDate,
          principalDue,
          interestDue,
          feesDue: 0,
          principalPaid: 0,
          interestPaid: 0,
          feesPaid: 0,
          interestAccrued: false,
        })),
      )
    })

    it('opens the ledger with DISBURSEMENT, ORIGINATION_FEE and FEE_WITHHELD on the start date', () => {
      const entry = (id: string, type: LedgerTransaction['type'], amount: number, principal: number, fees: number): LedgerTransaction => ({
        id,
        loanId: testId('id-1'),
        type,
        effectiveDate: '2026-01-31',
        amount,
        principal,
        interest: 0,
        fees,
        paymentId: null,
        reversesId: null,
        createdAt: now,
      })
      expect(booked.transactions).to.deep.equal([
        entry('id-2', 'DISBURSEMENT', 1_200_000, 1_200_000, 0),
        entry('id-3', 'ORIGINATION_FEE', 24_000, 0, 24_000),
        entry('id-4', 'FEE_WITHHELD', 24_000, 0, -24_000),
      ])
    })

    it('takes the first balance snapshot: the principal owed, nothing else, the first installment next', () => {
      expect(booked.balance).to.deep.equal({
        id: 'id-5',
        loanId: 'id-1',
        transactionId: 'id-4',
        asOf: '2026-01-31',
        principalOutstanding: 1_200_000,
        interestOutstanding: 0,
        feesOutstanding: 0,
        payoffAmount: 1_200_000,
        pastDueAmount: 0,
        nextDueDate: '2026-02-28',
        nextDueAmount: 106_613,
        createdAt: now,
      })
    })

    it('generates the opening statement', () => {
      expect(booked.documents).to.deep.equal([
        {
          id: 'id-6',
          loanId: 'id-1',
          type: 'statement',
          periodStart: '2026-01-31',
          periodEnd: '2026-01-31',
          storageRef: 'lendgate://loans/id-1/statements/2026-01-31.pdf',
          fileName: 'statement-2026-01-31.pdf',
          contentType: 'application/pdf',
          createdAt: now,
        },
      ])
    })
  })

  it('writes only the DISBURSEMENT when there is no fee', () => {
    const now = new Date('2026-03-15T00:00:00.000Z')
    const booked = bookLoan(application({ amount: 300_000, interestRateBps: 0, originationFeeBps: 0, termMonths: 3 }), { next: counter() }, now)
    expect([booked.loan.originationFee, booked.loan.disbursedAmount, booked.loan.paymentAmount]).to.deep.equal([0, 300_000, 100_000])
    expect(booked.transactions.map((t) => [t.id, t.type, t.amount, t.principal, t.interest, t.fees])).to.deep.equal([
      ['id-2', 'DISBURSEMENT', 300_000, 300_000, 0, 0],
    ])
    expect(booked.balance).to.deep.include({ transactionId: 'id-2', principalOutstanding: 300_000, interestOutstanding: 0, feesOutstanding: 0, payoffAmount: 300_000 })
  })

  it('writes no fee entries when the fee rounds to zero (1 minor unit at 49.99%)', () => {
    const booked = bookLoan(application({ amount: 1, interestRateBps: 0, originationFeeBps: 4_999, termMonths: 1 }), { next: counter() }, new Date('2026-03-15T12:00:00.000Z'))
    expect([booked.loan.originationFee, booked.loan.disbursedAmount]).to.deep.equal([0, 1])
    expect(booked.transactions.map((t) => t.type)).to.deep.equal(['DISBURSEMENT'])
  })

  it('withholds a fee that rounds up from a half (1 minor unit at 50%)', () => {
    const booked = bookLoan(application({ amount: 1, interestRateBps: 0, originationFeeBps: 5_000, termMonths: 1 }), { next: counter() }, new Date('2026-03-15T12:00:00.000Z'))
    expect([booked.loan.originationFee, booked.loan.disbursedAmount]).to.deep.equal([1, 0])
    expect(booked.transactions.map((t) => [t.type, t.principal, t.fees])).to.deep.equal([
      ['DISBURSEMENT', 1, 0],
      ['ORIGINATION_FEE', 0, 1],
      ['FEE_WITHHELD', 0, -1],
    ])
  })

  it('keeps its invariants for three hundred random applications', () => {
    fc.assert(
      fc.property(randomLoan, ({ amount, rate, fee, term, start, msIntoDay }) => {
        const a = application({ amount, interestRateBps: rate, originationFeeBps: fee, termMonths: term })
        const now = instantOn(start, msIntoDay)
        const booked: BookedLoan = bookLoan(a, { next: counter() }, now)
        const { loan, installments, transactions, balance } = booked
        const expectedFee = referenceFee(amount, fee)

        // The loan: booked on the UTC date of approval at the application's frozen terms.
        expect(loan).to.deep.equal({
          id: loan.id,
          partyId: a.partyId,
          applicationId: a.id,
          productId: a.productId,
          status: 'ACTIVE',
          currency: 'USD',
          principal: amount,
          interestRateBps: rate,
          termMonths: term,
          paymentAmount: installments[0]!.principalDue + installments[0]!.interestDue,
          originationFee: expectedFee,
          disbursedAmount: amount - expectedFee,
          startDate: start,
          firstDueDate: monthsAfter(start, 1),
          maturityDate: installments[installments.length - 1]!.dueDate,
          ...DEFAULT_SERVICING_TERMS,
          oldestUnpaidDueDate: installments[0]!.dueDate,
          chargedOffOn: null,
          checkpoint: loan.checkpoint,
          disclosure: loan.disclosure,
          createdAt: now,
        })
        // The disclosure: what the borrower receives, repays and pays for the credit.
        const totalOfPayments = sum(installments.map((i) => i.principalDue + i.interestDue))
        // (Nothing financed, a fee of the whole principal, has no APR: Appendix J finds no rate.)
        if (amount === expectedFee) expect(loan.disclosure).to.equal(null)
        else expect(loan.disclosure).to.deep.include({ amountFinanced: amount - expectedFee, totalOfPayments, financeCharge: totalOfPayments - (amount - expectedFee) })
        expect(loan.maturityDate).to.equal(monthsAfter(start, term))

        // The schedule: `term` installments on consecutive month dates whose principal sums to the principal.
        expect(installments.map((i) => [i.loanId, i.number, i.dueDate])).to.deep.equal(
          Array.from({ length: term }, (_, k) => [loan.id, k + 1, monthsAfter(start, k + 1)]),
        )
        expect(sum(installments.map((i) => i.principalDue))).to.equal(amount)
        expect(installments.every((i) => i.feesDue === 0 && i.principalPaid === 0 && i.interestPaid === 0 && i.feesPaid === 0 && !i.interestAccrued)).to.equal(true)

        // The ledger: DISBURSEMENT, then the fee and its withholding only when there is a fee.
        expect(transactions.map((t) => [t.loanId, t.type, t.effectiveDate, t.amount, t.principal, t.interest, t.fees, t.paymentId, t.reversesId])).to.deep.equal([
          [loan.id, 'DISBURSEMENT', start, amount, amount, 0, 0, null, null],
          ...(expectedFee > 0
            ? [
                [loan.id, 'ORIGINATION_FEE', start, expectedFee, 0, 0, expectedFee, null, null],
                [loan.id, 'FEE_WITHHELD', start, expectedFee, 0, 0, -expectedFee, null, null],
              ]
            : []),
        ])

        // The snapshot equals the ledger's bucket sums: the borrower owes exactly the principal.
        const bucket = (b: 'principal' | 'interest' | 'fees') => sum(transactions.map((t) => t[b]))
        expect([bucket('principal'), bucket('interest'), bucket('fees')]).to.deep.equal([amount, 0, 0])
        const firstAsking = installments.find((i) => i.principalDue + i.interestDue > 0)!
        expect(balance).to.deep.equal({
          id: balance.id,
          loanId: loan.id,
          transactionId: transactions[transactions.length - 1]!.id,
          asOf: start,
          principalOutstanding: bucket('principal'),
          interestOutstanding: bucket('interest'),
          feesOutstanding: bucket('fees'),
          payoffAmount: amount,
          pastDueAmount: 0,
          // The first installment that asks for anything (at a zero rate, one of less than a minor unit a month asks for nothing).
          nextDueDate: firstAsking.dueDate,
          nextDueAmount: firstAsking.principalDue + firstAsking.interestDue,
          createdAt: now,
        })

        // Every id is fresh.
        const ids = [loan.id, ...transactions.map((t) => t.id), balance.id, ...booked.documents.map((d) => d.id)]
        expect(new Set(ids).size).to.equal(ids.length)

        // The preview on the same date shows exactly the booked schedule and money.
        const preview = schedulePreview(a, start)
        let remaining = amount
        expect(preview.installments).to.deep.equal(
          installments.map((i) => ({
            number: i.number,
            due_date: i.dueDate,
            payment: i.principalDue + i.interestDue,
            principal: i.principalDue,
            interest: i.interestDue,
            balance_after: (remaining -= i.principalDue),
          })),
        )
        expect([preview.payment_amount, preview.origination_fee, preview.disbursed_amount, preview.principal, preview.start_date]).to.deep.equal([
          loan.paymentAmount,
          loan.originationFee,
          loan.disbursedAmount,
          loan.principal,
          loan.startDate,
        ])
      }),
      BOOKING_RUNS,
    )
  })
})

describe('schedulePreview', () => {
  it('answers the worked example in full', () => {
    const preview = schedulePreview(application({ id: testId('application-7') }), '2026-11-22')
    const schedule = amortize({ principal: 1_200_000, annualRateBps: 1199, termMonths: 12, startDate: '2026-11-22' })
    expect(preview).to.deep.equal({
      application_id: 'application-7',
      currency: 'USD',
      principal: 1_200_000,
      interest_rate_bps: 1199,
      term_months: 12,
      start_date: '2026-11-22',
      payment_amount: 106_613,
      total_interest: 79_356,
      total_of_payments: 1_279_356,
      origination_fee: 24_000,
      disbursed_amount: 1_176_000,
      disclosure: { amount_financed: 1_176_000, finance_charge: 103_356, total_of_payments: 1_279_356, annual_percentage_rate: '15.845' },
      installments: schedule.map((i) => ({
        number: i.number,
        due_date: i.dueDate,
        payment: i.payment,
        principal: i.principal,
        interest: i.interest,
        balance_after: i.balanceAfter,
      })),
    })
    expect(preview.installments[0]).to.deep.equal({ number: 1, due_date: '2026-12-22', payment: 106_613, principal: 94_623, interest: 11_990, balance_after: 1_105_377 })
    expect(preview.installments[11]).to.deep.equal({ number: 12, due_date: '2027-11-22', payment: 106_613, principal: 105_558, interest: 1_055, balance_after: 0 })
  })

  it('totals payments as principal plus interest for random applications', () => {
    fc.assert(
      fc.property(randomLoan, ({ amount, rate, fee, term, start }) => {
        const preview = schedulePreview(application({ amount, interestRateBps: rate, originationFeeBps: fee, termMonths: term }), start)
        const totalInterest = sum(preview.installments.map((i) => i.interest))
        expect([preview.total_interest, preview.total_of_payments, sum(preview.installments.map((i) => i.payment))]).to.deep.equal([
          totalInterest,
          amount + totalInterest,
          amount + totalInterest,
        ])
        expect([preview.origination_fee, preview.disbursed_amount]).to.deep.equal([referenceFee(amount, fee), amount - referenceFee(amount, fee)])
        expect(preview.installments[0]!.due_date).to.equal(monthsAfter(start, 1))
      }),
      PROPERTY_RUNS,
    )
  })
})
