import type { BookedLoan, LedgerTransaction, Posting, ServicedInstallment, LoanId } from '@lendgate/core'
import { sql, type OperationNodeSource, type Transaction } from 'kysely'
import { auditEventColumns } from './audit-log.js'
import { eventSequenceRaisedBy, eventsOfLoan, eventWrites } from './event-log.js'
import { balanceColumns, documentColumns, installmentColumns, loanColumns, paymentColumns, requestColumns, transactionColumns } from './loan-rows.js'
import type { Database } from './schema.js'
import { write, writeTogether, type Write } from './together.js'

/**
 * A booking and a payment's posting, each written as one statement of data-modifying CTEs: one
 * round trip under the loan's lock, however many rows.
 */

/**
 * The ledger entries, each a write that inserts by selecting from the one before it. PostgreSQL
 * runs the CTEs of one statement in no set order, but an insert that reads the previous
 * entry's output runs after it, so the identity column still numbers the entries in ledger
 * order.
 */
const entryWrites = (trx: Transaction<Database>, transactions: readonly LedgerTransaction[]): Write[] =>
  transactions.map((t, k): Write => {
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

/** Writes a booked loan in one statement: the loan, its schedule, its ledger entries (in order), its balance and documents. */
export const insertBooked = async (trx: Transaction<Database>, booked: BookedLoan): Promise<void> => {
  const { loan } = booked
  const writes: Write[] = [
    write('loan', trx.insertInto('loans').values(loanColumns(loan)).returning('id')),
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
 * Writes a posting in one statement, each write a data-modifying CTE: the payments, the ledger
 * entries (in order, see entryWrites), the installments that changed (added, updated, or dropped
 * past the schedule's end), the snapshot, the loan's status, delinquency and charge-off date, the
 * audit event, the maker-checker request, the events and their deliveries: one round trip
 * under the loan's lock instead of one per row.
 */
export const writePosting = async (trx: Transaction<Database>, loanId: LoanId, before: readonly ServicedInstallment[], posting: Posting): Promise<void> => {
  const writes: Write[] = []
  if (posting.payments.length > 0) {
    const rows = posting.payments.map(paymentColumns)
    writes.push(
      write(
        'payments',
        trx
          .insertInto('payments')
          .values(rows)
          .onConflict((oc) =>
            // A payment written again takes what the later change decided: a bank debit submitted
            // days after it was accepted is posted on its file's day, for what the payoff allows then.
            oc.column('id').doUpdateSet((eb) => ({
              amount: eb.ref('excluded.amount'),
              requested_amount: eb.ref('excluded.requested_amount'),
              effective_date: eb.ref('excluded.effective_date'),
              status: eb.ref('excluded.status'),
              failure_code: eb.ref('excluded.failure_code'),
              allocation: eb.ref('excluded.allocation'),
              per_installment: eb.ref('excluded.per_installment'),
              transaction_id: eb.ref('excluded.transaction_id'),
              return_code: eb.ref('excluded.return_code'),
              returned_on: eb.ref('excluded.returned_on'),
              return_fee: eb.ref('excluded.return_fee'),
            })),
          )
          .returning('id'),
      ),
    )
  }
  writes.push(...entryWrites(trx, posting.transactions))
  const previous = new Map(before.map((i) => [i.number, i]))
  const added: ReturnType<typeof installmentColumns>[] = []
  for (const i of posting.installments) {
    const old = previous.get(i.number)
    if (old === undefined) added.push(installmentColumns(i))
    else if (!sameInstallment(old, i)) {
      const { loan_id, number, ...changes } = installmentColumns(i)
      writes.push(write(`installment_${number}`, trx.updateTable('loan_installments').set(changes).where('loan_id', '=', loan_id).where('number', '=', number).returning('number')))
    }
  }
  if (added.length > 0) writes.push(write('installments_added', trx.insertInto('loan_installments').values(added).returning('number')))
  // A prepayment that shortened the term leaves rows past the schedule's new end.
  const length = posting.installments.length
  if (before.some((i) => i.number > length)) {
    writes.push(write('installments_dropped', trx.deleteFrom('loan_installments').where('loan_id', '=', loanId).where('number', '>', length).returning('number')))
  }
  if (posting.balance !== null) writes.push(write('snapshot', trx.insertInto('loan_balances').values(balanceColumns(posting.balance)).returning('id')))
  const loanChanges = {
    ...(posting.loanStatus === undefined ? {} : { status: posting.loanStatus }),
    ...(posting.oldestUnpaidDueDate === undefined ? {} : { oldest_unpaid_due_date: posting.oldestUnpaidDueDate }),
    ...(posting.chargedOffOn === undefined ? {} : { charged_off_on: posting.chargedOffOn }),
    ...(posting.checkpoint === undefined ? {} : { checkpoint: JSON.stringify(posting.checkpoint) }),
    ...(eventsOfLoan(posting.events, loanId) === 0 ? {} : { event_sequence: eventSequenceRaisedBy(eventsOfLoan(posting.events, loanId)) }),
  }
  if (Object.keys(loanChanges).length > 0) writes.push(write('loan', trx.updateTable('loans').set(loanChanges).where('id', '=', loanId).returning('id')))
  if (posting.audit !== null) writes.push(write('audit', trx.insertInto('audit_events').values(auditEventColumns(posting.audit)).returning('id')))
  if (posting.request !== undefined) {
    writes.push(
      write(
        'request',
        trx
          .insertInto('operator_requests')
          .values(requestColumns(posting.request))
          // A decision: its state and who decided, when and why; what was asked never changes.
          .onConflict((oc) =>
            oc.column('id').doUpdateSet((eb) => ({
              state: eb.ref('excluded.state'),
              decided_by: eb.ref('excluded.decided_by'),
              decided_at: eb.ref('excluded.decided_at'),
              rejection_reason: eb.ref('excluded.rejection_reason'),
            })),
          )
          .returning('id'),
      ),
    )
  }
  writes.push(...eventWrites(trx, posting.events, loanId))
  await writeTogether(trx, writes)
}
