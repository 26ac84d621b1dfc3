import { insertEvents } from './event-log.js'
import {
  concurrentUpdate,
  type ConcurrentUpdate,
  type LoanApplication,
  type LoanApplicationRepository,
  type StoreUnavailable,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import { insertBooked } from './loan-writes.js'
import { inPage } from './paging.js'
import type { Database } from './schema.js'
import type { LoanApplicationsTable } from './lending-tables.js'
import { attempt, asStoreUnavailable, asWriteError, query } from './store-errors.js'
import { inTransaction } from './transactions.js'

const toApplication = (row: Selectable<LoanApplicationsTable>): LoanApplication => ({
  id: row.id,
  partyId: row.party_id,
  clientId: row.client_id,
  productId: row.product_id,
  amount: row.amount,
  currency: row.currency,
  termMonths: row.term_months,
  purpose: row.purpose,
  interestRateBps: row.interest_rate_bps,
  originationFeeBps: row.origination_fee_bps,
  status: row.status,
  submittedAt: row.submitted_at,
  decision:
    row.decision === null || row.decided_by === null || row.decided_at === null
      ? null
      : { decision: row.decision, reason: row.decision_reason, decidedBy: row.decided_by, decidedAt: row.decided_at },
  loanId: row.loan_id,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const contentColumns = (a: LoanApplication) => ({
  product_id: a.productId,
  amount: a.amount,
  currency: a.currency,
  term_months: a.termMonths,
  purpose: a.purpose,
  interest_rate_bps: a.interestRateBps,
  origination_fee_bps: a.originationFeeBps,
  status: a.status,
  submitted_at: a.submittedAt,
  decision: a.decision?.decision ?? null,
  decision_reason: a.decision?.reason ?? null,
  decided_by: a.decision?.decidedBy ?? null,
  decided_at: a.decision?.decidedAt ?? null,
  loan_id: a.loanId,
  updated_at: a.updatedAt,
})

/**
 * In one transaction: the version-checked update, then `after`. The update comes first so a
 * concurrent save waits on the row lock and then finds the version gone (ConcurrentUpdate),
 * before it writes anything else; the application's reference to its loan is checked at commit.
 */
const saveWith = (
  db: Kysely<Database>,
  application: LoanApplication,
  after: (trx: Transaction<Database>) => Promise<void>,
): TE.TaskEither<ConcurrentUpdate | StoreUnavailable, LoanApplication> =>
  pipe(
    attempt(
      () =>
        inTransaction(db, async (trx): Promise<E.Either<ConcurrentUpdate, LoanApplication>> => {
          const updated = await trx
            .updateTable('loan_applications')
            .set({ ...contentColumns(application), version: application.version + 1 })
            .where('id', '=', application.id)
            .where('version', '=', application.version)
            .executeTakeFirst()
          if (updated.numUpdatedRows === 0n) return E.left(concurrentUpdate('loan_application'))
          await after(trx)
          return E.right({ ...application, version: application.version + 1 })
        }),
      asStoreUnavailable,
    ),
    TE.chainEitherKW((saved) => saved),
  )

export const postgresLoanApplicationRepository = (db: Kysely<Database>): LoanApplicationRepository => ({
  insert: (a) =>
    attempt(async () => {
      await db
        .insertInto('loan_applications')
        .values({ id: a.id, party_id: a.partyId, client_id: a.clientId, created_at: a.createdAt, version: a.version, ...contentColumns(a) })
        .execute()
    }, asWriteError('loan_application')),

  findById: (id) =>
    query(async () => {
      const row = await db.selectFrom('loan_applications').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? O.none : O.some(toApplication(row))
    }),

  findForParty: (partyId, id) =>
    query(async () => {
      const row = await db.selectFrom('loan_applications').selectAll().where('id', '=', id).where('party_id', '=', partyId).executeTakeFirst()
      return row === undefined ? O.none : O.some(toApplication(row))
    }),

  save: (a, audit, events) =>
    saveWith(db, a, async (trx) => {
      await insertAuditEvent(trx, audit)
      await insertEvents(trx, events)
    }),

  saveApproved: (a, booked, audit, events) =>
    saveWith(db, a, async (trx) => {
      await insertBooked(trx, booked)
      await insertAuditEvent(trx, audit)
      await insertEvents(trx, events)
    }),

  list: (filter, page) =>
    query(async () => {
      let q = db.selectFrom('loan_applications').selectAll()
      if (filter.of === 'party') q = q.where('party_id', '=', filter.partyId)
      if (filter.status !== undefined) q = q.where('status', '=', filter.status)
      return (await inPage(q, page).execute()).map(toApplication)
    }),
})
