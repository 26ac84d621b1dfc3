import * as t from 'io-ts'
import { strictObject, stringMatching } from '../foundations/codecs.js'
import type { SessionId } from '../foundations/ids.js'

/**
 * A session's webhook endpoint (spec §6, CONTRACT.md "Webhooks"). The signing secret is kept
 * only sealed; it is shown once, and only when the server generated it.
 */

/** `whsec_` followed by base64 of 24 to 64 bytes, or any other 16 to 128 printable characters. */
const WEBHOOK_SECRET = /^(whsec_[A-Za-z0-9+/]{32,88}={0,2}|(?!whsec_)[\x21-\x7e]{16,128})$/

/**
 * A session's webhook registration: `webhook_url` (https, at most 2048 characters; the
 * `WebhookUrlGuard` judges it further) and optionally `webhook_secret` (`whsec_` and base64 of 24
 * to 64 bytes, or 16 to 128 printable characters); without one the server generates it.
 */
export const RegisterWebhookInput = strictObject(
  'RegisterWebhookInput',
  { webhook_url: stringMatching('WebhookUrl', /^\S{1,2048}$/, 'must be an https URL of at most 2048 characters') },
  {
    webhook_secret: stringMatching(
      'WebhookSecret',
      WEBHOOK_SECRET,
      'must be whsec_ followed by base64 of 24 to 64 bytes, or 16 to 128 printable characters',
    ),
  },
)
/** A decoded `RegisterWebhookInput`. */
export type RegisterWebhookInput = t.TypeOf<typeof RegisterWebhookInput>

/**
 * A session's webhook endpoint (spec §6, CONTRACT.md "Webhooks"), one per session. The signing
 * secret is kept only sealed.
 */
export type WebhookEndpoint = {
  readonly sessionId: SessionId
  readonly url: string
  /** The signing secret, sealed (never the plain secret). */
  readonly sealedSecret: string
  readonly createdAt: Date
  readonly updatedAt: Date
}
