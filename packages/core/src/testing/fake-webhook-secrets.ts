import * as O from 'fp-ts/lib/Option.js'
import type { WebhookSecrets } from '../ports/webhook-secrets.js'

/**
 * Webhook secrets for tests, without cryptography: `generate` counts (`whsec_` and 32 base64
 * digits, the real format), and `seal` only marks the secret with `key` and reverses it, so a
 * sealed value never equals the secret and `open` refuses what another key or a tampered mark
 * sealed. Nothing here is secret: never use it outside tests.
 */
export const fakeWebhookSecrets = (key = 'fake-key'): WebhookSecrets => {
  let n = 0
  const mark = `sealed:${key}:`
  const reversed = (text: string): string => [...text].reverse().join('')
  return {
    generate: () => {
      n += 1
      return `whsec_${String(n).padStart(32, '0')}`
    },
    seal: (secret) => `${mark}${reversed(secret)}`,
    open: (sealed) => (sealed.startsWith(mark) ? O.some(reversed(sealed.slice(mark.length))) : O.none),
  }
}
