import { hash as digestOf, randomBytes, timingSafeEqual } from 'node:crypto'
import { crc32 } from 'node:zlib'
import {
  KEY_CHECKSUM_LENGTH,
  KEY_ID_LENGTH,
  KEY_RANDOM_LENGTH,
  keyPrefixOf,
  parsePresentedKey,
  type ApiKeyMaterial,
  type KeyEnvironment,
} from '@lendgate/core'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * `length` base62 characters from the CSPRNG. Bytes of 248 and above are discarded
 * (248 = 4 × 62) so every character is equally likely.
 */
export const randomBase62 = (length: number): string => {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}

/** `value` in base62, most significant digit first, left-padded with `0` to `width`. */
export const toBase62 = (value: number, width: number): string => {
  let out = ''
  let rest = value
  do {
    out = BASE62[rest % 62] + out
    rest = Math.floor(rest / 62)
  } while (rest > 0)
  return out.padStart(width, '0')
}

/** CONTRACT.md: CRC32 (IEEE) of the UTF-8 bytes of the key before the checksum, base62, 6 characters (`crc32` encodes a string as UTF-8). */
export const keyChecksum = (body: string): string => toBase62(crc32(body), KEY_CHECKSUM_LENGTH)

const SHA256_HEX = /^[0-9a-f]{64}$/

/** The SHA-256 of `text`'s UTF-8 bytes, lowercase hex: the form a key's hash is stored in. */
const sha256Hex = (text: string): string => digestOf('sha256', text)

export const nodeApiKeyMaterial = (): ApiKeyMaterial => ({
  generate: (environment: KeyEnvironment) => {
    const idSegment = randomBase62(KEY_ID_LENGTH)
    const prefix = keyPrefixOf(environment, idSegment)
    const body = `${prefix}_${randomBase62(KEY_RANDOM_LENGTH)}`
    const plaintext = body + keyChecksum(body)
    return { plaintext, idSegment, prefix, hash: sha256Hex(plaintext) }
  },
  hasValidChecksum: (plaintext) => {
    if (plaintext.length <= KEY_CHECKSUM_LENGTH || parsePresentedKey(plaintext)._tag === 'None') return false
    const body = plaintext.slice(0, -KEY_CHECKSUM_LENGTH)
    return keyChecksum(body) === plaintext.slice(-KEY_CHECKSUM_LENGTH)
  },
  matches: (plaintext, hash) => {
    // Both sides are 64 lowercase hex characters once the stored form is checked, so their
    // one-byte-per-character encodings are equally long and compare in constant time.
    if (!SHA256_HEX.test(hash)) return false
    return timingSafeEqual(Buffer.from(sha256Hex(plaintext), 'latin1'), Buffer.from(hash, 'latin1'))
  },
})
