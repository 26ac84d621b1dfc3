import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  annualPercentageRate,
  disclosureFigures,
  formatAprThousandths,
  monthlyPaymentTimes,
  type TimedPayment,
  type UnitPeriod,
} from '../src/lending/apr.js'

const MONTH: UnitPeriod = { kind: 'MONTH', count: 1 }

/** `count` payments of `amount` (minor units), one unit-period apart, the first `t` whole unit-periods plus `fn/fd` after the advance. */
const series = (amount: bigint, count: number, t: number, fn = 0, fd = 1): TimedPayment[] =>
  Array.from({ length: count }, (_, k) => ({ amount, unitPeriods: t + k, fraction: { numerator: fn, denominator: fd } }))

/** `count` `YYYY-MM-DD` dates a month apart from `first` (all examples below fall on the 1st or 10th). */
const monthly = (first: string, count: number): string[] => {
  const [y, m, d] = first.split('-').map(Number) as [number, number, number]
  return Array.from({ length: count }, (_, k) => new Date(Date.UTC(y, m - 1 + k, d)).toISOString().slice(0, 10))
}

const paying = (amount: bigint, dueDates: readonly string[]) => dueDates.map((dueDate) => ({ amount, dueDate }))

const aprOf = (amountFinanced: bigint, unitPeriod: UnitPeriod, payments: readonly TimedPayment[]): number =>
  E.getOrElseW((e) => expect.fail(`no APR: ${JSON.stringify(e)}`))(annualPercentageRate({ amountFinanced, unitPeriod, payments }))

/**
 * Appendix J (c), "Examples for the actuarial method". The regulation states each APR to two
 * decimals; `stated` is that figure in hundredths of a percent. `thousandths` is this code's
 * answer, which another implementation (mpmath, 60 digits, bisection) reproduced. An APR rounded
 * to three decimals agrees with a two-decimal figure when it lies within 0.005 points of it (the
 * two-decimal figure's own half-width; (c)(3)(ii) sits on that edge: 12.22486% is 12.225 to three
 * decimals and 12.22 to two).
 *
 * The printed examples are images in the official text, so their inputs were taken from public
 * transcriptions of them (two independent ones agree); `t` and `f` are the whole unit-periods and
 * the fraction of one that each example states.
 */
const EXAMPLES: readonly { name: string; amountFinanced: bigint; unitPeriod: UnitPeriod; payments: TimedPayment[]; stated: number; thousandths: number }[] = [
  // (c)(1)(i) Monthly, regular first period: $5,000 advanced 1/10/78, 24 payments of $230 from 2/10/78 (t = 1, f = 0). States 9.69%.
  { name: '(c)(1)(i) monthly, regular first period', amountFinanced: 500_000n, unitPeriod: MONTH, payments: series(23_000n, 24, 1), stated: 969, thousandths: 9_686 },
  // (c)(1)(ii) Monthly, long first period: $6,000 advanced 2/10/78, 36 payments of $200 from 4/1/78 (t = 1, f = 19/30). States 11.82%.
  { name: '(c)(1)(ii) monthly, long first period', amountFinanced: 600_000n, unitPeriod: MONTH, payments: series(20_000n, 36, 1, 19, 30), stated: 1182, thousandths: 11_817 },
  // (c)(1)(iii) Semimonthly, short first period: $5,000, 24 payments of $219.17 (t = 0, f = 6/15). States 10.34%.
  { name: '(c)(1)(iii) semimonthly, short first period', amountFinanced: 500_000n, unitPeriod: { kind: 'SEMIMONTH', count: 1 }, payments: series(21_917n, 24, 0, 6, 15), stated: 1034, thousandths: 10_338 },
  // (c)(1)(iv) Quarterly, long first period: $10,000, 40 payments of $385 (t = 1, f = 39/90). States 8.97%.
  { name: '(c)(1)(iv) quarterly, long first period', amountFinanced: 1_000_000n, unitPeriod: { kind: 'MONTH', count: 3 }, payments: series(38_500n, 40, 1, 39, 90), stated: 897, thousandths: 8_971 },
  // (c)(1)(v) Weekly, long first period: $500, 30 payments of $17.60 (t = 4, f = 4/7). States 14.96%.
  { name: '(c)(1)(v) weekly, long first period', amountFinanced: 50_000n, unitPeriod: { kind: 'WEEK', count: 1 }, payments: series(1_760n, 30, 4, 4, 7), stated: 1496, thousandths: 14_962 },
  // (c)(2)(i) Monthly, irregular first payment: $5,000, $250 at t = 1, then 23 payments of $230. States 10.08%.
  { name: '(c)(2)(i) monthly, irregular first payment', amountFinanced: 500_000n, unitPeriod: MONTH, payments: [...series(25_000n, 1, 1), ...series(23_000n, 23, 2)], stated: 1008, thousandths: 10_083 },
  // (c)(2)(ii) Every 4 weeks, long first period, irregular first payment: $400, $39.50 then 11 of $38.31 (f = 5/28). States 28.50%.
  { name: '(c)(2)(ii) every 4 weeks, irregular first payment', amountFinanced: 40_000n, unitPeriod: { kind: 'WEEK', count: 4 }, payments: [...series(3_950n, 1, 1, 5, 28), ...series(3_831n, 11, 2, 5, 28)], stated: 2850, thousandths: 28_498 },
  // (c)(3)(i) Monthly, irregular final payment: $5,000, 23 payments of $230, then $280 at t = 24. States 10.50%.
  { name: '(c)(3)(i) monthly, irregular final payment', amountFinanced: 500_000n, unitPeriod: MONTH, payments: [...series(23_000n, 23, 1), ...series(28_000n, 1, 24)], stated: 1050, thousandths: 10_500 },
  // (c)(3)(ii) Every 2 weeks, short first period, irregular final payment: $200, 19 of $9.50, then $30 (t = 0.., f = 8/14). States 12.22%.
  { name: '(c)(3)(ii) every 2 weeks, irregular final payment', amountFinanced: 20_000n, unitPeriod: { kind: 'WEEK', count: 2 }, payments: [...series(950n, 19, 0, 8, 14), ...series(3_000n, 1, 19, 8, 14)], stated: 1222, thousandths: 12_225 },
  // (c)(4)(i) Monthly, irregular first and final payments: $5,000, $250, 22 of $230, $280. States 10.90%.
  { name: '(c)(4)(i) monthly, irregular first and final payments', amountFinanced: 500_000n, unitPeriod: MONTH, payments: [...series(25_000n, 1, 1), ...series(23_000n, 22, 2), ...series(28_000n, 1, 24)], stated: 1090, thousandths: 10_896 },
  // (c)(4)(ii) Every 2 months, short first period: $8,000, $449.36, 18 of $465, $200 (t = 0.., f = 52/60). States 7.30%.
  { name: '(c)(4)(ii) every 2 months, irregular first and final payments', amountFinanced: 800_000n, unitPeriod: { kind: 'MONTH', count: 2 }, payments: [...series(44_936n, 1, 0, 52, 60), ...series(46_500n, 18, 1, 52, 60), ...series(20_000n, 1, 19, 52, 60)], stated: 730, thousandths: 7_302 },
  // (c)(5)(i) Single payment, term of 255 days: $1,000 advanced 1/3/78, $1,080 on 9/15/78; unit-period 255 days. States 11.45%.
  { name: '(c)(5)(i) single payment, 255 days', amountFinanced: 100_000n, unitPeriod: { kind: 'DAY', count: 255 }, payments: series(108_000n, 1, 1), stated: 1145, thousandths: 11_451 },
  // (c)(5)(ii) Single payment, term of 6 months: $1,000, $1,044; unit-period 6 months, 2 a year. States 8.80%.
  { name: '(c)(5)(ii) single payment, 6 months', amountFinanced: 100_000n, unitPeriod: { kind: 'MONTH', count: 6 }, payments: series(104_400n, 1, 1), stated: 880, thousandths: 8_800 },
  // (c)(5)(iii) Single payment, term of 18 months: $1,000, $1,135.19; unit-period a year (t = 1, f = 6/12). States 8.76%.
  { name: '(c)(5)(iii) single payment, 18 months', amountFinanced: 100_000n, unitPeriod: { kind: 'MONTH', count: 12 }, payments: series(113_519n, 1, 1, 6, 12), stated: 876, thousandths: 8_757 },
  // (c)(5)(iv) Single payment, term of 2 years: $1,000, $1,240; unit-period a year (t = 2). States 11.36%.
  { name: '(c)(5)(iv) single payment, 2 years', amountFinanced: 100_000n, unitPeriod: { kind: 'MONTH', count: 12 }, payments: series(124_000n, 1, 2), stated: 1136, thousandths: 11_355 },
  // (c)(6)(i) Every 4 weeks with skipped payments: $2,135, 24 payments of $100 in four runs (f = 26/28 and 12/28). States 12.00%.
  {
    name: '(c)(6)(i) every 4 weeks, skipped payments', amountFinanced: 213_500n, unitPeriod: { kind: 'WEEK', count: 4 },
    payments: [...series(10_000n, 9, 0, 26, 28), ...series(10_000n, 6, 10, 12, 28), ...series(10_000n, 6, 16, 26, 28), ...series(10_000n, 3, 23, 12, 28)],
    stated: 1200, thousandths: 11_995,
  },
  // (c)(6)(ii) Monthly, skipped payments plus single payments: $7,350 (f = 12/30, the last 29/30). States 10.22%.
  {
    name: '(c)(6)(ii) monthly, skipped and single payments', amountFinanced: 735_000n, unitPeriod: MONTH,
    payments: [...series(100_000n, 3, 6, 12, 30), ...series(200_000n, 1, 12, 12, 30), ...series(75_000n, 3, 18, 12, 30), ...series(100_000n, 1, 22, 29, 30)],
    stated: 1022, thousandths: 10_215,
  },
]

describe('annualPercentageRate (Regulation Z, Appendix J)', () => {
  describe('the worked examples of Appendix J (c)', () => {
    for (const example of EXAMPLES) {
      it(`${example.name}: ${formatAprThousandths(example.thousandths)}%, the stated ${(example.stated / 100).toFixed(2)}% to two decimals`, () => {
        const apr = aprOf(example.amountFinanced, example.unitPeriod, example.payments)
        expect(apr).to.equal(example.thousandths)
        expect(Math.abs(apr - example.stated * 10)).to.be.at.most(5)
      })
    }
  })

  it('gives 0.000 for a zero-interest loan', () => {
    expect(aprOf(120_000n, MONTH, series(10_000n, 12, 1))).to.equal(0)
  })

  it('refuses payments that total less than the amount financed, and malformed input', () => {
    expect(annualPercentageRate({ amountFinanced: 120_001n, unitPeriod: MONTH, payments: series(10_000n, 12, 1) })).to.deep.equal(E.left({ _tag: 'RateBelowZero' }))
    expect(annualPercentageRate({ amountFinanced: 0n, unitPeriod: MONTH, payments: series(10_000n, 12, 1) })).to.deep.equal(E.left({ _tag: 'InvalidAprInput', detail: 'amountFinanced must be positive' }))
    expect(annualPercentageRate({ amountFinanced: 1n, unitPeriod: { kind: 'MONTH', count: 13 }, payments: series(1n, 1, 1) })).to.deep.equal(E.left({ _tag: 'InvalidAprInput', detail: 'unitPeriod is not an Appendix J unit-period' }))
  })

  it('refuses a rate no finite APR reaches (the whole repayment due at the advance)', () => {
    expect(annualPercentageRate({ amountFinanced: 100n, unitPeriod: MONTH, payments: series(200n, 1, 0) })).to.deep.equal(E.left({ _tag: 'RateAboveLimit' }))
  })

  it('computes an amount financed above 2^53 exactly', () => {
    // (c)(1)(i) scaled by 10^15: every amount is far above 2^53 and the APR does not change.
    const scale = 10n ** 15n
    expect(aprOf(500_000n * scale, MONTH, series(23_000n * scale, 24, 1))).to.equal(9_686)
    // An amount that is not a multiple of anything convenient: the result brackets the root.
    const amountFinanced = 2n ** 60n + 12_345n
    const payments = series(amountFinanced / 30n + 7n, 36, 1, 11, 30)
    const apr = aprOf(amountFinanced, MONTH, payments)
    expect(presentValueAtLeast(amountFinanced, MONTH, payments, 2 * apr - 1)).to.equal(true)
    expect(presentValueAtLeast(amountFinanced, MONTH, payments, 2 * apr + 1)).to.equal(false)
  })

  it('returns a rate whose present value brackets the amount financed, for 300 random loans', () => {
    const random = mulberry32(20261201)
    const between = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1))
    const units: readonly (readonly [UnitPeriod, number])[] = [[MONTH, 30], [{ kind: 'SEMIMONTH', count: 1 }, 15], [{ kind: 'WEEK', count: 1 }, 7], [{ kind: 'WEEK', count: 2 }, 14], [{ kind: 'MONTH', count: 3 }, 90]]
    const problems: string[] = []
    for (let run = 0; run < 300; run += 1) {
      const [unitPeriod, daysPerUnit] = units[between(0, units.length - 1)]!
      const count = between(1, 120)
      const amountFinanced = BigInt(between(1_000, 1_000_000_000))
      const oddDays = between(0, daysPerUnit - 1)
      const first = oddDays === 0 ? 1 : between(0, 1)
      const level = (amountFinanced + BigInt(count) - 1n) / BigInt(count)
      const extra = run % 10 === 0 ? 0n : (level * BigInt(between(0, 5_000))) / 100_000n
      const payments = series(level + extra, count, first, oddDays, daysPerUnit)
      const apr = aprOf(amountFinanced, unitPeriod, payments)
      // Rate − 0.0005 points: present value at least the amount financed (equal only on an exact half);
      // rate + 0.0005 points: present value below it.
      if (!presentValueAtLeast(amountFinanced, unitPeriod, payments, 2 * apr - 1)) problems.push(`run ${run}: ${apr} too high`)
      if (presentValueAtLeast(amountFinanced, unitPeriod, payments, 2 * apr + 1)) problems.push(`run ${run}: ${apr} too low`)
    }
    expect(problems).to.deep.equal([])
  })
})

describe('monthlyPaymentTimes (Appendix J (b)(3)(iv), (b)(5)(ii))', () => {
  it('counts full months back from each due date and the odd days over 30: (c)(1)(ii) gives t = 1, f = 19/30', () => {
    expect(monthlyPaymentTimes('1978-02-10', ['1978-04-01', '1978-05-01'])).to.deep.equal(E.right([
      { unitPeriods: 1, fraction: { numerator: 19, denominator: 30 } },
      { unitPeriods: 2, fraction: { numerator: 19, denominator: 30 } },
    ]))
  })

  it('uses the last day of February for a series on the 30th', () => {
    // One month back from 2026-02-28 in a series on the 30th is 2026-01-30: 15 odd days, as for 2026-03-30.
    expect(monthlyPaymentTimes('2026-01-15', ['2026-02-28', '2026-03-30'])).to.deep.equal(E.right([
      { unitPeriods: 1, fraction: { numerator: 15, denominator: 30 } },
      { unitPeriods: 2, fraction: { numerator: 15, denominator: 30 } },
    ]))
  })

  it('measures a series on the last day of each month from last day to last day', () => {
    expect(monthlyPaymentTimes('2026-01-15', ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30'])).to.deep.equal(E.right(
      [0, 1, 2, 3].map((unitPeriods) => ({ unitPeriods, fraction: { numerator: 16, denominator: 30 } })),
    ))
  })

  it('refuses a schedule that is not monthly, or dates out of order', () => {
    expect(E.isLeft(monthlyPaymentTimes('2026-01-01', ['2026-01-08', '2026-01-15', '2026-01-22']))).to.equal(true)
    expect(E.isLeft(monthlyPaymentTimes('2026-01-01', ['2026-03-01', '2026-02-01']))).to.equal(true)
    expect(monthlyPaymentTimes('2026-02-30', ['2026-03-01'])).to.deep.equal(E.left({ _tag: 'InvalidAprInput', detail: 'advanceDate 2026-02-30 is not a YYYY-MM-DD date' }))
  })
})

describe('disclosureFigures', () => {
  it('gives the figures of (c)(1)(i) from its dates: $5,000 advanced 1978-01-10, 24 × $230 from 1978-02-10', () => {
    expect(disclosureFigures({ amountFinanced: 500_000n, advanceDate: '1978-01-10', payments: paying(23_000n, monthly('1978-02-10', 24)) })).to.deep.equal(E.right({
      amountFinanced: 500_000n, financeCharge: 52_000n, totalOfPayments: 552_000n, aprThousandths: 9_686,
    }))
  })

  it('times the odd first period of (c)(1)(ii) from its dates: advanced 1978-02-10, 36 × $200 from 1978-04-01', () => {
    expect(disclosureFigures({ amountFinanced: 600_000n, advanceDate: '1978-02-10', payments: paying(20_000n, monthly('1978-04-01', 36)) })).to.deep.equal(E.right({
      amountFinanced: 600_000n, financeCharge: 120_000n, totalOfPayments: 720_000n, aprThousandths: 11_817,
    }))
  })

  it('handles irregular first and final payments from dates: (c)(2)(i), (c)(3)(i), (c)(4)(i)', () => {
    const aprFor = (payments: readonly { amount: bigint; dueDate: string }[]) =>
      E.map((d: { aprThousandths: number }) => d.aprThousandths)(disclosureFigures({ amountFinanced: 500_000n, advanceDate: '1978-01-10', payments }))
    const dates = monthly('1978-02-10', 24)
    expect(aprFor([...paying(25_000n, dates.slice(0, 1)), ...paying(23_000n, dates.slice(1))])).to.deep.equal(E.right(10_083))
    expect(aprFor([...paying(23_000n, dates.slice(0, 23)), ...paying(28_000n, dates.slice(23))])).to.deep.equal(E.right(10_500))
    expect(aprFor([...paying(25_000n, dates.slice(0, 1)), ...paying(23_000n, dates.slice(1, 23)), ...paying(28_000n, dates.slice(23))])).to.deep.equal(E.right(10_896))
  })

  it('takes a single payment\'s term as its unit-period: (c)(5)(i) 1978-01-03 to 1978-09-15 is 255 days', () => {
    expect(disclosureFigures({ amountFinanced: 100_000n, advanceDate: '1978-01-03', payments: [{ amount: 108_000n, dueDate: '1978-09-15' }] })).to.deep.equal(E.right({
      amountFinanced: 100_000n, financeCharge: 8_000n, totalOfPayments: 108_000n, aprThousandths: 11_451,
    }))
  })

  it('times single payments of 6 months, 18 months and 2 years as (c)(5)(ii) to (iv) do (dates chosen for those terms)', () => {
    const aprFor = (amount: bigint, dueDate: string) =>
      E.map((d: { aprThousandths: number }) => d.aprThousandths)(disclosureFigures({ amountFinanced: 100_000n, advanceDate: '1978-01-03', payments: [{ amount, dueDate }] }))
    expect(aprFor(104_400n, '1978-07-03')).to.deep.equal(E.right(8_800))
    expect(aprFor(113_519n, '1979-07-03')).to.deep.equal(E.right(8_757))
    expect(aprFor(124_000n, '1980-01-03')).to.deep.equal(E.right(11_355))
  })

  it('gives 0.000 and no finance charge for a zero-interest loan', () => {
    expect(disclosureFigures({ amountFinanced: 120_000n, advanceDate: '2026-01-15', payments: paying(10_000n, monthly('2026-02-15', 12)) })).to.deep.equal(E.right({
      amountFinanced: 120_000n, financeCharge: 0n, totalOfPayments: 120_000n, aprThousandths: 0,
    }))
  })

  it('keeps sums above 2^53 exact', () => {
    const payment = 2n ** 55n + 1n
    const result = disclosureFigures({ amountFinanced: 11n * payment, advanceDate: '2026-01-15', payments: paying(payment, monthly('2026-02-15', 12)) })
    expect(E.map((d: { financeCharge: bigint; totalOfPayments: bigint }) => [d.totalOfPayments, d.financeCharge])(result)).to.deep.equal(E.right([12n * payment, payment]))
  })
})

describe('formatAprThousandths', () => {
  it('writes three decimals', () => {
    expect([12_000, 9_686, 5, 0, 10_500].map(formatAprThousandths)).to.deep.equal(['12.000', '9.686', '0.005', '0.000', '10.500'])
  })
})

/** A seeded 32-bit generator (mulberry32): the same loans on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / 4_294_967_296
  }
}

/**
 * Whether the payments' present value is at least the amount financed at the APR of `halfThousandths`
 * halves of a thousandth of a percent, computed here by a route of its own: every payment shares
 * one fraction f = fn/fd, and with the unit-period rate i = p/q the condition
 * `A ≤ Σ P / ((1 + f·i)(1 + i)^t)` becomes, over the common denominator `(1 + f·i)(1 + i)^T`,
 * `A·(fd·q + fn·p)·(q + p)^T ≤ fd·q·Σ P·q^t·(q + p)^(T − t)`, all integers.
 */
function presentValueAtLeast(amountFinanced: bigint, unitPeriod: UnitPeriod, payments: readonly TimedPayment[], halfThousandths: number): boolean {
  const perYear = { MONTH: 12n, SEMIMONTH: 24n, WEEK: 52n, DAY: 365n }[unitPeriod.kind]
  // i = APR / per year = (h / 2) / 100000 / (perYear / count).
  const p = BigInt(halfThousandths) * BigInt(unitPeriod.count)
  const q = 200_000n * perYear
  const [fn, fd] = [BigInt(payments[0]!.fraction.numerator), BigInt(payments[0]!.fraction.denominator)]
  expect(payments.every((x) => BigInt(x.fraction.numerator) * fd === fn * BigInt(x.fraction.denominator))).to.equal(true)
  const last = Math.max(...payments.map((x) => x.unitPeriods))
  const sum = payments.reduce((acc, x) => acc + x.amount * q ** BigInt(x.unitPeriods) * (q + p) ** BigInt(last - x.unitPeriods), 0n)
  return amountFinanced * (fd * q + fn * p) * (q + p) ** BigInt(last) <= fd * q * sum
}
