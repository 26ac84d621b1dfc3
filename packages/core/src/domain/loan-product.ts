import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { Bool, boundedString, integerIn, merged, mergePatch, oneOf, strictObject } from './codecs.js'
import { invalidRequest, type InvalidRequest } from './errors.js'
import { BasisPoints, CurrencyCode, PositiveMinorUnits } from './money.js'
import { instantText } from './instant.js'
import type { ProductId } from './ids.js'

/** The catalogue of loans partners can apply for (docs/applications.md "Loan products"). */

/** How often a product's loans are repaid; monthly only, today. */
export const REPAYMENT_FREQUENCIES = ['MONTHLY'] as const
/** One of `REPAYMENT_FREQUENCIES`. */
export type RepaymentFrequency = (typeof REPAYMENT_FREQUENCIES)[number]

/** The longest term a product may offer: 40 years. */
export const MAX_TERM_MONTHS = 480

/**
 * A product of the catalogue partners apply for (docs/applications.md "Loan products"): the
 * amounts, terms and price an application must fit. Amounts are minor units of `currency`.
 */
export type LoanProduct = {
  readonly id: ProductId
  readonly name: string
  readonly description: string | null
  readonly currency: string
  readonly minAmount: number
  readonly maxAmount: number
  readonly minTermMonths: number
  readonly maxTermMonths: number
  /** Yearly interest rate, in basis points. */
  readonly interestRateBps: number
  /** Fee taken from the principal at booking, in basis points. */
  readonly originationFeeBps: number
  readonly repaymentFrequency: RepaymentFrequency
  /** Whether partners can see it and apply for it. */
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
  active: Bool,
}
const emptiable = { description: boundedString('Description', 1, 500) }

/**
 * A new product: `name`, `currency`, `min_amount`, `max_amount` (minor units), `min_term_months`,
 * `max_term_months` (1 to 480) and `interest_rate_bps` required; `origination_fee_bps` (0),
 * `repayment_frequency` (`MONTHLY`), `active` (true) and `description` optional.
 */
export const LoanProductInput = strictObject('LoanProductInput', required, { ...settableOptional, ...emptiable })
/** A decoded `LoanProductInput`. */
export type LoanProductInput = t.TypeOf<typeof LoanProductInput>

/** A merge patch (RFC 7396): `null` clears `description`; no other field can be emptied. */
export const LoanProductPatch = mergePatch('LoanProductPatch', { ...required, ...settableOptional }, emptiable)
/** A decoded `LoanProductPatch`. */
export type LoanProductPatch = t.TypeOf<typeof LoanProductPatch>

/**
 * The ranges of a product must be ordered: min ≤ max for amounts and terms. `sent` names the
 * fields the request carried, so the error names the one the caller changed.
 */
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

/** A new product from decoded input, with the defaults filled in. Does not check that min ≤ max. */
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
  active: merged(patch.active, p.active),
  updatedAt: now,
})

/** A product as the API returns it. */
export type LoanProductView = {
  readonly product_id: string
  readonly name: string
  readonly description: string | null
  readonly currency: string
  readonly min_amount: number
  readonly max_amount: number
  readonly min_term_months: number
  readonly max_term_months: number
  readonly interest_rate_bps: number
  readonly origination_fee_bps: number
  readonly repayment_frequency: RepaymentFrequency
  readonly active: boolean
  readonly created_at: string
  readonly updated_at: string
}

/** The API's view of a product. */
export const loanProductView = (p: LoanProduct): LoanProductView => ({
  product_id: p.id,
  name: p.name,
  description: p.description,
  currency: p.currency,
  min_amount: p.minAmount,
  max_amount: p.maxAmount,
  min_term_months: p.minTermMonths,
  max_term_months: p.maxTermMonths,
  interest_rate_bps: p.interestRateBps,
  origination_fee_bps: p.originationFeeBps,
  repayment_frequency: p.repaymentFrequency,
  active: p.active,
  created_at: instantText(p.createdAt),
  updated_at: instantText(p.updatedAt),
})
