import { inMemoryJobLeases } from '@lendgate/core/testing'
import { jobLeasesContract } from '@lendgate/core/testing/contracts'
import { postgresJobLeases } from '../src/postgres/job-leases.js'
import { testDatabases } from '../src/testing/test-databases.js'

/** Job leases (issue 38): their contract over every implementation. */

jobLeasesContract({ name: 'in memory', make: async () => inMemoryJobLeases() })

for (const database of testDatabases()) {
  jobLeasesContract({ name: database.name, make: async () => postgresJobLeases((await database.open()).db) })
}
