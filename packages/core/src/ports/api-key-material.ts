import type { KeyEnvironment } from '../domain/keys/api-key.js'

/** The plaintext is shown once; then only its hash is kept. */
export type GeneratedKey = { readonly plaintext: string; readonly idSegment: string; readonly prefix: string; readonly hash: string }

/** Makes and checks key secrets (CSPRNG, SHA-256, constant-time compare), outside core to keep it free of node modules. */
export type ApiKeyMaterial = {
  /** A new random key with its id segment, prefix and hash. */
  readonly generate: (environment: KeyEnvironment) => GeneratedKey
  /** False for any malformed key. */
  readonly hasValidChecksum: (plaintext: string) => boolean
  /** Constant-time comparison of the key's SHA-256 with `hash`. */
  readonly matches: (plaintext: string, hash: string) => boolean
}
