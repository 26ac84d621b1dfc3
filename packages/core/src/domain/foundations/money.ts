import * as t from 'io-ts'
import { integerIn, jsonSchemaOf, withSchema } from './codecs.js'

/** Money (CONTRACT.md "Money and loans"): integers in minor units, rates in basis points, never floats. */

/** From the runtime's ICU data, not a hand-kept list. */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'))

export const CurrencyCode = withSchema(new t.Type<string, string, unknown>(
  'CurrencyCode',
  (u): u is string => typeof u === 'string' && CURRENCIES.has(u),
  (u, c) => (typeof u === 'string' && CURRENCIES.has(u) ? t.success(u) : t.failure(u, c, 'must be an ISO 4217 currency code in upper case, such as USD')),
  t.identity,
), { type: 'string', pattern: '^[A-Z]{3}$', description: 'an ISO 4217 currency code in use' })

/** Minor units from `min` that JavaScript numbers hold exactly (described as `int64`). */
const minorUnits = (min: number): t.Type<number, number, unknown> => {
  const codec = integerIn('MinorUnits', min, Number.MAX_SAFE_INTEGER)
  return withSchema(codec, { ...jsonSchemaOf(codec), format: 'int64' })
}

export const PositiveMinorUnits = minorUnits(1)

export const NonNegativeMinorUnits = minorUnits(0)

export const BasisPoints = integerIn('BasisPoints', 0, 10_000)

/** `amount × bps ÷ 10000`, rounded half up, exactly (BigInt); non-negative amounts. */
export const basisPointsOf = (amount: number, bps: number): number =>
  Number((BigInt(amount) * BigInt(bps) * 2n + 10_000n) / 20_000n)
