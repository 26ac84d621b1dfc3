import type { ApiClient, ApiKey, KeyEnvironment, KeyStatus } from '../domain/keys/api-key.js'
import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'

/** The listing record of a key: never the secret nor its hash. */
export type ApiKeyView = {
  readonly api_key_id: string
  readonly key_prefix: string
  readonly status: KeyStatus
  readonly environment: KeyEnvironment
  /** The key's own world (its environment is live), whichever key lists or mints it. */
  readonly livemode: boolean
  readonly scopes: readonly string[]
  readonly created_at: string
  readonly revoked_at: string | null
  readonly last_used_at: string | null
}

/** The listing record of `key`. */
export const apiKeyView = (key: ApiKey): ApiKeyView => ({
  api_key_id: key.id,
  key_prefix: key.prefix,
  status: key.status,
  environment: key.environment,
  livemode: key.environment === 'live',
  scopes: key.scopes,
  created_at: instantText(key.createdAt),
  revoked_at: instantTextOrNull(key.revokedAt),
  last_used_at: instantTextOrNull(key.lastUsedAt),
})

/** The mint response: the only place the full key ever appears. */
export type MintedKeyView = {
  readonly api_key: string
  readonly api_key_id: string
  readonly key_prefix: string
  readonly party_id: string
  readonly client_id: string
  readonly client_name: string
  readonly environment: KeyEnvironment
  /** The key's own world (its environment is live). */
  readonly livemode: boolean
  readonly scopes: readonly string[]
  readonly status: KeyStatus
  readonly created_at: string
}

/** The mint response for `key` of `client`, with the `plaintext` key; never store or log the result. */
export const mintedKeyView = (client: ApiClient, key: ApiKey, plaintext: string): MintedKeyView => ({
  api_key: plaintext,
  api_key_id: key.id,
  key_prefix: key.prefix,
  party_id: key.partyId,
  client_id: client.id,
  client_name: client.name,
  environment: key.environment,
  livemode: key.environment === 'live',
  scopes: key.scopes,
  status: key.status,
  created_at: instantText(key.createdAt),
})
