/**
 * The currencies whose minor unit is not a hundredth, by their ISO 4217 exponent (the List One
 * table's "minor unit" column); every other code has 2. Not the browser's `Intl` display rules,
 * which round some currencies (IDR, HUF) to whole units whatever their minor unit is.
 */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
}

/**
 * An amount in minor units (the API's integers) as text with its currency, exactly: the digits
 * are split where the currency's minor unit is (2 for USD, 0 for JPY, 3 for KWD), never divided
 * as a float. Anything but a safe integer is shown as the API sent it.
 */
export const formatMinor = (amount: unknown, currency: unknown): string => {
  const code = typeof currency === 'string' ? currency : ''
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) return `${String(amount)} ${code}`.trim()
  const digits = EXPONENTS[code] ?? 2
  const sign = amount < 0 ? '-' : ''
  const text = String(Math.abs(amount)).padStart(digits + 1, '0')
  const whole = text.slice(0, text.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${sign}${whole}${digits > 0 ? `.${text.slice(text.length - digits)}` : ''} ${code}`
}
