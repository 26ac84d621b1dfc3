import type * as t from 'io-ts'
import { boundedString, integerIn, oneOf, strictObject } from '../foundations/codecs.js'
import { CurrencyCode, PositiveMinorUnits } from '../foundations/money.js'
import type { LoanId } from '../foundations/ids.js'

/** Collateral securing a loan, recorded by operators and listed to partners. */

/** The kinds of collateral. */
export const COLLATERAL_TYPES = ['real_estate', 'equipment', 'vehicle', 'inventory', 'receivables', 'cash', 'securities', 'other'] as const

/**
 * Collateral as operators record it: `type`, `description`, `valuation` (minor units) and
 * `currency` required; `lien_position` (1 to 10; 1, first lien, when left out) optional.
 */
export const CollateralInput = strictObject(
  'CollateralInput',
  {
    type: oneOf('CollateralType', COLLATERAL_TYPES),
    description: boundedString('Description', 1, 500),
    valuation: PositiveMinorUnits,
    currency: CurrencyCode,
  },
  { lien_position: integerIn('LienPosition', 1, 10) },
)
/** A decoded `CollateralInput`. */
export type CollateralInput = t.TypeOf<typeof CollateralInput>

/** Collateral securing a loan, recorded by operators and listed to partners. */
export type CollateralItem = {
  readonly id: string
  readonly loanId: LoanId
  readonly type: (typeof COLLATERAL_TYPES)[number]
  readonly description: string
  readonly valuation: number
  readonly currency: string
  /** 1 for a first lien. */
  readonly lienPosition: number
  readonly createdAt: Date
}

export const newCollateral = (input: CollateralInput, loanId: LoanId, id: string, now: Date): CollateralItem => ({
  id,
  loanId,
  type: input.type,
  description: input.description,
  valuation: input.valuation,
  currency: input.currency,
  lienPosition: input.lien_position ?? 1,
  createdAt: now,
})
