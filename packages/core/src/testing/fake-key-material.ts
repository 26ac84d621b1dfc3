import type { KeyEnvironment } from '../domain/keys/api-key.js'
import { keyPrefixOf } from '../domain/keys/api-key.js'
import type { ApiKeyMaterial } from '../ports/api-key-material.js'

const FAKE_CHECKSUM = 'fakeCk'

/** Deterministic key material in the real format: a fixed "checksum", the key reversed as "hash". Tests only. */
export const fakeKeyMaterial = (): ApiKeyMaterial => {
  let n = 0
  return {
    generate: (environment: KeyEnvironment) => {
      n += 1
      const idSegment = `id${n.toString().padStart(14, '0')}`
      const plaintext = `${keyPrefixOf(environment, idSegment)}_${'s'.repeat(31)}${n % 10}${FAKE_CHECKSUM}`
      return { plaintext, idSegment, prefix: keyPrefixOf(environment, idSegment), hash: [...plaintext].reverse().join('') }
    },
    hasValidChecksum: (plaintext) => plaintext.endsWith(FAKE_CHECKSUM),
    matches: (plaintext, hash) => [...plaintext].reverse().join('') === hash,
  }
}
