import {
  concurrentUpdate,
  type BookedLoan,
  type ConcurrentUpdate,
  type LoanApplication,
  type LoanApplicationRepository,
  type LoanRepository,
  type StoreUnavailable,
} from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import { inPage } from './paging.js'
import type { Database, LoanApplicationsTable } from './schema.js'
import { asStoreUnavailable, asWriteError, query } from './store-errors.js'

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

const STALE = Symbol('stale application')

/**
 * In one transaction: the version-checked update, then `after`. The update comes first so a
 * concurrent save waits on the row lock and then finds the version gone (ConcurrentUpdate),
 * before it writes anything else; the application's reference to its loan is checked at commit.
 */
const saveWith = (db: Kysely<Database>, application: LoanApplication, after: (trx: Transaction<Database>) => Promise<void>) =>
  TE.tryCatch(
    () =>
      db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('loan_applications')
          .set({ ...contentColumns(application), version: application.version + 1 })
          .where('id', '=', application.id)
          .where('version', '=', application.version)
          .executeTakeFirst()
        if (updated.numUpdatedRows === 0n) throw STALE
        await after(trx)
        return { ...application, version: application.version + 1 }
      }),
    (error): ConcurrentUpdate | StoreUnavailable => (error === STALE ? concurrentUpdate('loan_application') : asStoreUnavailable(error)),
  )

/** Writes a booked loan: the loan, its schedule, its ledger entries (in order) and its balance. */
const insertBooked = async (trx: Transaction<Database>, booked: BookedLoan): Promise<void> => {
  const { loan, installments, transactions, balance } = booked
  await trx
    .insertInto('loans')
    .values({
      id: loan.id,
      party_id: loan.partyId,
      application_id: loan.applicationId,
      product_id: loan.productId,
      status: loan.status,
      currency: loan.currency,
      principal: loan.principal,
      interest_rate_bps: loan.interestRateBps,
      term_months: loan.termMonths,
      payment_amount: loan.paymentAmount,
      origination_fee: loan.originationFee,
      disbursed_amount: loan.disbursedAmount,
      start_date: loan.startDate,
      first_due_date: loan.firstDueDate,
      maturity_date: loan.maturityDate,
      created_at: loan.createdAt,
    })
    .execute()
  await trx
    .insertInto('loan_installments')
    .values(
      installments.map((i) => ({
        loan_id: i.loanId,
        number: i.number,
        due_date: i.dueDate,
        principal_due: i.principalDue,
        interest_due: i.interestDue,
        fees_due: i.feesDue,
        principal_paid: i.principalPaid,
        interest_paid: i.interestPaid,
        fees_paid: i.feesPaid,
        status: i.status,
      })),
    )
    .execute()
  // One statement per entry so the identity column numbers them in ledger order.
  for (const t of transactions) {
    await trx
      .insertInto('loan_transactions')
      .values({
        id: t.id,
        loan_id: t.loanId,
        type: t.type,
        effective_date: t.effectiveDate,
        amount: t.amount,
        principal: t.principal,
        interest: t.interest,
        fees: t.fees,
        created_at: t.createdAt,
      })
      .execute()
  }
  await trx
    .insertInto('loan_balances')
    .values({
      id: balance.id,
      loan_id: balance.loanId,
      transaction_id: balance.transactionId,
      as_of: balance.asOf,
      principal_outstanding: balance.principalOutstanding,
      interest_outstanding: balance.interestOutstanding,
      fees_outstanding: balance.feesOutstanding,
      payoff_amount: balance.payoffAmount,
      past_due_amount: balance.pastDueAmount,
      next_due_date: balance.nextDueDate,
      next_due_amount: balance.nextDueAmount,
      created_at: balance.createdAt,
    })
    .execute()
}

export const postgresLoanApplicationRepository = (db: Kysely<Database>): LoanApplicationRepository => ({
  insert: (a) =>
    TE.tryCatch(async () => {
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

  save: (a) => saveWith(db, a, async () => undefined),

  saveApproved: (a, booked) => saveWith(db, a, (trx) => insertBooked(trx, booked)),

  list: (filter, page) =>
    query(async () => {
      let q = db.selectFrom('loan_applications').selectAll()
      if (filter.partyId !== undefined) q = q.where('party_id', '=', filter.partyId)
      if (filter.status !== undefined) q = q.where('status', '=', filter.status)
      return (await inPage(q, page).execute()).map(toApplication)
    }),
})

export const postgresLoanRepository = (db: Kysely<Database>): LoanRepository => ({
  findById: (id) =>
    query(async () => {
      const loan = await db.selectFrom('loans').selectAll().where('id', '=', id).executeTakeFirst()
      if (loan === undefined) return O.none
      const [installments, transactions, balance] = await Promise.all([
        db.selectFrom('loan_installments').selectAll().where('loan_id', '=', id).orderBy('number').execute(),
        db.selectFrom('loan_transactions').selectAll().where('loan_id', '=', id).orderBy('seq').execute(),
        db.selectFrom('loan_balances').selectAll().where('loan_id', '=', id).orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow(),
      ])
      const booked: BookedLoan = {
        loan: {
          id: loan.id,
          partyId: loan.party_id,
          applicationId: loan.application_id,
          productId: loan.product_id,
          status: loan.status,
          currency: loan.currency,
          principal: loan.principal,
          interestRateBps: loan.interest_rate_bps,
          termMonths: loan.term_months,
          paymentAmount: loan.payment_amount,
          originationFee: loan.origination_fee,
          disbursedAmount: loan.disbursed_amount,
          startDate: loan.start_date,
          firstDueDate: loan.first_due_date,
          maturityDate: loan.maturity_date,
          createdAt: loan.created_at,
        },
        installments: installments.map((i) => ({
          loanId: i.loan_id,
          number: i.number,
          dueDate: i.due_date,
          principalDue: i.principal_due,
          interestDue: i.interest_due,
          feesDue: i.fees_due,
          principalPaid: i.principal_paid,
          interestPaid: i.interest_paid,
          feesPaid: i.fees_paid,
          status: i.status,
        })),
        transactions: transactions.map((t) => ({
          id: t.id,
          loanId: t.loan_id,
          type: t.type as BookedLoan['transactions'][number]['type'],
          effectiveDate: t.effective_date,
          amount: t.amount,
          principal: t.principal,
          interest: t.interest,
          fees: t.fees,
          createdAt: t.created_at,
        })),
        balance: {
          id: balance.id,
          loanId: balance.loan_id,
          transactionId: balance.transaction_id,
          asOf: balance.as_of,
          principalOutstanding: balance.principal_outstanding,
          interestOutstanding: balance.interest_outstanding,
          feesOutstanding: balance.fees_outstanding,
          payoffAmount: balance.payoff_amount,
          pastDueAmount: balance.past_due_amount,
          nextDueDate: balance.next_due_date,
          nextDueAmount: balance.next_due_amount,
          createdAt: balance.created_at,
        },
      }
      return O.some(booked)
    }),
})
