import * as O from 'fp-ts/lib/Option.js'
import type { ApiKeyId, ClientId, PartyId } from '../foundations/ids.js'

/**
 * API clients and their keys (CONTRACT.md "Keys").
 *
 * Key format: `lgk_<environment>_<id>_<secret>`. `id` (16 base62 characters) is the lookup
 * handle; `secret` is random base62 followed by a 6-character CRC32 checksum of everything
 * before it, so scanners can recognise a real key offline. Only the SHA-256 of the whole key
 * and its prefix `lgk_<environment>_<id>` are stored.
 */

/** The environments a key can be minted for; the environment is written into the key (`lgk_live_…`). */
export const KEY_ENVIRONMENTS = ['live', 'test'] as const
/** One of `KEY_ENVIRONMENTS`. */
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number]
/** A key is `active` until revoked; a revoked key stays listed and never authenticates again. */
export type KeyStatus = 'active' | 'revoked'

/** Every key starts with this; a Bearer value without it is not treated as a key (spec §5.2). */
export const KEY_PREFIX = 'lgk_'

/** Length of the id segment, in base62 characters. */
export const KEY_ID_LENGTH = 16
/** Length of the checksum at the end of the secret (CRC32 in base62), in characters. */
export const KEY_CHECKSUM_LENGTH = 6
/** Random characters before the checksum: 32 base62 characters is about 190 bits. */
export const KEY_RANDOM_LENGTH = 32

const KEY_PATTERN = /^lgk_(live|test)_([0-9A-Za-z]{16})_([0-9A-Za-z]{38,128})$/

/** The group of keys that share a `party_id` and `client_name`; rotation adds keys to it. */
export type ApiClient = {
  readonly id: ClientId
  readonly partyId: PartyId
  readonly name: string
  readonly createdAt: Date
}

/** A stored API key. The plaintext is never stored: only its SHA-256 (`hash`) and its `prefix`. */
export type ApiKey = {
  readonly id: ApiKeyId
  /** The API client the key belongs to; keys are listed and revoked per client. */
  readonly clientId: ClientId
  readonly partyId: PartyId
  /** The 16-character id segment; unique; the lookup handle. */
  readonly idSegment: string
  /** `lgk_<environment>_<id>`: non-secret, shown in listings. */
  readonly prefix: string
  /** SHA-256 of the whole key, hex. */
  readonly hash: string
  readonly environment: KeyEnvironment
  /** The scopes as minted: known scopes, `*` or `<namespace>:*`. */
  readonly scopes: readonly string[]
  readonly status: KeyStatus
  readonly createdAt: Date
  readonly revokedAt: Date | null
  /** When it last authenticated a request, as far as recorded: usage is written in batches, so it can lag. */
  readonly lastUsedAt: Date | null
}

/**
 * The authenticated principal of a partner request: what the key that authenticated it grants.
 * Partner use cases take it first and act only within its `partyId`.
 */
export type Caller = {
  readonly keyId: ApiKeyId
  readonly clientId: ClientId
  readonly partyId: PartyId
  readonly environment: KeyEnvironment
  readonly scopes: readonly string[]
}

/** The parts of a presented key that locate its stored record, read before anything is checked. */
export type PresentedKey = {
  readonly environment: KeyEnvironment
  readonly idSegment: string
  readonly prefix: string
}

/** Splits a presented key into its parts; none when it is not in the key format at all. */
export const parsePresentedKey = (raw: string): O.Option<PresentedKey> => {
  const match = KEY_PATTERN.exec(raw)
  if (match === null) return O.none
  const environment = match[1] as KeyEnvironment
  const idSegment = match[2]!
  return O.some({ environment, idSegment, prefix: `${KEY_PREFIX}${environment}_${idSegment}` })
}

/** The non-secret prefix `lgk_<environment>_<id>` of a key, as stored and listed. */
export const keyPrefixOf = (environment: KeyEnvironment, idSegment: string): string => `${KEY_PREFIX}${environment}_${idSegment}`

export const callerOf = (key: ApiKey): Caller => ({
  keyId: key.id,
  clientId: key.clientId,
  partyId: key.partyId,
  environment: key.environment,
  scopes: key.scopes,
})
