import { randomInt, scrypt, timingSafeEqual } from 'node:crypto'
import { CODE_LENGTH, type OneTimeCodes } from '@lendgate/core'

/**
 * scrypt cost for code hashes. A 6-digit code has a million values; at this cost (about 10 ms
 * a hash here) trying them all takes hours, far beyond the code's 10-minute life.
 */
const SCRYPT = { N: 4096, r: 8, p: 1 } as const

const derive = (code: string, salt: string): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(code, salt, 32, SCRYPT, (err, key) => (err === null ? resolve(key) : reject(err))))

export const scryptOneTimeCodes = (): OneTimeCodes => ({
  generate: () => String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0'),
  hash: (code, salt) => async () => (await derive(code, salt)).toString('base64'),
  matches: (code, salt, hash) => async () => {
    const expected = Buffer.from(hash, 'base64')
    const actual = await derive(code, salt)
    return expected.length === actual.length && timingSafeEqual(expected, actual)
  },
})
