import { newLoanProduct, NOT_AUDITED, type LoanProduct, type LockedLoan, type Payment, type Posting } from '@lendgate/core'
import { inMemoryLoanApplicationRepository, inMemoryPaymentMethodRepository, testId } from '@lendgate/core/testing'
import { expect } from 'chai'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely } from 'kysely'
import { bankAccountOf, BOOKED_AT, bookingThrough, loanServicingContract, type LoanBorrower, type LoanServicingFixtures } from '../../core/src/testing/contracts/loan-servicing-contract.js'
import { paymentMethodRepositoryContract } from '../../core/src/testing/contracts/payment-method-repository-contract.js'
import { freshId, right, type Implementation } from '../../core/src/testing/contracts/run.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresLoanRepository } from '../src/postgres/loan-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresPaymentMethodRepository } from '../src/postgres/payment-method-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { testWorlds } from '../src/testing/test-databases.js'
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
requestedAmountRoundTrip({ name: 'in memory', make: inMemory })
paymentMethodRepositoryContract({
  name: 'in memory',
  make: async () => {
    const { methods, bookedLoan } = await inMemory()
    return { repo: methods, bookedLoan }
  },
})

for (const database of testWorlds()) {
  const fixtures = async (): Promise<LoanServicingFixtures> => {
    const { db, world } = await database.open()
    const product = O.toNullable(await right(postgresLoanProductRepository(db).findById(WORKING_CAPITAL_ID)))
    if (product === null) throw new Error(`the seeded product ${WORKING_CAPITAL_ID} is missing`)
    const borrower = borrowerMaker(db, world)
    return {
      loans: postgresLoanRepository(world),
      methods: postgresPaymentMethodRepository(world),
      borrower,
      bookedLoan: bookingThrough(postgresLoanApplicationRepository(world), product satisfies LoanProduct, borrower),
    }
  }
  loanServicingContract({ name: database.name, make: fixtures })
  requestedAmountRoundTrip({ name: database.name, make: fixtures })
  paymentMethodRepositoryContract({
    name: database.name,
    make: async () => {
      const { methods, bookedLoan } = await fixtures()
      return { repo: methods, bookedLoan }
    },
  })
}

/**
 * Stored borrowers: an API client (shared, through `db`), and a submitted onboarding session
 * approved into a party in the world of `world`. Loans reference the party; payments the client.
 */
function borrowerMaker(db: Kysely<Database>, world: Kysely<Database>): () => Promise<LoanBorrower> {
  const owner = clientOwner(db)
  const parties = partyMaker(postgresOnboardingSessionRepository(world), owner)
  return async () => {
    const party = await parties()
    return { partyId: party.id, clientId: party.clientId }
  }
}

/**
 * A payment keeps what its order asked beside what was charged (decision 125): a final bill settled
 * at the payoff records both; a payment that asked its amount records none (migration 0016's null).
 */
function requestedAmountRoundTrip(impl: Implementation<LoanServicingFixtures>): void {
  describe(`payments' requested amount on ${impl.name}`, () => {
    it('reads back a payment with the amount its order asked, and one without as asking its amount', async () => {
      const { loans, methods, borrower, bookedLoan } = await impl.make()
      const owner = await borrower()
      const { loan } = await bookedLoan({ borrower: owner })
      const method = bankAccountOf(loan.id, BOOKED_AT)
      await right(methods.insert(method))
      const declined = (amount: number): Payment => ({
        id: freshId(),
        loanId: loan.id,
        clientId: owner.clientId,
        idempotencyKey: freshId(),
        paymentMethodId: method.id,
        amount,
        currency: loan.currency,
        status: 'FAILED',
        failureCode: 'card_declined',
        allocation: null,
        perInstallment: [],
        transactionId: null,
        effectiveDate: loan.startDate,
        createdAt: BOOKED_AT,
      })
      const capped: Payment = { ...declined(1_200_000), requestedAmount: 1_212_000 }
      const asked = declined(50_000)
      const writing = (locked: O.Option<LockedLoan>, payments: readonly Payment[]): Posting => ({
        transactions: [],
        installments: O.toNullable(locked)!.installments,
        balance: null,
        audit: NOT_AUDITED,
        payments,
        events: [],
      })
      await right(loans.change({ loanId: loan.id }, (locked) => TE.right({ posting: writing(locked, [capped, asked]), result: null })))
      const read = await right(
        loans.change({ loanId: loan.id }, (locked, reads) =>
          pipe(
            TE.sequenceArray([reads.paymentByKey(owner.clientId, capped.idempotencyKey), reads.paymentById(asked.id)]),
            TE.map((found) => ({ posting: writing(locked, []), result: found })),
          ),
        ),
      )
      expect(read).to.deep.equal([O.some(capped), O.some(asked)])
    })
  })
}
