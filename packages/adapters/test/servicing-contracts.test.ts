import { newLoanProduct, type LoanProduct } from '@lendgate/core'
import { inMemoryLoanApplicationRepository, inMemoryPaymentMethodRepository, testId } from '@lendgate/core/testing'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely } from 'kysely'
import { bookingThrough, loanServicingContract, type LoanBorrower, type LoanServicingFixtures } from '../../core/src/testing/contracts/loan-servicing-contract.js'
import { paymentMethodRepositoryContract } from '../../core/src/testing/contracts/payment-method-repository-contract.js'
import { freshId, right } from '../../core/src/testing/contracts/run.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresLoanRepository } from '../src/postgres/loan-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresPaymentMethodRepository } from '../src/postgres/payment-method-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { testDatabases } from '../src/testing/test-databases.js'
import { clientOwner, partyMaker } from './support/database-fixtures.js'

/** The servicing ports' contract suites, run over every implementation: in memory, embedded, real server. */

/** The seeded Working Capital Term Loan (migration 0009): 1199 bps, 200 bps fee, USD. */
const WORKING_CAPITAL_ID = testId('5b0c1d2e-0001-4a00-8000-000000000001')

const inMemory = async (): Promise<LoanServicingFixtures> => {
  const applications = inMemoryLoanApplicationRepository()
  const product = newLoanProduct(
    {
      name: 'Working Capital Term Loan',
      currency: 'USD',
      min_amount: 500_000,
      max_amount: 25_000_000,
      min_term_months: 6,
      max_term_months: 36,
      interest_rate_bps: 1199,
      origination_fee_bps: 200,
    },
    WORKING_CAPITAL_ID,
    new Date(),
  )
  const borrower = async (): Promise<LoanBorrower> => ({ partyId: freshId(), clientId: freshId() })
  return { loans: applications.loans, methods: inMemoryPaymentMethodRepository(applications.loans), borrower, bookedLoan: bookingThrough(applications, product, borrower) }
}

loanServicingContract({ name: 'in memory', make: inMemory })
paymentMethodRepositoryContract({
  name: 'in memory',
  make: async () => {
    const { methods, bookedLoan } = await inMemory()
    return { repo: methods, bookedLoan }
  },
})

for (const database of testDatabases()) {
  const fixtures = async (): Promise<LoanServicingFixtures> => {
    const { db } = await database.open()
    const product = O.toNullable(await right(postgresLoanProductRepository(db).findById(WORKING_CAPITAL_ID)))
    if (product === null) throw new Error(`the seeded product ${WORKING_CAPITAL_ID} is missing`)
    const borrower = borrowerMaker(db)
    return {
      loans: postgresLoanRepository(db),
      methods: postgresPaymentMethodRepository(db),
      borrower,
      bookedLoan: bookingThrough(postgresLoanApplicationRepository(db), product satisfies LoanProduct, borrower),
    }
  }
  loanServicingContract({ name: database.name, make: fixtures })
  paymentMethodRepositoryContract({
    name: database.name,
    make: async () => {
      const { methods, bookedLoan } = await fixtures()
      return { repo: methods, bookedLoan }
    },
  })
}

/**
 * Stored borrowers: an API client, and a submitted onboarding session approved into a party.
 * Loans reference the party; payments reference the client.
 */
function borrowerMaker(db: Kysely<Database>): () => Promise<LoanBorrower> {
  const owner = clientOwner(db)
  const parties = partyMaker(postgresOnboardingSessionRepository(db), owner)
  return async () => {
    const party = await parties()
    return { partyId: party.id, clientId: party.clientId }
  }
}
