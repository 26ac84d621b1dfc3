import * as T from 'fp-ts/lib/Task.js'
import type { OneTimeCodes } from '../ports/one-time-codes.js'

/** Codes counting up from 100000; the "hash" is salt:code. For use-case tests only. */
export const fakeOneTimeCodes = (): OneTimeCodes => {
  let n = 100000
  return {
    generate: () => String(n++),
    hash: (code, salt) => T.of(`${salt}:${code}`),
    matches: (code, salt, hash) => T.of(`${salt}:${code}` === hash),
  }
}
