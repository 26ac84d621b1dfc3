import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { amortize } from '../../lending/index.js'
import * as t from 'io-ts'
import { Bool, boundedString, integerIn, merged, mergePatch, oneOf, strictObject } from '../foundations/codecs.js'
import { invalidRequest, type InvalidRequest } from '../foundations/errors.js'
import { BasisPoints, CurrencyCode, NonNegativeMinorUnits, PositiveMinorUnits } from '../foundations/money.js'
import type { ProductId } from '../foundations/ids.js'
import { DAY_COUNTS, DEFAULT_SERVICING_TERMS, PREPAYMENT_MODES, TimeZone, type ServicingTerms } from './servicing-terms.js'

/** How often a product's loans are repaid; monthly only, today. */
export const REPAYMENT_FREQUENCIES = ['MONTHLY'] as const
/** One of `REPAYMENT_FREQUENCIES`. */
export type RepaymentFrequency = (typeof REPAYMENT_FREQUENCIES)[number]

/** The longest term a product may offer. */
export const MAX_TERM_MONTHS = 480

/** A catalogue product (docs/applications.md "Loan products"): the amounts, terms and price an application must fit. */
export type LoanProduct = {
  readonly id: ProductId
  readonly name: string
  readonly description: string | null
  readonly currency: string
  readonly minAmount: number
  readonly maxAmount: number
  readonly minTermMonths: number
  readonly maxTermMonths: number
  readonly interestRateBps: number
  /** Taken from the principal at booking. */
  readonly originationFeeBps: number
  readonly repaymentFrequency: RepaymentFrequency
  /** How its loans are serviced (frozen on each loan at booking). */
  readonly servicing: ServicingTerms
  readonly active: boolean
  readonly createdAt: Date
  readonly updatedAt: Date
}

const TermMonths = integerIn('TermMonths', 1, MAX_TERM_MONTHS)

const required = {
  name: boundedString('Name', 1, 100),
  currency: CurrencyCode,
  min_amount: PositiveMinorUnits,
  max_amount: PositiveMinorUnits,
  min_term_months: TermMonths,
  max_term_months: TermMonths,
  interest_rate_bps: BasisPoints,
}
const settableOptional = {
  origination_fee_bps: BasisPoints,
  repayment_frequency: oneOf('RepaymentFrequency', REPAYMENT_FREQUENCIES),
  day_count: oneOf('DayCount', DAY_COUNTS),
  prepayment: oneOf('PrepaymentMode', PREPAYMENT_MODES),
  late_fee_flat: NonNegativeMinorUnits,
  late_fee_bps: BasisPoints,
  late_fee_grace_days: integerIn('GraceDays', 0, 365),
  returned_payment_fee: NonNegativeMinorUnits,
  time_zone: TimeZone,
  active: Bool,
}
const emptiable = { description: boundedString('Description', 1, 500) }

/** A new product; fields and defaults: docs/applications.md "Loan products". */
export const LoanProductInput = strictObject('LoanProductInput', required, { ...settableOptional, ...emptiable })
/** A decoded `LoanProductInput`. */
export type LoanProductInput = t.TypeOf<typeof LoanProductInput>

/** A merge patch (RFC 7396): `null` clears `description`; no other field can be emptied. */
export const LoanProductPatch = mergePatch('LoanProductPatch', { ...required, ...settableOptional }, emptiable)
/** A decoded `LoanProductPatch`. */
export type LoanProductPatch = t.TypeOf<typeof LoanProductPatch>

/** Min ≤ max for amounts and terms; the error names a field of `sent` (the request's) where it can. */
export const checkRanges = (p: LoanProduct, sent: readonly string[] = []): E.Either<InvalidRequest, LoanProduct> => {
  const blame = (min: string, max: string): string => (sent.includes(max) && !sent.includes(min) ? max : min)
  if (p.minAmount > p.maxAmount) {
    return E.left(invalidRequest(`min_amount (${p.minAmount}) must not exceed max_amount (${p.maxAmount}).`, blame('min_amount', 'max_amount')))
  }
  if (p.minTermMonths > p.maxTermMonths) {
    return E.left(
      invalidRequest(`min_term_months (${p.minTermMonths}) must not exceed max_term_months (${p.maxTermMonths}).`, blame('min_term_months', 'max_term_months')),
    )
  }
  return E.right(p)
}

// Under Actual/365 period lengths depend on the start: a month end, the first of a 31-day month, March 1st.
const PROBE_STARTS: Readonly<Record<LoanProduct['servicing']['dayCount'], readonly string[]>> = {
  THIRTY_360: ['2026-01-31'],
  ACTUAL_365: ['2026-01-31', '2026-01-01', '2026-03-01'],
}

const endsLevel = (level: number, last: number, installments: number): boolean => 100 * Math.abs(last - level) <= level + 100 * installments

/** Every loan the product can book must amortize: docs/applications.md "Loan products" (decisions 84, 118). */
export const checkAmortizes = (p: LoanProduct, sent: readonly string[] = []): E.Either<InvalidRequest, LoanProduct> => {
  const blame = (...fields: readonly string[]): string => fields.find((f) => sent.includes(f)) ?? fields[0]!
  const probes = [p.minAmount, p.maxAmount].flatMap((amount) =>
    [p.minTermMonths, p.maxTermMonths].flatMap((termMonths) => PROBE_STARTS[p.servicing.dayCount].map((startDate) => ({ amount, termMonths, startDate }))),
  )
  for (const { amount, termMonths, startDate } of probes) {
    const schedule = amortize({ principal: amount, annualRateBps: p.interestRateBps, termMonths, startDate, dayCount: p.servicing.dayCount })
    const level = schedule[0]!.payment
    const last = schedule[schedule.length - 1]!
    const total = schedule.reduce((sum, i) => sum + BigInt(i.payment), 0n)
    const terms = `${amount} over ${termMonths} months at ${p.interestRateBps} bps`
    if (schedule.some((i) => i.principal <= 0)) {
      const field = blame('interest_rate_bps', 'max_term_months', 'min_term_months', 'min_amount', 'max_amount', 'day_count')
      return E.left(invalidRequest(`A loan of ${terms} would not amortize: an installment would retire no principal (the rate is too high for the term, or the amount too small).`, field))
    }
    if (!endsLevel(level, last.payment, schedule.length)) {
      const field = blame('interest_rate_bps', 'max_term_months', 'min_term_months', 'min_amount', 'max_amount', 'day_count')
      return E.left(invalidRequest(`A loan of ${terms} would end with an installment of ${last.payment} against a level payment of ${level}: more than 1% and a minor unit per installment apart.`, field))
    }
    if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
      const field = blame('max_amount', 'max_term_months', 'interest_rate_bps')
      return E.left(invalidRequest(`A loan of ${terms} would repay ${total} minor units, more than the API states exactly (2^53 − 1).`, field))
    }
  }
  return E.right(p)
}

/** A product's ranges are ordered (`checkRanges`) and every loan it can book amortizes (`checkAmortizes`). */
export const checkProduct = (p: LoanProduct, sent: readonly string[] = []): E.Either<InvalidRequest, LoanProduct> =>
  pipe(
    checkRanges(p, sent),
    E.chain((checked) => checkAmortizes(checked, sent)),
  )

/** The returned-payment fee as the terms hold it: absent when none. */
const returnedPaymentFee = (fee: number): Pick<ServicingTerms, 'returnedPaymentFee'> => (fee === 0 ? {} : { returnedPaymentFee: fee })

/** A new product from decoded input, with the defaults filled in; unchecked (`checkProduct`). */
export const newLoanProduct = (input: LoanProductInput, id: ProductId, now: Date): LoanProduct => ({
  id,
  name: input.name,
  description: input.description ?? null,
  currency: input.currency,
  minAmount: input.min_amount,
  maxAmount: input.max_amount,
  minTermMonths: input.min_term_months,
  maxTermMonths: input.max_term_months,
  interestRateBps: input.interest_rate_bps,
  originationFeeBps: input.origination_fee_bps ?? 0,
  repaymentFrequency: input.repayment_frequency ?? 'MONTHLY',
  servicing: {
    dayCount: input.day_count ?? DEFAULT_SERVICING_TERMS.dayCount,
    prepayment: input.prepayment ?? DEFAULT_SERVICING_TERMS.prepayment,
    lateFee: {
      flat: input.late_fee_flat ?? DEFAULT_SERVICING_TERMS.lateFee.flat,
      bps: input.late_fee_bps ?? DEFAULT_SERVICING_TERMS.lateFee.bps,
      graceDays: input.late_fee_grace_days ?? DEFAULT_SERVICING_TERMS.lateFee.graceDays,
    },
    ...returnedPaymentFee(input.returned_payment_fee ?? 0),
    timeZone: input.time_zone ?? DEFAULT_SERVICING_TERMS.timeZone,
  },
  active: input.active ?? true,
  createdAt: now,
  updatedAt: now,
})

export const patchLoanProduct = (p: LoanProduct, patch: LoanProductPatch, now: Date): LoanProduct => ({
  ...p,
  name: merged(patch.name, p.name),
  description: merged(patch.description, p.description),
  currency: merged(patch.currency, p.currency),
  minAmount: merged(patch.min_amount, p.minAmount),
  maxAmount: merged(patch.max_amount, p.maxAmount),
  minTermMonths: merged(patch.min_term_months, p.minTermMonths),
  maxTermMonths: merged(patch.max_term_months, p.maxTermMonths),
  interestRateBps: merged(patch.interest_rate_bps, p.interestRateBps),
  originationFeeBps: merged(patch.origination_fee_bps, p.originationFeeBps),
  repaymentFrequency: merged(patch.repayment_frequency, p.repaymentFrequency),
  servicing: {
    dayCount: merged(patch.day_count, p.servicing.dayCount),
    prepayment: merged(patch.prepayment, p.servicing.prepayment),
    lateFee: {
      flat: merged(patch.late_fee_flat, p.servicing.lateFee.flat),
      bps: merged(patch.late_fee_bps, p.servicing.lateFee.bps),
      graceDays: merged(patch.late_fee_grace_days, p.servicing.lateFee.graceDays),
    },
    ...returnedPaymentFee(merged(patch.returned_payment_fee, p.servicing.returnedPaymentFee ?? 0)),
    timeZone: merged(patch.time_zone, p.servicing.timeZone),
  },
  active: merged(patch.active, p.active),
  updatedAt: now,
})
