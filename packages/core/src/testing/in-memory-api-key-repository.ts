import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiClient, ApiKey } from '../domain/keys/api-key.js'
import type { ApiKeyRepository, KeyOwner } from '../ports/api-key-repository.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryPage } from './in-memory-paging.js'

/** With what it holds, in insertion order. */
export type InMemoryApiKeyRepository = ApiKeyRepository & {
  /** Every client stored. */
  readonly clients: () => readonly ApiClient[]
  /** Every key stored. */
  readonly keys: () => readonly ApiKey[]
  readonly audit: InMemoryAuditLog
}

const owns = (owner: KeyOwner, key: ApiKey): boolean => key.clientId === owner.clientId && key.environment === owner.environment

/** The PostgreSQL repository's semantics; audited writes append to `audit`. */
export const inMemoryApiKeyRepository = (audit: InMemoryAuditLog = inMemoryAuditLog()): InMemoryApiKeyRepository => {
  const clients = new Map<string, ApiClient>()
  const keys = new Map<string, ApiKey>()
  return {
    clients: () => [...clients.values()],
    keys: () => [...keys.values()],
    audit,
    mint: ({ client, key }, event) =>
      TE.fromIO(() => {
        const existing = [...clients.values()].find((c) => c.partyId === client.partyId && c.name === client.name)
        const owner = existing ?? client
        clients.set(owner.id, owner)
        const stored: ApiKey = { ...key, clientId: owner.id }
        keys.set(stored.id, stored)
        audit.append(event({ client: owner, key: stored }))
        return { client: owner, key: stored }
      }),
    findByIdSegment: (idSegment) => TE.fromIO(() => O.fromNullable([...keys.values()].find((k) => k.idSegment === idSegment))),
    findForClient: (owner, keyId) => TE.fromIO(() => O.fromNullable([...keys.values()].find((k) => k.id === keyId && owns(owner, k)))),
    listForClient: (owner, page) =>
      TE.fromIO(() =>
        inMemoryPage(
          [...keys.values()].filter((k) => owns(owner, k)),
          page,
        ),
      ),
    revoke: (owner, keyId, at, event) =>
      TE.fromIO(() => {
        const key = keys.get(keyId)
        if (key === undefined || !owns(owner, key)) return O.none
        if (key.status === 'revoked') return O.some(key)
        const revoked: ApiKey = { ...key, status: 'revoked', revokedAt: at }
        keys.set(keyId, revoked)
        audit.append(event(revoked))
        return O.some(revoked)
      }),
    recordUsage: (usage) =>
      TE.fromIO(() => {
        for (const [keyId, at] of usage) {
          const key = keys.get(keyId)
          if (key !== undefined && (key.lastUsedAt === null || key.lastUsedAt < at)) keys.set(keyId, { ...key, lastUsedAt: at })
        }
      }),
  }
}
