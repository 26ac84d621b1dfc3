import type { KeyEnvironment } from '../domain/keys/api-key.js'

/** A freshly generated key: the plaintext is shown once and then only its hash is kept. */
export type GeneratedKey = { readonly plaintext: string; readonly idSegment: string; readonly prefix: string; readonly hash: string }

/**
 * Makes and checks API key secrets (format in domain/api-key.ts). Implementations use a
 * CSPRNG, SHA-256 and a constant-time comparison; none of this is I/O, but it is kept out of
 * core so core stays free of node modules.
 */
export type ApiKeyMaterial = {
  /** A new random key for `environment`, with its id segment, prefix and hash. */
  readonly generate: (environment: KeyEnvironment) => GeneratedKey
  /** Whether the checksum at the end of the secret matches; false for any malformed key. */
  readonly hasValidChecksum: (plaintext: string) => boolean
  /** Constant-time comparison of the SHA-256 of `plaintext` with the stored hex `hash`. */
  readonly matches: (plaintext: string, hash: string) => boolean
}
