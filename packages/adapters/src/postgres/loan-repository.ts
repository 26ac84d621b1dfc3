import type {
  BookedLoan,
  CollateralItem,
  LedgerTransaction,
  Loan,
  LoanDocument,
  LoanRepository,
  LockedLoan,
  Payment,
  PaymentReads,
  PostedBalance,
  PostedTransaction,
  Posting,
  ServicedInstallment,
  TransactionType,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { sql, type Kysely, type OperationNodeSource, type Selectable, type Transaction } from 'kysely'
import { auditEventColumns, insertAuditEvent } from './audit-log.js'
import { ofPartyLoan, pageOfPartyLoan, recordsOf } from './of-party-loan.js'
import { inPage, inSequencePage } from './paging.js'
import type {
  CollateralItemsTable,
  Database,
  LoanBalancesTable,
  LoanDocumentsTable,
  LoanInstallmentsTable,
  LoansTable,
  LoanTransactionsTable,
  PaymentsTable,
} from './schema.js'
import { attempt, asStoreUnavailable, query } from './store-errors.js'
import { inTransaction } from './transactions.js'

const toLoan = (row: Selectable<LoansTable>): Loan => ({
  id: row.id,
  partyId: row.party_id,
  applicationId: row.application_id,
  productId: row.product_id,
  status: row.status,
  currency: row.currency,
  principal: row.principal,
  interestRateBps: row.interest_rate_bps,
  termMonths: row.term_months,
  paymentAmount: row.payment_amount,
  originationFee: row.origination_fee,
  disbursedAmount: row.disbursed_amount,
  startDate: row.start_date,
  firstDueDate: row.first_due_date,
  maturityDate: row.maturity_date,
  createdAt: row.created_at,
})

const toInstallment = (row: Selectable<LoanInstallmentsTable>): ServicedInstallment => ({
  loanId: row.loan_id,
  number: row.number,
  dueDate: row.due_date,
  principalDue: row.principal_due,
  interestDue: row.interest_due,
  feesDue: row.fees_due,
  principalPaid: row.principal_paid,
  interestPaid: row.interest_paid,
  feesPaid: row.fees_paid,
  interestAccrued: row.interest_accrued,
})

const toTransaction = (row: Selectable<LoanTransactionsTable>): PostedTransaction => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type as TransactionType,
  effectiveDate: row.effective_date,
  amount: row.amount,
  principal: row.principal,
  interest: row.interest,
  fees: row.fees,
  paymentId: row.payment_id,
  reversesId: row.reverses_id,
  createdAt: row.created_at,
  sequence: row.seq,
})

const toBalance = (row: Selectable<LoanBalancesTable>): PostedBalance => ({
  id: row.id,
  loanId: row.loan_id,
  transactionId: row.transaction_id,
  asOf: row.as_of,
  principalOutstanding: row.principal_outstanding,
  interestOutstanding: row.interest_outstanding,
  feesOutstanding: row.fees_outstanding,
  payoffAmount: row.payoff_amount,
  pastDueAmount: row.past_due_amount,
  nextDueDate: row.next_due_date,
  nextDueAmount: row.next_due_amount,
  createdAt: row.created_at,
  sequence: row.seq,
})

const json = <A>(value: unknown): A => (typeof value === 'string' ? JSON.parse(value) : value) as A

const toPayment = (row: Selectable<PaymentsTable>): Payment => ({
  id: row.id,
  loanId: row.loan_id,
  clientId: row.client_id,
  idempotencyKey: row.idempotency_key,
  paymentMethodId: row.payment_method_id,
  amount: row.amount,
  currency: row.currency,
  status: row.status,
  failureCode: row.failure_code,
  allocation: row.allocation === null ? null : json(row.allocation),
  perInstallment: json(row.per_installment),
  transactionId: row.transaction_id,
  effectiveDate: row.effective_date,
  createdAt: row.created_at,
})

const toCollateral = (row: Selectable<CollateralItemsTable>): CollateralItem => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type as CollateralItem['type'],
  description: row.description,
  valuation: row.valuation,
  currency: row.currency,
  lienPosition: row.lien_position,
  createdAt: row.created_at,
})

const toDocument = (row: Selectable<LoanDocumentsTable>): LoanDocument => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type as LoanDocument['type'],
  periodStart: row.period_start,
  periodEnd: row.period_end,
  storageRef: row.storage_ref,
  fileName: row.file_name,
  contentType: row.content_type,
  createdAt: row.created_at,
})

const withoutSequence = <A extends { readonly sequence: number }>({ sequence: _sequence, ...rest }: A): Omit<A, 'sequence'> => rest

const installmentColumns = (i: ServicedInstallment) => ({
  loan_id: i.loanId,
  number: i.number,
  due_date: i.dueDate,
  principal_due: i.principalDue,
  interest_due: i.interestDue,
  fees_due: i.feesDue,
  principal_paid: i.principalPaid,
  interest_paid: i.interestPaid,
  fees_paid: i.feesPaid,
  interest_accrued: i.interestAccrued,
})

const transactionColumns = (t: LedgerTransaction) => ({
  id: t.id,
  loan_id: t.loanId,
  type: t.type,
  effective_date: t.effectiveDate,
  amount: t.amount,
  principal: t.principal,
  interest: t.interest,
  fees: t.fees,
  payment_id: t.paymentId,
  reverses_id: t.reversesId,
  created_at: t.createdAt,
})

const balanceColumns = (balance: BookedLoan['balance']) => ({
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

const documentColumns = (d: LoanDocument) => ({
  id: d.id,
  loan_id: d.loanId,
  type: d.type,
  period_start: d.periodStart,
  period_end: d.periodEnd,
  storage_ref: d.storageRef,
  file_name: d.fileName,
  content_type: d.contentType,
  created_at: d.createdAt,
})

/** One write of a booking or a posting: a data-modifying statement, named to be a CTE of the statement that carries them all. */
type LoanWrite = { readonly name: string; readonly query: OperationNodeSource }

const write = (name: string, query: OperationNodeSource): LoanWrite => ({ name, query })

/**
 * The ledger entries, each a write that inserts by selecting from the one before it. PostgreSQL
 * runs the CTEs of one statement in no set order, but an insert that reads the previous
 * entry's output runs after it, so the identity column still numbers the entries in ledger
 * order.
 */
const entryWrites = (trx: Transaction<Database>, transactions: readonly LedgerTransaction[]): LoanWrite[] =>
  transactions.map((t, k): LoanWrite => {
    const columns = transactionColumns(t)
    if (k === 0) return write('entry_0', trx.insertInto('loan_transactions').values(columns).returning('id'))
    const names = Object.keys(columns) as (keyof typeof columns)[]
    const values = sql.join(names.map((name) => sql`${columns[name]}`))
    return write(
      `entry_${k}`,
      trx
        .insertInto('loan_transactions')
        .columns(names)
        .expression(sql`select ${values} from ${sql.table(`entry_${k - 1}`)}`)
        .returning('id'),
    )
  })

/**
 * Runs writes as one statement, each a data-modifying CTE: one round trip, however many rows.
 * Foreign keys are checked at the end of the statement, so a row may reference another written
 * in the same statement; no two writes may touch the same row.
 */
const writeTogether = async (trx: Transaction<Database>, writes: readonly LoanWrite[]): Promise<void> => {
  if (writes.length === 0) return
  await sql`with ${sql.join(writes.map(({ name, query }) => sql`${sql.table(name)} as (${query})`))} select 1`.execute(trx)
}

/** Writes a booked loan in one statement: the loan, its schedule, its ledger entries (in order), its balance and documents. */
export const insertBooked = async (trx: Transaction<Database>, booked: BookedLoan): Promise<void> => {
  const { loan } = booked
  const loanColumns = {
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
  }
  const writes: LoanWrite[] = [
    write('loan', trx.insertInto('loans').values(loanColumns).returning('id')),
    write('schedule', trx.insertInto('loan_installments').values(booked.installments.map(installmentColumns)).returning('number')),
    ...entryWrites(trx, booked.transactions),
    write('snapshot', trx.insertInto('loan_balances').values(balanceColumns(booked.balance)).returning('id')),
  ]
  if (booked.documents.length > 0) {
    writes.push(write('documents', trx.insertInto('loan_documents').values(booked.documents.map(documentColumns)).returning('id')))
  }
  await writeTogether(trx, writes)
}

const paymentColumns = (p: Payment) => ({
  id: p.id,
  loan_id: p.loanId,
  client_id: p.clientId,
  idempotency_key: p.idempotencyKey,
  payment_method_id: p.paymentMethodId,
  amount: p.amount,
  currency: p.currency,
  status: p.status,
  failure_code: p.failureCode,
  allocation: p.allocation === null ? null : JSON.stringify(p.allocation),
  per_installment: JSON.stringify(p.perInstallment),
  transaction_id: p.transactionId,
  effective_date: p.effectiveDate,
  created_at: p.createdAt,
})

/** Whether an installment's stored columns are unchanged, column by column (each a number, a string or a boolean). */
const sameInstallment = (a: ServicedInstallment, b: ServicedInstallment): boolean => {
  const before = installmentColumns(a)
  const after = installmentColumns(b)
  return (Object.keys(before) as (keyof typeof before)[]).every((column) => before[column] === after[column])
}

/**
 * Writes a posting in one statement, each write a data-modifying CTE: the payment, the ledger
 * entries (in order, see entryWrites), the installments that changed, the snapshot, the loan's
 * status and the audit event: one round trip under the loan's lock instead of one per row.
 */
const writePosting = async (trx: Transaction<Database>, loanId: string, before: readonly ServicedInstallment[], posting: Posting): Promise<void> => {
  const writes: LoanWrite[] = []
  if (posting.payment !== undefined) {
    const columns = paymentColumns(posting.payment)
    writes.push(
      write(
        'payment',
        trx
          .insertInto('payments')
          .values(columns)
          .onConflict((oc) =>
            oc.column('id').doUpdateSet({
              status: columns.status,
              failure_code: columns.failure_code,
              allocation: columns.allocation,
              per_installment: columns.per_installment,
              transaction_id: columns.transaction_id,
            }),
          )
          .returning('id'),
      ),
    )
  }
  writes.push(...entryWrites(trx, posting.transactions))
  const previous = new Map(before.map((i) => [i.number, i]))
  for (const i of posting.installments) {
    const old = previous.get(i.number)
    if (old !== undefined && sameInstallment(old, i)) continue
    const { loan_id, number, ...changes } = installmentColumns(i)
    writes.push(write(`installment_${number}`, trx.updateTable('loan_installments').set(changes).where('loan_id', '=', loan_id).where('number', '=', number).returning('number')))
  }
  if (posting.balance !== null) writes.push(write('snapshot', trx.insertInto('loan_balances').values(balanceColumns(posting.balance)).returning('id')))
  if (posting.loanStatus !== undefined) {
    writes.push(write('loan', trx.updateTable('loans').set({ status: posting.loanStatus }).where('id', '=', loanId).returning('id')))
  }
  if (posting.audit !== null) writes.push(write('audit', trx.insertInto('audit_events').values(auditEventColumns(posting.audit)).returning('id')))
  await writeTogether(trx, writes)
}

/** A loan's latest balance snapshot: read by the balance routes, and under the loan's lock by a change. */
const latestBalanceOf = (db: Kysely<Database>, loanId: string) =>
  db.selectFrom('loan_balances').selectAll().where('loan_id', '=', loanId).orderBy('seq', 'desc').limit(1)

/** The loan, its installments and its latest balance, the loan's row locked until `trx` ends; none for an unknown loan. */
const readLocked = async (trx: Transaction<Database>, loanId: string): Promise<O.Option<LockedLoan>> => {
  const loan = await trx.selectFrom('loans').selectAll().where('id', '=', loanId).forUpdate().executeTakeFirst()
  if (loan === undefined) return O.none
  const [installments, latest] = await Promise.all([
    trx.selectFrom('loan_installments').selectAll().where('loan_id', '=', loanId).orderBy('number').execute(),
    latestBalanceOf(trx, loanId).executeTakeFirst(),
  ])
  if (latest === undefined) throw new Error(`loan ${loanId} has no balance snapshot`)
  const balance = withoutSequence(toBalance(latest))
  return O.some({
    loan: toLoan(loan),
    installments: installments.map(toInstallment),
    outstanding: { principal: balance.principalOutstanding, interest: balance.interestOutstanding, fees: balance.feesOutstanding },
    latest: balance,
  })
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
})

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

    findForParty: (partyId, id) =>
      query(async () => {
        const row = await db.selectFrom('loans').selectAll().where('id', '=', id).where('party_id', '=', partyId).executeTakeFirst()
        return row === undefined ? O.none : O.some(toLoan(row))
      }),

    listForParty: (partyId, page) =>
      query(async () => (await inPage(db.selectFrom('loans').selectAll().where('party_id', '=', partyId), page).execute()).map(toLoan)),

    schedule: (partyId, loanId) =>
      query(async () => {
        // The latest snapshot joined once for the loan, not looked up again for each installment.
        const rows = await ofPartyLoan(db, partyId, loanId)
          .leftJoinLateral(
            (eb) => eb.selectFrom('loan_balances as b').select('b.principal_outstanding').whereRef('b.loan_id', '=', 'l.id').orderBy('b.seq', 'desc').limit(1).as('latest'),
            (join) => join.onTrue(),
          )
          .leftJoin('loan_installments as r', 'r.loan_id', 'l.id')
          .selectAll('r')
          .select((eb) => eb.fn.coalesce('latest.principal_outstanding', 'l.principal').as('principal_outstanding_now'))
          .orderBy('r.number')
          .execute()
        return pipe(
          recordsOf<Selectable<LoanInstallmentsTable>, ServicedInstallment>(rows, 'number', toInstallment),
          O.map((installments) => ({ installments, principalOutstanding: rows[0]!.principal_outstanding_now })),
        )
      }),

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
          .orderBy('r.created_at')
          .orderBy('r.seq')
          .execute()
        return recordsOf<Selectable<LoanBalancesTable>, PostedBalance>(rows, 'id', toBalance)
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
    change: (loanId, change) =>
      pipe(
        attempt(
          () =>
            inTransaction(db, async (trx) => {
              const state = await readLocked(trx, loanId)
              const outcome = await change(state, paymentReads(trx))()
              if (E.isLeft(outcome)) return outcome
              if (O.isSome(state)) await writePosting(trx, loanId, state.value.installments, outcome.right.posting)
              return E.right(outcome.right.result)
            }),
          asStoreUnavailable,
        ),
        TE.chainEitherKW((outcome) => outcome),
      ),

    activeLoanIds: (afterId, limit) =>
      query(async () => {
        let q = db.selectFrom('loans').select('id').where('status', '=', 'ACTIVE')
        if (afterId !== null) q = q.where('id', '>', afterId)
        return (await q.orderBy('id').limit(limit).execute()).map((r) => r.id)
      }),

    payments: paymentReads(db),

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
