/** An amount as the console shows it (formatMinor: `+1,234.56 USD`, `-0.50 USD`) in minor units; exact, never through a float. */
export const minorOf = (shown: string): number => {
  const match = /^([+-]?)([\d,]+)\.(\d{2}) USD$/.exec(shown.trim())
  if (match === null) throw new Error(`not an amount in USD: ${shown}`)
  return (match[1] === '-' ? -1 : 1) * Number(`${match[2]!.replace(/,/g, '')}${match[3]!}`)
}
