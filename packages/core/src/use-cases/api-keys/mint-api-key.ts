import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { KEY_ENVIRONMENTS, type ApiClient, type ApiKey } from '../../domain/keys/api-key.js'
import { keyMintedEvent, OPERATOR_CONTEXT, type AuditContext } from '../../domain/audit/audit-event.js'
import { boundedString, decode, oneOf, strictObject } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { DEFAULT_SCOPES, Scopes } from '../../domain/keys/scopes.js'
import type { ApiKeyMaterial } from '../../ports/api-key-material.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import { type ApiKeyId, type ClientId, newId, PartyId } from '../../domain/foundations/ids.js'

const DEFAULT_CLIENT_NAME = 'default'

/** Defaults: `client_name` `default`, `environment` `live`, `scopes` `partner:api` and `keys:manage`. */
export const MintApiKeyInput = strictObject(
  'MintApiKeyInput',
  { party_id: PartyId },
  {
    client_name: boundedString('ClientName', 1, 100),
    environment: oneOf('Environment', KEY_ENVIRONMENTS),
    scopes: Scopes,
  },
)
export type MintApiKeyInput = t.TypeOf<typeof MintApiKeyInput>

/** What `mintApiKey` needs. */
export type MintApiKeyDeps = {
  readonly apiKeys: ApiKeyRepository
  readonly keyMaterial: ApiKeyMaterial
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** An invalid command (an unknown scope, say), or the store. */
export type MintApiKeyError = InvalidRequest | StoreUnavailable

/** `plaintext` must reach the operator once and nothing else. */
export type MintedKey = { readonly client: ApiClient; readonly key: ApiKey; readonly plaintext: string }

/**
 * Mints a key for the client `party_id` + `client_name`, creating it on first use; rotation is
 * mint, move over, revoke. Audited in the mint's transaction. Not idempotent.
 */
export const mintApiKey =
  (deps: MintApiKeyDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<MintApiKeyError, MintedKey> =>
    pipe(
      TE.fromEither(decode(MintApiKeyInput)(command)),
      TE.chainW((cmd) => {
        const now = deps.clock.now()
        const environment = cmd.environment ?? 'live'
        const generated = deps.keyMaterial.generate(environment)
        const clientId = newId<ClientId>(deps.ids)
        const keyId = newId<ApiKeyId>(deps.ids)
        const auditId = deps.ids.next()
        return pipe(
          deps.apiKeys.mint(
            {
              client: { id: clientId, partyId: cmd.party_id, name: cmd.client_name ?? DEFAULT_CLIENT_NAME, createdAt: now },
              key: {
                id: keyId,
                partyId: cmd.party_id,
                idSegment: generated.idSegment,
                prefix: generated.prefix,
                hash: generated.hash,
                environment,
                scopes: cmd.scopes ?? DEFAULT_SCOPES,
                status: 'active',
                createdAt: now,
                revokedAt: null,
                lastUsedAt: null,
              },
            },
            (minted) => keyMintedEvent(auditId, context, minted.client, minted.key),
          ),
          TE.map(({ client, key }) => ({ client, key, plaintext: generated.plaintext })),
        )
      }),
    )
