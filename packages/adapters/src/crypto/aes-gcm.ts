import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import * as O from 'fp-ts/lib/Option.js'

/** The version of the sealed form, first in it. */
const VERSION = 'v1'

/**
 * `plaintext` sealed with AES-256-GCM under `key` as `v1.<iv>.<tag>.<ciphertext>` (base64url), a
 * fresh 12-byte IV each time; `aad`, when given, is authenticated with it: the value then opens
 * only with the same `aad`.
 */
export const sealAesGcm = (key: Uint8Array, plaintext: string, aad?: string): string => {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'))
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.')
}

/** What `sealAesGcm` sealed, opened; none when it was altered, sealed under another key or with another `aad`. */
export const openAesGcm = (key: Uint8Array, sealed: string, aad?: string): O.Option<string> => {
  const [version, iv, tag, ciphertext, ...rest] = sealed.split('.')
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) return O.none
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return O.some(Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8'))
  } catch {
    return O.none
  }
}
