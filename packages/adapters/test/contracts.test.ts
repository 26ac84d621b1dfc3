import { apiKeyRepositoryContract, freshId, idempotencyStoreContract, onboardingSessionRepositoryContract, right } from '@lendgate/core/testing/contracts'
import { inMemoryApiKeyRepository, inMemoryIdempotencyStore, inMemoryOnboardingSessionRepository } from '@lendgate/core/testing'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { postgresIdempotencyStore } from '../src/postgres/idempotency-store.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { testDatabases } from '../src/testing/test-databases.js'

/** Each port's contract suite, run over every implementation: in memory, embedded, real server. */

apiKeyRepositoryContract({ name: 'in memory', make: async () => inMemoryApiKeyRepository() })
onboardingSessionRepositoryContract({
  name: 'in memory',
  make: async () => ({ repo: inMemoryOnboardingSessionRepository(), owner: async () => freshId() }),
})
idempotencyStoreContract({ name: 'in memory', make: async () => inMemoryIdempotencyStore() })

for (const database of testDatabases()) {
  apiKeyRepositoryContract({ name: database.name, make: async () => postgresApiKeyRepository((await database.open()).db) })
  onboardingSessionRepositoryContract({
    name: database.name,
    make: async () => {
      const { db } = await database.open()
      const keys = postgresApiKeyRepository(db)
      // Sessions reference their API client, so each owner is a real client row.
      const owner = async (): Promise<string> => {
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
      return { repo: postgresOnboardingSessionRepository(db), owner }
    },
  })
  idempotencyStoreContract({ name: database.name, make: async () => postgresIdempotencyStore((await database.open()).db) })
}
