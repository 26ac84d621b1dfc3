import { createHmac } from 'node:crypto'

/**
 * Standard Webhooks signing (CONTRACT.md "Webhooks"): `webhook-signature: v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">`. A `whsec_` secret's key is the base64 after the prefix; any other
 * secret's key is its UTF-8 bytes.
 */
export const signingKeyOf = (secret: string): Buffer =>
  secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8')

export type SignedHeaders = {
  readonly 'webhook-id': string
  readonly 'webhook-timestamp': string
  readonly 'webhook-signature': string
}

/** The three headers for delivering `body` (the exact bytes sent) as event `id` at `at`. */
export const signWebhook = (secret: string, id: string, at: Date, body: string): SignedHeaders => {
  const timestamp = String(Math.floor(at.getTime() / 1000))
  const signature = createHmac('sha256', signingKeyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` }
}
