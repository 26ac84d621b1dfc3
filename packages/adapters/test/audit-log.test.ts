import {
  bookLoan,
  newLoanApplication,
  newLoanProduct,
  NOT_AUDITED,
  OPERATOR,
  partyReady,
  partyView,
  type AuditEvent,
  type LoanApplication,
  type LoanProduct,
} from '@lendgate/core'
import { inMemoryAuditLog, testId } from '@lendgate/core/testing'
import { auditLogContract, freshId, right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql, type Kysely } from 'kysely'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { postgresAuditLog } from '../src/postgres/audit-log.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresLoanRepository } from '../src/postgres/loan-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresPartyRepository } from '../src/postgres/party-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { testDatabases } from '../src/testing/test-databases.js'
import { approvalOf, clientOwner, partyMaker, submittedSession } from './support/database-fixtures.js'

/**
 * The audit log on PostgreSQL (issue 9): the port's contract on every implementation; the
 * table refuses any change to a written row; and every audited write is atomic with its event:
 * when the event cannot be written (here: its id is taken already), the change is not written
 * either.
 */

auditLogContract({ name: 'in memory', make: async () => inMemoryAuditLog() })

/** The seeded Working Capital Term Loan (migration 0009). */
const WORKING_CAPITAL_ID = testId('5b0c1d2e-0001-4a00-8000-000000000001')

const some = async <A>(task: TE.TaskEither<unknown, O.Option<A>>): Promise<A> => {
  const found = await right(task)
  if (O.isNone(found)) throw new Error('expected a row')
  return found.value
}

const isStoreUnavailable = (result: E.Either<{ readonly _tag: string }, unknown>): boolean => E.isLeft(result) && result.left._tag === 'StoreUnavailable'

for (const database of testDatabases()) {
  auditLogContract({ name: database.name, make: async () => postgresAuditLog((await database.open()).db) })

  describe(`the audit_events table on ${database.name}`, () => {
    let db: Kysely<Database>
    before(async () => {
      db = (await database.open()).db
    })

    it('refuses UPDATE, DELETE and TRUNCATE: a written event stays as written', async () => {
      const log = postgresAuditLog(db)
      const partyId = freshId()
      const event: AuditEvent = {
        id: freshId(),
        occurredAt: new Date('2026-03-01T10:00:00.000Z'),
        actor: OPERATOR,
        action: 'onboarding_session.rejected',
        subject: { type: 'onboarding_session', id: freshId() },
        apiClientId: null,
        partyId,
        requestId: null,
        details: { reason: 'x' },
      }
      await right(log.record(event))
      const refusals = [
        db.updateTable('audit_events').set({ request_id: 'rewritten' }).where('id', '=', event.id).execute(),
        db.deleteFrom('audit_events').where('id', '=', event.id).execute(),
        sql`truncate audit_events`.execute(db),
      ]
      for (const attempt of refusals) {
        const error = await attempt.then(() => undefined, (e: unknown) => e)
        expect(String((error as Error | undefined)?.message)).to.match(/audit_events is append-only/)
      }
      expect(await right(log.list({ partyId }, { limit: 10, after: O.none }))).to.deep.equal([event])
    })
  })

  describe(`audited writes on ${database.name}: the change and its event, or neither`, () => {
    let db: Kysely<Database>
    let log: ReturnType<typeof postgresAuditLog>
    before(async () => {
      db = (await database.open()).db
      log = postgresAuditLog(db)
    })

    /** An event whose id is taken: writing it again fails, and must take its change down with it. */
    const taken = async (): Promise<AuditEvent> => {
      const event: AuditEvent = {
        id: freshId(),
        occurredAt: new Date(),
        actor: OPERATOR,
        action: 'loan_product.updated',
        subject: { type: 'loan_product', id: freshId() },
        apiClientId: null,
        partyId: null,
        requestId: null,
        details: {},
      }
      await right(log.record(event))
      return event
    }
    /** A fresh event about `subjectId`. */
    const fresh = (subjectId: string): AuditEvent => ({
      id: freshId(),
      occurredAt: new Date(),
      actor: OPERATOR,
      action: 'api_key.revoked',
      subject: { type: 'api_key', id: subjectId },
      apiClientId: null,
      partyId: null,
      requestId: 'req-1',
      details: {},
    })
    const recordedAbout = async (subjectId: string) => (await right(log.list({ subjectId }, { limit: 10, after: O.none }))).map((e) => e.id)

    it('mint and revoke', async () => {
      const keys = postgresApiKeyRepository(db)
      const record = () => {
        const partyId = freshId()
        const segment = freshId().replace(/-/g, '').slice(0, 16)
        return {
          client: { id: freshId(), partyId, name: 'audit', createdAt: new Date() },
          key: {
            id: freshId(), partyId, idSegment: segment, prefix: `lgk_test_${segment}`, hash: '0'.repeat(64), environment: 'test' as const,
            scopes: ['*'], status: 'active' as const, createdAt: new Date(), revokedAt: null, lastUsedAt: null,
          },
        }
      }
      const failed = record()
      const clash = await taken()
      expect(isStoreUnavailable(await keys.mint(failed, () => clash)())).to.equal(true)
      expect(await right(keys.findByIdSegment(failed.key.idSegment))).to.deep.equal(O.none)

      const minted = await right(keys.mint(record(), (m) => fresh(m.key.id)))
      expect(await recordedAbout(minted.key.id)).to.have.length(1)
      expect(isStoreUnavailable(await keys.revoke(minted.key, minted.key.id, new Date(), () => clash)())).to.equal(true)
      expect((await some(keys.findForClient(minted.key, minted.key.id))).status).to.equal('active')

      const revoke = fresh(minted.key.id)
      await right(keys.revoke(minted.key, minted.key.id, new Date(), () => revoke))
      await right(keys.revoke(minted.key, minted.key.id, new Date(), () => fresh(minted.key.id)))
      expect((await recordedAbout(minted.key.id)).filter((id) => id === revoke.id)).to.deep.equal([revoke.id])
      expect(await recordedAbout(minted.key.id)).to.have.length(2)
    })

    it('onboarding review: save and saveApproved', async () => {
      const sessions = postgresOnboardingSessionRepository(db)
      const owner = clientOwner(db)
      const now = new Date()
      const submitted = submittedSession(await owner(), now)
      await right(sessions.insert(submitted))
      const { approved, party } = approvalOf(submitted, now)
      const clash = await taken()
      expect(isStoreUnavailable(await sessions.saveApproved(approved, party, partyReady(freshId(), submitted.id, partyView(party), now, 'live'), clash)())).to.equal(true)
      expect(isStoreUnavailable(await sessions.save({ ...submitted, status: 'REJECTED' }, clash)())).to.equal(true)
      expect((await some(sessions.findById(submitted.id))).status).to.equal('SUBMITTED')
      expect(await right(postgresPartyRepository(db).findById(party.id))).to.deep.equal(O.none)

      const audit = fresh(submitted.id)
      await right(sessions.saveApproved(approved, party, partyReady(freshId(), submitted.id, partyView(party), now, 'live'), audit))
      expect(await recordedAbout(submitted.id)).to.deep.equal([audit.id])
    })

    it('credit decisions (save, saveApproved), servicing changes, collateral and documents', async () => {
      const applications = postgresLoanApplicationRepository(db)
      const loans = postgresLoanRepository(db)
      const product = await some<LoanProduct>(postgresLoanProductRepository(db).findById(WORKING_CAPITAL_ID))
      const party = await partyMaker(postgresOnboardingSessionRepository(db), clientOwner(db))()
      const now = new Date()
      const draft = newLoanApplication({ product_id: product.id, amount: 1_200_000, currency: 'USD', term_months: 12 }, { partyId: party.id, clientId: party.clientId }, product, freshId(), now)
      await right(applications.insert(draft))
      const submitted = await right(applications.save({ ...draft, status: 'SUBMITTED', submittedAt: now }, NOT_AUDITED, []))
      const booked = bookLoan(submitted, { next: freshId }, now)
      const approved: LoanApplication = {
        ...submitted,
        status: 'APPROVED',
        loanId: booked.loan.id,
        decision: { decision: 'APPROVED', reason: null, decidedBy: 'ops', decidedAt: now },
      }
      const clash = await taken()
      expect(isStoreUnavailable(await applications.saveApproved(approved, booked, clash, [])())).to.equal(true)
      expect(isStoreUnavailable(await applications.save({ ...submitted, status: 'DECLINED' }, clash, [])())).to.equal(true)
      expect((await some(applications.findById(submitted.id))).status).to.equal('SUBMITTED')
      expect(await right(loans.findById(booked.loan.id))).to.deep.equal(O.none)
      await right(applications.saveApproved(approved, booked, fresh(submitted.id), []))
      expect(await recordedAbout(submitted.id)).to.have.length(1)

      const loanId = booked.loan.id
      const closing = loans.change({ loanId }, (found) =>
        O.isNone(found)
          ? TE.left({ _tag: 'NotFound' as const })
          : TE.right({ posting: { transactions: [], installments: found.value.installments, balance: null, payments: [], loanStatus: 'PAID_OFF' as const, audit: clash, events: [] }, result: null }),
      )
      expect(isStoreUnavailable(await closing())).to.equal(true)
      expect((await some(loans.findById(loanId))).loan.status).to.equal('ACTIVE')

      const item = { id: freshId(), loanId, type: 'cash' as const, description: 'Deposit', valuation: 1_000, currency: 'USD', lienPosition: 1, createdAt: now }
      expect(isStoreUnavailable(await loans.addCollateral(item, clash)())).to.equal(true)
      const document = { id: freshId(), loanId, type: 'notice' as const, periodStart: null, periodEnd: null, storageRef: 's3://x', fileName: null, contentType: null, createdAt: now }
      expect(isStoreUnavailable(await loans.addDocument(document, clash)())).to.equal(true)
      const partyId = booked.loan.partyId
      expect(await right(loans.listCollateral(partyId, loanId, { limit: 10, after: O.none }))).to.deep.equal(O.some([]))
      const documents = await right(loans.listDocuments(partyId, loanId, { limit: 10, after: O.none }))
      expect(O.map((listed: readonly { readonly id: string }[]) => listed.map((d) => d.id))(documents)).to.deep.equal(O.some(booked.documents.map((d) => d.id)))

      await right(loans.addCollateral(item, fresh(item.id)))
      await right(loans.addDocument(document, fresh(document.id)))
      expect([...(await recordedAbout(item.id)), ...(await recordedAbout(document.id))]).to.have.length(2)
    })

    it('the product catalogue: insert and update', async () => {
      const products = postgresLoanProductRepository(db)
      const input = { name: 'Audit Term', currency: 'USD', min_amount: 100, max_amount: 1_000, min_term_months: 1, max_term_months: 12, interest_rate_bps: 900 }
      const product = newLoanProduct(input, freshId(), new Date())
      const clash = await taken()
      expect(E.isLeft(await products.insert(product, clash)())).to.equal(true)
      expect(await right(products.findById(product.id))).to.deep.equal(O.none)
      await right(products.insert(product, fresh(product.id)))
      expect(isStoreUnavailable(await products.update({ ...product, interestRateBps: 950 }, clash)())).to.equal(true)
      expect((await some(products.findById(product.id))).interestRateBps).to.equal(900)
      await right(products.update({ ...product, interestRateBps: 950 }, fresh(product.id)))
      expect(await recordedAbout(product.id)).to.have.length(2)
    })
  })
}
