/**
 * An amount in minor units (the API's integers) as text with its currency, exactly: the digits
 * are split where the currency's minor unit is (2 for USD, 0 for JPY), never divided as a float.
 */
export const formatMinor = (amount: number, currency: string): string => {
  const digits = new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  const sign = amount < 0 ? '-' : ''
  const text = String(Math.abs(amount)).padStart(digits + 1, '0')
  const whole = text.slice(0, text.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${sign}${whole}${digits > 0 ? `.${text.slice(text.length - digits)}` : ''} ${currency}`
}
