import * as O from 'fp-ts/lib/Option.js'
import type { WebhookSecrets } from '../ports/webhook-secrets.js'

/** Webhook secrets without cryptography: sealing marks and reverses, `open` refuses another key's or a tampered mark. Tests only. */
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
