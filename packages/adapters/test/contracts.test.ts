import {
  apiKeyRepositoryContract,
  documentRepositoryContract,
  freshId,
  idempotencyStoreContract,
  loanApplicationRepositoryContract,
  loanProductRepositoryContract,
  onboardingSessionRepositoryContract,
  operatorRepositoryContract,
  partyRepositoryContract,
  right,
  testClockRepositoryContract,
  verificationChallengeRepositoryContract,
  webhookEndpointRepositoryContract,
} from '@lendgate/core/testing/contracts'
import { newLoanProduct, OPERATOR_CONTEXT, productCreatedEvent, type LoanProduct } from '@lendgate/core'
import {
  inMemoryApiKeyRepository,
  inMemoryDocumentRepository,
  inMemoryIdempotencyStore,
  inMemoryLoanApplicationRepository,
  inMemoryLoanProductRepository,
  inMemoryOnboardingSessionRepository,
  inMemoryOperatorRepository,
  inMemoryTestClockRepository,
  inMemoryVerificationChallengeRepository,
  inMemoryWebhookEndpointRepository,
} from '@lendgate/core/testing'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { postgresDocumentRepository } from '../src/postgres/document-repository.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanRepository } from '../src/postgres/loan-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresPartyRepository } from '../src/postgres/party-repository.js'
import { postgresWebhookEventRepository } from '../src/postgres/webhook-event-repository.js'
import { postgresWebhookEndpointRepository } from '../src/postgres/webhook-endpoint-repository.js'
import { postgresIdempotencyStore } from '../src/postgres/idempotency-store.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresOperatorRepository } from '../src/postgres/operator-repository.js'
import { postgresVerificationChallengeRepository } from '../src/postgres/verification-challenge-repository.js'
import { postgresTestClockRepository } from '../src/postgres/test-clock-repository.js'
import { testDatabases, testWorlds } from '../src/testing/test-databases.js'
import { clientOwner, partyMaker, sessionMaker } from './support/database-fixtures.js'

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
loanProductRepositoryContract({ name: 'in memory', make: async () => inMemoryLoanProductRepository() })
operatorRepositoryContract({ name: 'in memory', make: async () => inMemoryOperatorRepository() })
loanApplicationRepositoryContract({
  name: 'in memory',
  make: async () => {
    const repo = inMemoryLoanApplicationRepository()
    return { repo, loans: repo.loans, borrower: async () => ({ partyId: freshId(), clientId: freshId() }), product: async () => contractProduct() }
  },
})
partyRepositoryContract({
  name: 'in memory',
  make: async () => {
    const sessions = inMemoryOnboardingSessionRepository()
    return { repo: sessions.parties, party: partyMaker(sessions, async () => freshId()) }
  },
})

testClockRepositoryContract({ name: 'in memory', make: async () => ({ repo: inMemoryTestClockRepository(), party: async () => freshId() }) })

for (const database of testDatabases()) {
  apiKeyRepositoryContract({ name: database.name, make: async () => postgresApiKeyRepository((await database.open()).db) })
  operatorRepositoryContract({ name: database.name, make: async () => postgresOperatorRepository((await database.open()).db) })
  loanProductRepositoryContract({ name: database.name, make: async () => postgresLoanProductRepository((await database.open()).db) })
}

for (const database of testWorlds()) {
  verificationChallengeRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      return { repo: postgresVerificationChallengeRepository(world), session: sessionMaker(db, world) }
    },
  })
  webhookEndpointRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      return { repo: postgresWebhookEndpointRepository(world), session: sessionMaker(db, world) }
    },
  })
  documentRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      return { repo: postgresDocumentRepository(world), session: sessionMaker(db, world) }
    },
  })
  onboardingSessionRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      const owner = clientOwner(db)
      return { repo: postgresOnboardingSessionRepository(world), parties: postgresPartyRepository(world), events: postgresWebhookEventRepository(world), owner }
    },
  })
  idempotencyStoreContract({ name: database.name, make: async () => postgresIdempotencyStore((await database.open()).world) })
  loanApplicationRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      const parties = partyMaker(postgresOnboardingSessionRepository(world), clientOwner(db))
      const products = postgresLoanProductRepository(db)
      return {
        repo: postgresLoanApplicationRepository(world),
        loans: postgresLoanRepository(world),
        borrower: async () => {
          const party = await parties()
          return { partyId: party.id, clientId: party.clientId }
        },
        product: async () => {
          const product = contractProduct()
          await right(products.insert(product, productCreatedEvent(freshId(), OPERATOR_CONTEXT, product)))
          return product
        },
      }
    },
  })
  partyRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      return { repo: postgresPartyRepository(world), party: partyMaker(postgresOnboardingSessionRepository(world), clientOwner(db)) }
    },
  })
  testClockRepositoryContract({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      const parties = partyMaker(postgresOnboardingSessionRepository(world), clientOwner(db))
      return { repo: postgresTestClockRepository(world), party: async () => (await parties()).id }
    },
  })
}

/** A loan product for applications to reference (stored by the caller where the store needs it). */
function contractProduct(): LoanProduct {
  const input = {
    name: 'Contract Term Loan',
    currency: 'USD',
    min_amount: 100_000,
    max_amount: 10_000_000,
    min_term_months: 3,
    max_term_months: 36,
    interest_rate_bps: 1199,
    origination_fee_bps: 200,
  }
  return newLoanProduct(input, freshId(), new Date())
}
