import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { WebhookSecrets } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'

const VERSION = 'v1'

/**
 * Webhook signing secrets: generated as `whsec_` + base64 of 24 random bytes, and sealed at rest
 * with AES-256-GCM under `WEBHOOK_SECRET_KEY` as `v1.<iv>.<tag>.<ciphertext>` (base64url), so a
 * database dump alone does not reveal them and tampering is detected.
 */
export const aesGcmWebhookSecrets = (key: Uint8Array): WebhookSecrets => {
  if (key.length !== 32) throw new Error('the webhook sealing key must be 32 bytes')
  return {
    generate: () => `whsec_${randomBytes(24).toString('base64')}`,
    seal: (secret) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.')
    },
    open: (sealed) => {
      const [version, iv, tag, ciphertext] = sealed.split('.')
      if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) return O.none
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        return O.some(Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8'))
      } catch {
        return O.none
      }
    },
  }
}
