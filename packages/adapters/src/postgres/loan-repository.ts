import { DELINQUENCY_DAYS, latestOf, type LoanPage, POSTED_PAYMENT_STATUSES, type BookTime, type BookedLoan, type Change, type ChangeReads, type StoreUnavailable, type LoanKey, type LoanRepository, type LockedLoan, type PaymentReads, type PostedBalance, type PostedTransaction, type ServicedInstallment, type LoanId, type PartyId } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { sql, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import { postgresAutopaySettings } from './loan-autopay.js'
import { documentColumns, LEVEL_PAYMENT, LOAN_SUMMARY_COLUMNS, toBalance, toCollateral, toDocument, toInstallment, toLoan, toLoanSummary, toPayment, toRequest, toTransaction, withoutSequence } from './loan-rows.js'
import { writePosting, writePostings, type LoanPosting } from './loan-writes.js'
import { ofPartyLoan, pageOfPartyLoan, recordsOf } from './of-party-loan.js'
import { inPage, inSequencePage } from './paging.js'
import type { Database } from './schema.js'
import type { LoanBalancesTable, LoanInstallmentsTable, LoanTransactionsTable } from './lending-tables.js'
import { attempt, asStoreUnavailable, query } from './store-errors.js'
import { inTransaction } from './transactions.js'

/**
 * A loan row's days past due at the instant `now`, in SQL, as `daysPastDue` counts them: from its
 * oldest unpaid due date to its today (the date of `now` in its time zone; its charge-off date if
 * earlier), never below 0.
 */
const daysPastDueAt = (instant: RawBuilder<Date>) =>
  sql<number>`coalesce(greatest(0, least((${instant} at time zone time_zone)::date, coalesce(charged_off_on, 'infinity'::date)) - oldest_unpaid_due_date), 0)`

/** `instant` as a SQL timestamp. */
const timestamp = (instant: Date) => sql<Date>`${instant.toISOString()}::timestamptz`

/**
 * The instant each row of `loans` is judged at: the book's now, or its party's time, the party
 * times passed as one JSON object by party id, which each row looks up by its key (in the live
 * world there are none and this is a constant).
 */
const instantOfLoan = (time: BookTime) =>
  time.partyTimes.length === 0
    ? timestamp(time.now)
    : sql<Date>`coalesce((${JSON.stringify(Object.fromEntries(time.partyTimes.map((p) => [p.partyId, p.now.toISOString()])))}::jsonb ->> loans.party_id::text)::timestamptz, ${timestamp(time.now)})`

/** A loan's key in `oldest_unpaid_due_date` order, as indexed (migration 0033): its oldest unpaid due date, none after every date. */
const UNPAID_KEY = sql<string>`coalesce(oldest_unpaid_due_date, 'infinity'::date)`

/** `query` (of `loans`) limited to `page` in its order (`LOAN_SORTS`), each served by an index. */
const inLoanOrder = <QB extends SelectQueryBuilder<Database, 'loans', any>>(query: QB, page: LoanPage): QB => {
  switch (page.sort) {
    case 'created_at':
      return inPage(query, page)
    case 'oldest_unpaid_due_date': {
      const after = O.isSome(page.after) ? query.where(sql<SqlBool>`(${UNPAID_KEY}, id) > (${page.after.value.oldestUnpaidDueDate ?? 'infinity'}::date, ${page.after.value.id})`) : query
      return after.orderBy(UNPAID_KEY).orderBy('id').limit(page.limit + 1) as QB
    }
    case '-principal': {
      const after = O.isSome(page.after) ? query.where(sql<SqlBool>`(principal, id) < (${page.after.value.principal}, ${page.after.value.id})`) : query
      return after.orderBy('principal', 'desc').orderBy('id', 'desc').limit(page.limit + 1) as QB
    }
  }
}

/** A loan's latest balance snapshot: read by the balance routes, and under the loan's lock by a change. */
const latestBalanceOf = (db: Kysely<Database>, loanId: LoanId) =>
  db.selectFrom('loan_balances').selectAll().where('loan_id', '=', loanId).orderBy('seq', 'desc').limit(1)

/**
 * A loan's posted payments in the order the replay takes them: by effective date, then in the
 * order of their `PAYMENT` entries in the ledger (the partial index `payments_loan_posted_idx`
 * finds them).
 */
const postedPayments = (db: Kysely<Database>, loanId: LoanId) =>
  db
    .selectFrom('payments')
    .innerJoin('loan_transactions as entry', 'entry.id', 'payments.transaction_id')
    .selectAll('payments')
    .where('payments.loan_id', '=', loanId)
    .where('payments.status', 'in', POSTED_PAYMENT_STATUSES)
    .orderBy('payments.effective_date')
    .orderBy('entry.seq')

/** A loan's `RETURNED` payments that charged a fee, by the day returned, then in the order taken (a loan's payments by `payments_loan_position_idx`). */
const returnedWithFee = (db: Kysely<Database>, loanId: LoanId) =>
  db.selectFrom('payments').selectAll().where('loan_id', '=', loanId).where('status', '=', 'RETURNED').where('return_fee', '>', 0).orderBy('returned_on').orderBy('created_at').orderBy('id')

/** A loan's `PENDING` payments in the order taken (`payments_loan_pending_idx`). */
const pendingPayments = (db: Kysely<Database>, loanId: LoanId) =>
  db.selectFrom('payments').selectAll().where('loan_id', '=', loanId).where('status', '=', 'PENDING').orderBy('created_at').orderBy('id')

/** `column` is one of `ids`, as one array parameter (the same statement text however many). */
const oneOf = (column: string, ids: readonly LoanId[]) => sql<SqlBool>`${sql.ref(column)} = any(${[...ids]}::uuid[])`

/**
 * Loans `loanIds` with their schedules, latest balances and the sums of their `PENDING`
 * payments, their rows locked (in id order) until `trx` ends; a loan unknown, or not `partyId`'s
 * when it is given (left unlocked), is not in the answer. What follows the lock is read by
 * statements after it (a statement per kind for all the loans): a statement sees what was
 * committed when it began, so the locking one, which may wait, would not see what the holder it
 * waited for wrote (a payment recorded `PENDING` changes no loan row).
 */
const readLocked = async (trx: Transaction<Database>, loanIds: readonly LoanId[], partyId?: PartyId): Promise<ReadonlyMap<LoanId, LockedLoan>> => {
  let locking = trx.selectFrom('loans').selectAll().where(oneOf('id', loanIds))
  if (partyId !== undefined) locking = locking.where('party_id', '=', partyId)
  const loans = await locking.orderBy('id').forUpdate().execute()
  if (loans.length === 0) return new Map()
  const locked = loans.map((l) => l.id)
  const [installments, latest] = await Promise.all([
    trx.selectFrom('loan_installments').selectAll().where(oneOf('loan_id', locked)).orderBy('loan_id').orderBy('number').execute(),
    trx
      .selectFrom('loans as l')
      .innerJoinLateral((eb) => eb.selectFrom('loan_balances as b').selectAll('b').whereRef('b.loan_id', '=', 'l.id').orderBy('b.seq', 'desc').limit(1).as('latest'), (join) => join.onTrue())
      .selectAll('latest')
      .select((eb) =>
        eb.selectFrom('payments').select(sql<string>`coalesce(sum(amount), 0)`.as('total')).whereRef('payments.loan_id', '=', 'l.id').where('payments.status', '=', 'PENDING').as('pending_amount'),
      )
      .where(oneOf('l.id', locked))
      .execute(),
  ])
  const schedules = new Map<LoanId, ServicedInstallment[]>(locked.map((id) => [id, []]))
  for (const row of installments) schedules.get(row.loan_id)?.push(toInstallment(row))
  const balances = new Map(latest.map(({ pending_amount, ...balance }) => [balance.loan_id, { balance, pendingAmount: Number(pending_amount) }]))
  return new Map(
    loans.map((loan): [LoanId, LockedLoan] => {
      const found = balances.get(loan.id)
      if (found === undefined) throw new Error(`loan ${loan.id} has no balance snapshot`)
      return [loan.id, { loan: toLoan(loan), installments: schedules.get(loan.id) ?? [], latest: withoutSequence(toBalance(found.balance)), pendingAmount: found.pendingAmount }]
    }),
  )
}

/** Payment reads on `db`, or on a transaction to read inside it. */
const paymentReads = (db: Kysely<Database>): PaymentReads => ({
  paymentByKey: (clientId, key) =>
    query(async () => {
      const row = await db.selectFrom('payments').selectAll().where('client_id', '=', clientId).where('idempotency_key', '=', key).executeTakeFirst()
      return row === undefined ? O.none : O.some(toPayment(row))
    }),
  paymentById: (id) =>
    query(async () => {
      const row = await db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? O.none : O.some(toPayment(row))
    }),
  posted: (loanId) => query(async () => (await postedPayments(db, loanId).execute()).map(toPayment)),
  pending: (loanId) => query(async () => (await pendingPayments(db, loanId).execute()).map(toPayment)),
  returnedWithFee: (loanId) => query(async () => (await returnedWithFee(db, loanId).execute()).map(toPayment)),
})

/** What a change reads under the loan's lock (`ChangeReads`), in its transaction. */
const changeReads = (trx: Transaction<Database>): ChangeReads => ({
  ...paymentReads(trx),
  requests: (loanId) =>
    query(async () => (await trx.selectFrom('operator_requests').selectAll().where('loan_id', '=', loanId).orderBy('created_at').orderBy('id').execute()).map(toRequest)),
})

/**
 * `change` (`write`) or `dryRun` (not): in one transaction, the loan locked and read, `decide`
 * run on it, and its posting written or not; answers what `decide` decided.
 */
const underLock = <E, A>(
  db: Kysely<Database>,
  key: LoanKey,
  decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<E, Change<A>>,
  write: boolean,
): TE.TaskEither<E | StoreUnavailable, Change<A>> =>
  pipe(
    attempt(
      () =>
        inTransaction(db, async (trx) => {
          const state = O.fromNullable((await readLocked(trx, [key.loanId], key.partyId)).get(key.loanId))
          const outcome = await decide(state, changeReads(trx))()
          if (E.isLeft(outcome)) return outcome
          if (write && O.isSome(state)) await writePosting(trx, key.loanId, state.value.installments, outcome.right.posting)
          return outcome
        }),
      asStoreUnavailable,
    ),
    TE.chainEitherKW((outcome) => outcome),
  )

/** `changeMany`: the loans locked and read together, `decide` run on each, every posting decided written in one statement. */
const changeMany = <Er extends { readonly _tag: string }, A>(
  db: Kysely<Database>,
  loanIds: readonly LoanId[],
  decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<Er | StoreUnavailable, Change<A>>,
): TE.TaskEither<StoreUnavailable, ReadonlyMap<LoanId, E.Either<Exclude<Er, StoreUnavailable>, A>>> =>
  pipe(
    attempt(
      () =>
        inTransaction(db, async (trx): Promise<E.Either<StoreUnavailable, ReadonlyMap<LoanId, E.Either<Exclude<Er, StoreUnavailable>, A>>>> => {
          const locked = await readLocked(trx, loanIds)
          const reads = changeReads(trx)
          // A loan named twice is decided once: two postings of one loan in one statement would write it twice.
          const answers = new Map<LoanId, E.Either<Exclude<Er, StoreUnavailable>, A>>()
          const postings: LoanPosting[] = []
          for (const loanId of new Set(loanIds)) {
            const state = O.fromNullable(locked.get(loanId))
            const outcome = await decide(state, reads)()
            if (E.isLeft(outcome)) {
              if (outcome.left._tag === 'StoreUnavailable') return E.left(outcome.left as StoreUnavailable)
              answers.set(loanId, E.left(outcome.left as Exclude<Er, StoreUnavailable>))
              continue
            }
            if (O.isSome(state)) postings.push({ loanId, before: state.value.installments, posting: outcome.right.posting })
            answers.set(loanId, E.right(outcome.right.result))
          }
          await writePostings(trx, postings)
          return E.right(answers)
        }),
      asStoreUnavailable,
    ),
    TE.chainEitherKW((outcome) => outcome),
  )

export const postgresLoanRepository = (db: Kysely<Database>): LoanRepository => {
  return {
    findById: (id) =>
      query(async () => {
        const loan = await db.selectFrom('loans').selectAll().where('id', '=', id).executeTakeFirst()
        if (loan === undefined) return O.none
        const [installments, transactions, balance, documents] = await Promise.all([
          db.selectFrom('loan_installments').selectAll().where('loan_id', '=', id).orderBy('number').execute(),
          db.selectFrom('loan_transactions').selectAll().where('loan_id', '=', id).orderBy('seq').execute(),
          db.selectFrom('loan_balances').selectAll().where('loan_id', '=', id).orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow(),
          db.selectFrom('loan_documents').selectAll().where('loan_id', '=', id).orderBy('created_at').orderBy('id').execute(),
        ])
        const booked: BookedLoan = {
          loan: toLoan(loan),
          installments: installments.map(toInstallment),
          transactions: transactions.map((t) => withoutSequence(toTransaction(t))),
          balance: withoutSequence(toBalance(balance)),
          documents: documents.map(toDocument),
        }
        return O.some(booked)
      }),

    find: (id) =>
      query(async () => {
        const row = await db.selectFrom('loans').selectAll().where('id', '=', id).executeTakeFirst()
        return row === undefined ? O.none : O.some(toLoan(row))
      }),

    findForParty: (partyId, id) =>
      query(async () => {
        const row = await db.selectFrom('loans').selectAll().where('id', '=', id).where('party_id', '=', partyId).executeTakeFirst()
        return row === undefined ? O.none : O.some(toLoan(row))
      }),

    list: (filter, page) =>
      query(async () => {
        let q = db.selectFrom('loans').select([...LOAN_SUMMARY_COLUMNS, LEVEL_PAYMENT])
        if (filter.partyId !== undefined) q = q.where('party_id', '=', filter.partyId)
        if (filter.of === 'book' && filter.status !== undefined) q = q.where('status', '=', filter.status)
        if (filter.delinquency !== undefined) {
          const [instant, latest] = filter.of === 'party' ? [timestamp(filter.now), filter.now] : [instantOfLoan(filter.time), latestOf(filter.time)]
          const { least, most } = DELINQUENCY_DAYS[filter.delinquency]
          const days = daysPastDueAt(instant)
          if (filter.of === 'book') q = q.where('status', '=', 'ACTIVE')
          q = q.where(days, '>=', least)
          // What the index can use: no loan's today is more than a day past the UTC date of the latest instant (UTC+14).
          if (least > 0) q = q.where(UNPAID_KEY, '<=', sql<string>`(${latest.toISOString()}::timestamptz at time zone 'UTC')::date + ${1 - least}::int`)
          if (most !== null) q = q.where(days, '<=', most)
        }
        return (await inLoanOrder(q, page).execute()).map(toLoanSummary)
      }),

    delinquencyCounts: (time) =>
      query(async () => {
        const rows = await db
          .selectFrom('loans')
          .innerJoinLateral(
            (eb) => eb.selectFrom('loan_balances as b').select(['b.principal_outstanding', 'b.past_due_amount']).whereRef('b.loan_id', '=', 'loans.id').orderBy('b.seq', 'desc').limit(1).as('latest'),
            (join) => join.onTrue(),
          )
          .select([
            'loans.currency',
            daysPastDueAt(instantOfLoan(time)).as('days_past_due'),
            sql<number>`count(*)`.as('loans'),
            sql<number>`sum(latest.principal_outstanding)::bigint`.as('principal_outstanding'),
            sql<number>`sum(latest.past_due_amount)::bigint`.as('past_due_amount'),
          ])
          .where('loans.status', '=', 'ACTIVE')
          .groupBy(['loans.currency', sql`days_past_due`])
          .execute()
        return rows.map((r) => ({ currency: r.currency, daysPastDue: r.days_past_due, loans: r.loans, principalOutstanding: r.principal_outstanding, pastDueAmount: r.past_due_amount }))
      }),

    // One repeatable-read transaction: the loan (with its checkpoint) and its snapshot as of one moment,
    // even while a change commits in between.
    servicing: (partyId, loanId) =>
      query(() =>
        db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute(async (trx) => {
            const loan = await trx.selectFrom('loans').selectAll().where('id', '=', loanId).where('party_id', '=', partyId).executeTakeFirst()
            if (loan === undefined) return O.none
            const latest = await latestBalanceOf(trx, loanId).executeTakeFirstOrThrow()
            return O.some({ loan: toLoan(loan), latest: toBalance(latest) })
          }),
      ),

    listTransactions: (partyId, loanId, filter, page) =>
      query(async () => {
        const rows = await ofPartyLoan(db, partyId, loanId)
          .leftJoinLateral(
            (eb) => {
              let q = eb.selectFrom('loan_transactions as t').selectAll('t').whereRef('t.loan_id', '=', 'l.id')
              if (filter.type !== undefined) q = q.where('t.type', '=', filter.type)
              if (filter.from !== undefined) q = q.where('t.effective_date', '>=', filter.from)
              if (filter.to !== undefined) q = q.where('t.effective_date', '<=', filter.to)
              return inSequencePage(q, page).as('r')
            },
            (join) => join.onTrue(),
          )
          .selectAll('r')
          .select('l.currency as loan_currency')
          .orderBy('r.created_at')
          .orderBy('r.seq')
          .execute()
        return pipe(
          recordsOf<Selectable<LoanTransactionsTable>, PostedTransaction>(rows, 'id', toTransaction),
          O.map((transactions) => ({ currency: rows[0]!.loan_currency, transactions })),
        )
      }),

    listBalances: (partyId, loanId, page) =>
      query(async () => {
        const rows = await ofPartyLoan(db, partyId, loanId)
          .leftJoinLateral((eb) => inSequencePage(eb.selectFrom('loan_balances as b').selectAll('b').whereRef('b.loan_id', '=', 'l.id'), page).as('r'), (join) => join.onTrue())
          .selectAll('r')
          .select('l.currency as loan_currency')
          .orderBy('r.created_at')
          .orderBy('r.seq')
          .execute()
        return pipe(
          recordsOf<Selectable<LoanBalancesTable>, PostedBalance>(rows, 'id', toBalance),
          O.map((balances) => ({ currency: rows[0]!.loan_currency, balances })),
        )
      }),

    latestBalanceForParty: (partyId, loanId) =>
      query(async () => {
        // The latest snapshot, only if the loan is the party's.
        const row = await latestBalanceOf(db, loanId)
          .where('loan_id', 'in', db.selectFrom('loans').select('id').where('id', '=', loanId).where('party_id', '=', partyId))
          .executeTakeFirst()
        return row === undefined ? O.none : O.some(toBalance(row))
      }),

    // A Left from `change` is rolled back and returned as it is.
    change: (key, decide) => pipe(underLock(db, key, decide, true), TE.map(({ result }) => result)),
    dryRun: (key, decide) => underLock(db, key, decide, false),

    changeMany: (loanIds, decide) => changeMany(db, loanIds, decide),

    findRequest: (id) =>
      query(async () => {
        const row = await db.selectFrom('operator_requests').selectAll().where('id', '=', id).executeTakeFirst()
        return row === undefined ? O.none : O.some(toRequest(row))
      }),

    listRequests: (filter, page) =>
      query(async () => {
        let q = db.selectFrom('operator_requests').selectAll()
        if (filter.state !== undefined) q = q.where('state', '=', filter.state)
        return (await inPage(q, page).execute()).map(toRequest)
      }),

    activeLoanIds: (afterId, limit) =>
      query(async () => {
        // A loan of a party on a test clock moves only with its clock (decision 131).
        let q = db
          .selectFrom('loans')
          .select('id')
          .where('status', '=', 'ACTIVE')
          .where(({ not, exists, selectFrom }) => not(exists(selectFrom('test_clocks').select('test_clocks.id').whereRef('test_clocks.party_id', '=', 'loans.party_id'))))
        if (afterId !== null) q = q.where('id', '>', afterId)
        return (await q.orderBy('id').limit(limit).execute()).map((r) => r.id)
      }),

    payments: paymentReads(db),
    autopay: postgresAutopaySettings(db),

    addCollateral: (c, audit) =>
      query(() =>
        db.transaction().execute(async (trx) => {
          await trx
            .insertInto('collateral_items')
            .values({
              id: c.id,
              loan_id: c.loanId,
              type: c.type,
              description: c.description,
              valuation: c.valuation,
              currency: c.currency,
              lien_position: c.lienPosition,
              created_at: c.createdAt,
            })
            .execute()
          await insertAuditEvent(trx, audit)
        }),
      ),

    listPayments: (partyId, loanId, page) => query(() => pageOfPartyLoan(db, partyId, loanId, 'payments', page, toPayment)),

    listCollateral: (partyId, loanId, page) => query(() => pageOfPartyLoan(db, partyId, loanId, 'collateral_items', page, toCollateral)),

    addDocument: (d, audit) =>
      query(() =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('loan_documents').values(documentColumns(d)).execute()
          await insertAuditEvent(trx, audit)
        }),
      ),

    listDocuments: (partyId, loanId, page) => query(() => pageOfPartyLoan(db, partyId, loanId, 'loan_documents', page, toDocument)),
  }
}
