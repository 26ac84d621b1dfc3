import * as O from 'fp-ts/lib/Option.js'
import type { ApiKeyId, ClientId, PartyId } from '../foundations/ids.js'

/**
 * API clients and keys (CONTRACT.md "Keys"): `lgk_<environment>_<id>_<secret>`, the secret ending
 * in a CRC32 checksum; only the SHA-256 of the key and its prefix `lgk_<environment>_<id>` are stored.
 */

export const KEY_ENVIRONMENTS = ['live', 'test'] as const
/** Written into the key (`lgk_live_…`). */
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number]
/** A revoked key stays listed and never authenticates again. */
export type KeyStatus = 'active' | 'revoked'

/** A Bearer value without it is not a key (spec §5.2). */
export const KEY_PREFIX = 'lgk_'

/** The id segment, in base62 characters. */
export const KEY_ID_LENGTH = 16
/** CRC32 in base62. */
export const KEY_CHECKSUM_LENGTH = 6
/** 32 base62 characters: about 190 bits. */
export const KEY_RANDOM_LENGTH = 32

const KEY_PATTERN = /^lgk_(live|test)_([0-9A-Za-z]{16})_([0-9A-Za-z]{38,128})$/

/** Keys sharing a `party_id` and `client_name`; rotation adds keys to it. */
export type ApiClient = {
  readonly id: ClientId
  readonly partyId: PartyId
  readonly name: string
  readonly createdAt: Date
}

/** A stored key: only its SHA-256 and prefix, never the plaintext. */
export type ApiKey = {
  readonly id: ApiKeyId
  readonly clientId: ClientId
  readonly partyId: PartyId
  readonly idSegment: string
  readonly prefix: string
  readonly hash: string
  readonly environment: KeyEnvironment
  readonly scopes: readonly string[]
  readonly status: KeyStatus
  readonly createdAt: Date
  readonly revokedAt: Date | null
  /** Written in batches, so it can lag. */
  readonly lastUsedAt: Date | null
}

/** What the authenticating key grants; partner use cases act only within its `partyId`. */
export type Caller = {
  readonly keyId: ApiKeyId
  readonly clientId: ClientId
  readonly partyId: PartyId
  readonly environment: KeyEnvironment
  readonly scopes: readonly string[]
}

/**
 * What a read of one party's records needs of its caller: the party it acts within. A key's
 * `Caller` is one; an operator reading a party's record acts within the record's party.
 */
export type PartyScope = Pick<Caller, 'partyId'>

/** What locates a presented key's record, read before any check. */
export type PresentedKey = {
  readonly environment: KeyEnvironment
  readonly idSegment: string
  readonly prefix: string
}

/** None when it is not in the key format at all. */
export const parsePresentedKey = (raw: string): O.Option<PresentedKey> => {
  const match = KEY_PATTERN.exec(raw)
  if (match === null) return O.none
  const environment = match[1] as KeyEnvironment
  const idSegment = match[2]!
  return O.some({ environment, idSegment, prefix: `${KEY_PREFIX}${environment}_${idSegment}` })
}

/** `lgk_<environment>_<id>`: stored and listed, not secret. */
export const keyPrefixOf = (environment: KeyEnvironment, idSegment: string): string => `${KEY_PREFIX}${environment}_${idSegment}`

export const callerOf = (key: ApiKey): Caller => ({
  keyId: key.id,
  clientId: key.clientId,
  partyId: key.partyId,
  environment: key.environment,
  scopes: key.scopes,
})
