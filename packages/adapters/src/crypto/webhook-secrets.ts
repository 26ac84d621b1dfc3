import { randomBytes } from 'node:crypto'
import type { WebhookSecrets } from '@lendgate/core'
import { openAesGcm, sealAesGcm } from './aes-gcm.js'

/**
 * Webhook signing secrets: generated as `whsec_` + base64 of 24 random bytes, and sealed at rest
 * with AES-256-GCM under `WEBHOOK_SECRET_KEY` (`sealAesGcm`), so a database dump alone does not
 * reveal them and tampering is detected.
 */
export const aesGcmWebhookSecrets = (key: Uint8Array): WebhookSecrets => {
  if (key.length !== 32) throw new Error('the webhook sealing key must be 32 bytes')
  return {
    generate: () => `whsec_${randomBytes(24).toString('base64')}`,
    seal: (secret) => sealAesGcm(key, secret),
    open: (sealed) => openAesGcm(key, sealed),
  }
}
