import type * as O from 'fp-ts/lib/Option.js'

/** Webhook signing secrets, sealed at rest (AES-256-GCM in the adapter). */
export type WebhookSecrets = {
  /** A new `whsec_` secret from a CSPRNG. */
  readonly generate: () => string
  /** Encrypted for storage; `open` gives it back. */
  readonly seal: (secret: string) => string
  /** None when the sealed value was tampered with or sealed under another key. */
  readonly open: (sealed: string) => O.Option<string>
}
