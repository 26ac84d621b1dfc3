import type { BookedLoan, LedgerTransaction, Posting, ServicedInstallment, LoanId } from '@lendgate/core'
import { sql, type OperationNodeSource, type Transaction } from 'kysely'
import { auditEventColumns } from './audit-log.js'
import { balanceColumns, documentColumns, installmentColumns, paymentColumns, transactionColumns } from './loan-rows.js'
import type { Database } from './schema.js'

/**
 * A booking and a payment's posting, each written as one statement of data-modifying CTEs: one
 * round trip under the loan's lock, however many rows.
 */

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
export const writePosting = async (trx: Transaction<Database>, loanId: LoanId, before: readonly ServicedInstallment[], posting: Posting): Promise<void> => {
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
