import { eventDraft, newLoanProduct, NOT_AUDITED, type EventDraft, type EventLog, type LoanProduct, type LockedLoan, type Payment, type Posting, type World } from '@lendgate/core'
import { inMemoryAchOriginations, inMemoryAuditLog, inMemoryEventLog, inMemoryLoanApplicationRepository, inMemoryPaymentMethodRepository, testId } from '@lendgate/core/testing'
import { expect } from 'chai'
import { pipe } from 'fp-ts/lib/function.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely } from 'kysely'
import { achOriginationsContract, type AchWorldFixtures } from '../../core/src/testing/contracts/ach-originations-contract.js'
import { bankAccountOf, BOOKED_AT, bookingThrough, loanServicingContract, type LoanBorrower, type LoanServicingFixtures } from '../../core/src/testing/contracts/loan-servicing-contract.js'
import { paymentMethodRepositoryContract } from '../../core/src/testing/contracts/payment-method-repository-contract.js'
import { freshId, right, type Implementation } from '../../core/src/testing/contracts/run.js'
import { postgresAchOriginations } from '../src/postgres/ach-originations.js'
import { postgresEventLog } from '../src/postgres/event-log.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresLoanRepository } from '../src/postgres/loan-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresPaymentMethodRepository } from '../src/postgres/payment-method-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { worldDb } from '../src/postgres/worlds.js'
import { testWorlds } from '../src/testing/test-databases.js'
import { clientOwner, partyMaker } from './support/database-fixtures.js'

/** The servicing ports' contract suites, run over every implementation: in memory, embedded, real server. */

/** The seeded Working Capital Term Loan (migration 0009): 1199 bps, 200 bps fee, USD. */
const WORKING_CAPITAL_ID = testId('5b0c1d2e-0001-4a00-8000-000000000001')

const inMemory = async (): Promise<AchWorldFixtures & { readonly eventLog: EventLog; readonly counter: { next: number }; readonly clocked: Set<string> }> => {
  const eventLog = inMemoryEventLog()
  const applications = inMemoryLoanApplicationRepository(inMemoryAuditLog(), () => false, eventLog)
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
  const methods = inMemoryPaymentMethodRepository(applications.loans)
  const counter = { next: 1 }
  const clocked = new Set<string>()
  const parties = { partyOfLoan: (loanId: string) => applications.loans.all().find((l) => l.loan.id === loanId)?.loan.partyId, onClock: (partyId: string) => clocked.has(partyId) }
  return {
    counter,
    clocked,
    loans: applications.loans,
    methods,
    borrower,
    bookedLoan: bookingThrough(applications, product, borrower),
    eventLog,
    originations: inMemoryAchOriginations(applications.loans.allPayments, methods, counter, parties),
  }
}

loanServicingContract({ name: 'in memory', make: inMemory })
requestedAmountRoundTrip({ name: 'in memory', make: inMemory })
eventSequenceAcrossPruning({ name: 'in memory', make: inMemory })
achOriginationsContract({
  name: 'in memory',
  make: async () => {
    const world = await inMemory()
    const setNextTrace = async (next: number) => {
      const was = world.counter.next
      world.counter.next = next
      return was
    }
    // In memory, each world is a store of its own.
    return { ...world, otherWorld: await inMemory(), setNextTrace, putOnClock: async (partyId) => void world.clocked.add(partyId) }
  },
})
paymentMethodRepositoryContract({
  name: 'in memory',
  make: async () => {
    const { methods, bookedLoan } = await inMemory()
    return { repo: methods, bookedLoan }
  },
})

for (const database of testWorlds()) {
  /** The servicing fixtures of the world `world` reaches; `db` reaches the shared tables. */
  const inWorld = async (db: Kysely<Database>, world: Kysely<Database>, worldName: World): Promise<AchWorldFixtures & { readonly eventLog: EventLog }> => {
    const product = O.toNullable(await right(postgresLoanProductRepository(db).findById(WORKING_CAPITAL_ID)))
    if (product === null) throw new Error(`the seeded product ${WORKING_CAPITAL_ID} is missing`)
    const borrower = borrowerMaker(db, world)
    return {
      loans: postgresLoanRepository(world),
      methods: postgresPaymentMethodRepository(world),
      borrower,
      bookedLoan: bookingThrough(postgresLoanApplicationRepository(world), product satisfies LoanProduct, borrower),
      eventLog: postgresEventLog(world, worldName),
      originations: postgresAchOriginations(world),
    }
  }
  const fixtures = async (): Promise<AchWorldFixtures & { readonly eventLog: EventLog }> => {
    const { db, world, worldName } = await database.open()
    return inWorld(db, world, worldName)
  }
  loanServicingContract({ name: database.name, make: fixtures })
  requestedAmountRoundTrip({ name: database.name, make: fixtures })
  eventSequenceAcrossPruning({ name: database.name, make: fixtures })
  achOriginationsContract({
    name: database.name,
    make: async () => {
      const { db, world, worldName } = await database.open()
      return {
        ...(await inWorld(db, world, worldName)),
        // `worldDb` answers `db` itself for the live world.
        otherWorld: worldName === 'live' ? await inWorld(db, worldDb(db, 'test'), 'test') : await inWorld(db, db, 'live'),
        setNextTrace: async (next) => {
          const { next_trace: was } = await world.selectFrom('ach_trace_counter').select('next_trace').executeTakeFirstOrThrow()
          await world.updateTable('ach_trace_counter').set({ next_trace: next }).execute()
          return was
        },
        putOnClock: async (partyId) => {
          const now = new Date()
          await world.insertInto('test_clocks').values({ id: freshId(), party_id: partyId, name: null, frozen_time: now, advancing_to: null, leased_until: null, created_at: now }).execute()
        },
      }
    },
  })
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
 * A loan's events are numbered by the loan's own count (decision 133): pruning the log of every
 * earlier event of the loan does not start its numbers again, which would make a receiver that
 * drops lower sequences drop every later event.
 */
function eventSequenceAcrossPruning(impl: Implementation<LoanServicingFixtures & { readonly eventLog: EventLog }>): void {
  describe(`a loan's event sequence on ${impl.name}`, () => {
    it('numbers 1, 2, then 3 after the first two were pruned, three events of one change in order', async () => {
      const { loans, borrower, bookedLoan, eventLog } = await impl.make()
      const owner = await borrower()
      const { loan } = await bookedLoan({ borrower: owner })
      const events = (n: number) => Array.from({ length: n }, () => eventDraft(freshId(), 'loan.delinquency_changed', { partyId: loan.partyId, loanId: loan.id, resourceId: loan.id }, { loan_id: loan.id }, BOOKED_AT))
      const posting = (locked: O.Option<LockedLoan>, drafts: readonly EventDraft[]): Posting => ({ transactions: [], installments: O.toNullable(locked)!.installments, balance: null, audit: NOT_AUDITED, payments: [], events: drafts })
      const post = (drafts: readonly EventDraft[]) => right(loans.change({ loanId: loan.id }, (locked) => TE.right({ posting: posting(locked, drafts), result: null })))
      const sequences = async () => (await right(eventLog.list(owner, { resourceId: loan.id }, { limit: 100, after: O.none }))).map((e) => e.sequence)
      await post(events(2))
      expect(await sequences()).to.deep.equal([1, 2])
      expect((await right(eventLog.prune(new Date(BOOKED_AT.getTime() + 1), 1_000))).deleted).to.be.at.least(2)
      expect(await sequences()).to.deep.equal([])
      await post(events(3))
      expect(await sequences()).to.deep.equal([3, 4, 5])
    })
  })
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
      await right(methods.insert(method, null))
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
