import type { KeyEnvironment } from '../domain/keys/api-key.js'

export type GeneratedKey = { readonly plaintext: string; readonly idSegment: string; readonly prefix: string; readonly hash: string }

/** Makes and checks key secrets (CSPRNG, SHA-256, constant-time compare), outside core to keep it free of node modules. */
export type ApiKeyMaterial = {
  readonly generate: (environment: KeyEnvironment) => GeneratedKey
  /** False for any malformed key. */
  readonly hasValidChecksum: (plaintext: string) => boolean
  readonly matches: (plaintext: string, hash: string) => boolean
}
