import { createHmac, hash as digestOf, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import type { OperatorSecrets } from '@lendgate/core'
import { randomBase62 } from './api-key-material.js'

/**
 * Operators' passwords under scrypt (OWASP's password storage guidance: N = 2^15, r = 8, p = 3),
 * 16 bytes of salt and 32 of hash, kept in PHC string form (`$scrypt$ln=15,r=8,p=3$<salt>$<hash>`,
 * base64 without padding) so that a stronger cost can come later without a migration: a hash is
 * checked at the cost it names.
 */
const COST = { ln: 15, r: 8, p: 3 } as const
const SALT_BYTES = 16
const HASH_BYTES = 32
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

const derive = (password: string, salt: Buffer, cost: { readonly ln: number; readonly r: number; readonly p: number }, length: number): Promise<Buffer> => {
  const N = 2 ** cost.ln
  // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is just short of that at this cost.
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r }
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err === null ? resolve(key) : reject(err))))
}

const unpadded = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '')

const phc = (salt: Buffer, hash: Buffer): string => `$scrypt$ln=${COST.ln},r=${COST.r},p=${COST.p}$${unpadded(salt)}$${unpadded(hash)}`

/** A session's token: 32 bytes from the CSPRNG, base64url. */
const TOKEN_BYTES = 32

const sha256Hex = (text: string): string => digestOf('sha256', text)

const csrfTokenOf = (token: string): string => createHmac('sha256', token).update('lendgate operator csrf').digest('base64url')

export const nodeOperatorSecrets = (): OperatorSecrets => ({
  hashPassword: (password) => async () => {
    const salt = randomBytes(SALT_BYTES)
    return phc(salt, await derive(password, salt, COST, HASH_BYTES))
  },
  passwordMatches: (password, stored) => async () => {
    const parts = PHC.exec(stored)
    if (parts === null) return false
    const cost = { ln: Number(parts[1]), r: Number(parts[2]), p: Number(parts[3]) }
    const expected = Buffer.from(parts[5] ?? '', 'base64')
    if (cost.ln < 10 || cost.ln > 20 || cost.r < 1 || cost.p < 1 || expected.length < 16) return false
    const actual = await derive(password, Buffer.from(parts[4] ?? '', 'base64'), cost, expected.length)
    return timingSafeEqual(actual, expected)
  },
  // Random salt and hash: no password derives to it, and checking one costs what checking a real hash does.
  decoyHash: phc(randomBytes(SALT_BYTES), randomBytes(HASH_BYTES)),
  generatePassword: () => randomBase62(24),
  newSessionToken: () => {
    const token = randomBytes(TOKEN_BYTES).toString('base64url')
    return { token, hash: sha256Hex(token) }
  },
  sessionTokenHash: sha256Hex,
  csrfTokenOf,
  csrfMatches: (token, presented) => {
    const expected = Buffer.from(csrfTokenOf(token))
    const given = Buffer.from(presented)
    return given.length === expected.length && timingSafeEqual(given, expected)
  },
})
