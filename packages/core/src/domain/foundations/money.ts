import * as t from 'io-ts'
import { integerIn, jsonSchemaOf, withSchema } from './codecs.js'

/**
 * Money (CONTRACT.md "Money and loans"): integers in minor units with an ISO 4217 currency;
 * rates and fees in basis points. Never floats.
 */

/** ISO 4217 codes of currencies in use, from the runtime's ICU data (no hand-kept list). */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'))

/** An ISO 4217 currency code in use, upper case. */
export const CurrencyCode = withSchema(new t.Type<string, string, unknown>(
  'CurrencyCode',
  (u): u is string => typeof u === 'string' && CURRENCIES.has(u),
  (u, c) => (typeof u === 'string' && CURRENCIES.has(u) ? t.success(u) : t.failure(u, c, 'must be an ISO 4217 currency code in upper case, such as USD')),
  t.identity,
), { type: 'string', pattern: '^[A-Z]{3}$', description: 'an ISO 4217 currency code in use' })

/** An amount in minor units from `min` that JavaScript numbers hold exactly; described as `int64`, wider than 32 bits. */
const minorUnits = (min: number): t.Type<number, number, unknown> => {
  const codec = integerIn('MinorUnits', min, Number.MAX_SAFE_INTEGER)
  return withSchema(codec, { ...jsonSchemaOf(codec), format: 'int64' })
}

/** A positive amount in minor units that JavaScript numbers hold exactly. */
export const PositiveMinorUnits = minorUnits(1)

/** An amount in minor units, zero included (a fee that may be none). */
export const NonNegativeMinorUnits = minorUnits(0)

/** Basis points from 0 to 10000 (0% to 100%). */
export const BasisPoints = integerIn('BasisPoints', 0, 10_000)

/** `amount × bps ÷ 10000`, rounded half up, exactly (BigInt). For non-negative amounts. */
export const basisPointsOf = (amount: number, bps: number): number =>
  Number((BigInt(amount) * BigInt(bps) * 2n + 10_000n) / 20_000n)
