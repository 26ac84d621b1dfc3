import * as O from 'fp-ts/lib/Option.js'
import type { AccountSeal } from '../ports/account-seal.js'

/**
 * An account seal without cryptography: sealing marks the method and reverses the numbers, `open`
 * refuses another key's, another method's or a tampered mark. Tests only.
 */
export const fakeAccountSeal = (key = 'fake-key'): AccountSeal => {
  const reversed = (text: string): string => [...text].reverse().join('')
  const mark = (methodId: string): string => `sealed-account:${key}:${methodId}:`
  return {
    seal: (methodId, account) => `${mark(methodId)}${reversed(`${account.routingNumber}/${account.accountNumber}`)}`,
    open: (methodId, sealed) => {
      if (!sealed.startsWith(mark(methodId))) return O.none
      const [routingNumber, accountNumber, ...rest] = reversed(sealed.slice(mark(methodId).length)).split('/')
      return routingNumber === undefined || accountNumber === undefined || rest.length > 0 ? O.none : O.some({ routingNumber, accountNumber })
    },
  }
}
