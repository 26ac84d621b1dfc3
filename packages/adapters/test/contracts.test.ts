import {
  apiKeyRepositoryContract,
  documentRepositoryContract,
  freshId,
  idempotencyStoreContract,
  onboardingSessionRepositoryContract,
  right,
  verificationChallengeRepositoryContract,
  webhookEndpointRepositoryContract,
} from '@lendgate/core/testing/contracts'
import { newOnboardingSession } from '@lendgate/core'
import {
  inMemoryApiKeyRepository,
  inMemoryDocumentRepository,
  inMemoryIdempotencyStore,
  inMemoryOnboardingSessionRepository,
  inMemoryVerificationChallengeRepository,
  inMemoryWebhookEndpointRepository,
} from '@lendgate/core/testing'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { postgresDocumentRepository } from '../src/postgres/document-repository.js'
import { postgresPartyRepository } from '../src/postgres/party-repository.js'
import { postgresWebhookEventRepository } from '../src/postgres/webhook-event-repository.js'
import { postgresWebhookEndpointRepository } from '../src/postgres/webhook-endpoint-repository.js'
import { postgresIdempotencyStore } from '../src/postgres/idempotency-store.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresVerificationChallengeRepository } from '../src/postgres/verification-challenge-repository.js'
import { testDatabases } from '../src/testing/test-databases.js'

/** Each port's contract suite, run over every implementation: in memory, embedded, real server. */

apiKeyRepositoryContract({ name: 'in memory', make: async () => inMemoryApiKeyRepository() })
onboardingSessionRepositoryContract({
  name: 'in memory',
  make: async () => {
    const repo = inMemoryOnboardingSessionRepository()
    return { repo, parties: repo.parties, events: repo.events, owner: async () => freshId() }
  },
})
idempotencyStoreContract({ name: 'in memory', make: async () => inMemoryIdempotencyStore() })
webhookEndpointRepositoryContract({ name: 'in memory', make: async () => ({ repo: inMemoryWebhookEndpointRepository(), session: async () => freshId() }) })
documentRepositoryContract({ name: 'in memory', make: async () => ({ repo: inMemoryDocumentRepository(), session: async () => freshId() }) })
verificationChallengeRepositoryContract({
  name: 'in memory',
  make: async () => ({ repo: inMemoryVerificationChallengeRepository(), session: async () => freshId() }),
})

for (const database of testDatabases()) {
  apiKeyRepositoryContract({ name: database.name, make: async () => postgresApiKeyRepository((await database.open()).db) })
  verificationChallengeRepositoryContract({
    name: database.name,
    make: async () => {
      const { db } = await database.open()
      return { repo: postgresVerificationChallengeRepository(db), session: sessionMaker(db) }
    },
  })
  webhookEndpointRepositoryContract({
    name: database.name,
    make: async () => {
      const { db } = await database.open()
      return { repo: postgresWebhookEndpointRepository(db), session: sessionMaker(db) }
    },
  })
  documentRepositoryContract({
    name: database.name,
    make: async () => {
      const { db } = await database.open()
      return { repo: postgresDocumentRepository(db), session: sessionMaker(db) }
    },
  })
  onboardingSessionRepositoryContract({
    name: database.name,
    make: async () => {
      const { db } = await database.open()
      const owner = clientOwner(db)
      return { repo: postgresOnboardingSessionRepository(db), parties: postgresPartyRepository(db), events: postgresWebhookEventRepository(db), owner }
    },
  })
  idempotencyStoreContract({ name: database.name, make: async () => postgresIdempotencyStore((await database.open()).db) })
}

/** Creates sessions on demand (challenges and documents reference their session). */
function sessionMaker(db: Parameters<typeof postgresApiKeyRepository>[0]): () => Promise<string> {
  const sessions = postgresOnboardingSessionRepository(db)
  const owner = clientOwner(db)
  return async () => {
    const s = newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, await owner(), freshId(), new Date())
    await right(sessions.insert(s))
    return s.id
  }
}

/** Creates API clients on demand (sessions reference their client). */
function clientOwner(db: Parameters<typeof postgresApiKeyRepository>[0]): () => Promise<string> {
  const keys = postgresApiKeyRepository(db)
  return async () => {
    const partyId = freshId()
    const segment = freshId().replace(/-/g, '').slice(0, 16)
    const minted = await right(
      keys.mint({
        client: { id: freshId(), partyId, name: 'contract', createdAt: new Date() },
        key: {
          id: freshId(), partyId, idSegment: segment, prefix: `lgk_test_${segment}`, hash: '0'.repeat(64), environment: 'test',
          scopes: ['*'], status: 'active', createdAt: new Date(), revokedAt: null, lastUsedAt: null,
        },
      }),
    )
    return minted.client.id
  }
}
