import * as t from 'io-ts'
import { strictObject, stringMatching } from '../foundations/codecs.js'
import type { SessionId } from '../foundations/ids.js'


const WEBHOOK_SECRET = /^(whsec_[A-Za-z0-9+/]{32,88}={0,2}|(?!whsec_)[\x21-\x7e]{16,128})$/

/** An https URL of at most 2048 characters (the `WebhookUrlGuard` judges it further). */
export const WebhookUrl = stringMatching('WebhookUrl', /^\S{1,2048}$/, 'must be an https URL of at most 2048 characters')

/** A signing secret a partner chooses: `whsec_` and base64 of 24 to 64 bytes, or 16 to 128 printable characters. */
export const WebhookSecret = stringMatching(
  'WebhookSecret',
  WEBHOOK_SECRET,
  'must be whsec_ followed by base64 of 24 to 64 bytes, or 16 to 128 printable characters',
)

/** `webhook_url` is https, at most 2048 characters (the `WebhookUrlGuard` judges it further); without `webhook_secret` the server generates one. */
export const RegisterWebhookInput = strictObject('RegisterWebhookInput', { webhook_url: WebhookUrl }, { webhook_secret: WebhookSecret })
export type RegisterWebhookInput = t.TypeOf<typeof RegisterWebhookInput>

/** One per session (spec §6); the signing secret is kept only sealed. */
export type WebhookEndpoint = {
  readonly sessionId: SessionId
  readonly url: string
  readonly sealedSecret: string
  readonly createdAt: Date
  readonly updatedAt: Date
}
