import type { BookedLoan, LedgerTransaction, LoanId, OperatorRequest, Payment, Posting, ServicedInstallment } from '@lendgate/core'
import { sql, type Transaction } from 'kysely'
import { auditEventColumns } from './audit-log.js'
import { eventsOfLoan, eventWrites } from './event-log.js'
import { balanceColumns, checkpointColumn, documentColumns, installmentColumns, loanColumns, paymentColumns, requestColumns, transactionColumns } from './loan-rows.js'
import type { Database } from './schema.js'
import { valuesOf, write, writeTogether, type Write } from './together.js'

/**
 * A booking, and the postings of servicing changes (one loan's, or a batch of the nightly
 * close's), each written as one statement of data-modifying CTEs: one round trip under the
 * loans' locks, however many rows.
 */

/**
 * The insert of ledger entries, in ledger order: one statement of many rows, whose VALUES list
 * PostgreSQL evaluates row by row in the order written, so the identity column numbers the
 * entries in that order.
 */
const entriesInsert = (trx: Transaction<Database>, transactions: readonly LedgerTransaction[]) => trx.insertInto('loan_transactions').values(transactions.map(transactionColumns)).returning('id')

/** Writes a booked loan in one statement: the loan, its schedule, its ledger entries (in order), its balance and documents. */
export const insertBooked = async (trx: Transaction<Database>, booked: BookedLoan): Promise<void> => {
  const { loan } = booked
  const writes: Write[] = [
    write('loan', trx.insertInto('loans').values(loanColumns(loan)).returning('id')),
    write('schedule', trx.insertInto('loan_installments').values(booked.installments.map(installmentColumns)).returning('number')),
    ...(booked.transactions.length === 0 ? [] : [write('entries', entriesInsert(trx, booked.transactions))]),
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

/** One loan's posting, and its schedule as it was before (what the posting's schedule is compared with). */
export type LoanPosting = { readonly loanId: LoanId; readonly before: readonly ServicedInstallment[]; readonly posting: Posting }

/** An installment's columns. */
type InstallmentColumns = ReturnType<typeof installmentColumns>

/** The SQL types of an installment's columns, for the VALUES list of an update of many (`valuesOf`). */
const INSTALLMENT_TYPES: { readonly [K in keyof InstallmentColumns]: string } = {
  loan_id: 'uuid',
  number: 'int4',
  due_date: 'date',
  principal_due: 'int8',
  interest_due: 'int8',
  fees_due: 'int8',
  principal_paid: 'int8',
  interest_paid: 'int8',
  fees_paid: 'int8',
  interest_accrued: 'bool',
}

/** What postings change of their loans' schedules: installments changed, installments added, and loans whose schedule now ends earlier (rows past `length` dropped). */
const scheduleChanges = (postings: readonly LoanPosting[]) => {
  const changed: InstallmentColumns[] = []
  const added: InstallmentColumns[] = []
  const shortened: { readonly loanId: LoanId; readonly length: number }[] = []
  for (const { loanId, before, posting } of postings) {
    const previous = new Map(before.map((i) => [i.number, i]))
    for (const i of posting.installments) {
      const old = previous.get(i.number)
      if (old === undefined) added.push(installmentColumns(i))
      else if (!sameInstallment(old, i)) changed.push(installmentColumns(i))
    }
    // A prepayment that shortened the term leaves rows past the schedule's new end.
    const length = posting.installments.length
    if (before.some((i) => i.number > length)) shortened.push({ loanId, length })
  }
  return { changed, added, shortened }
}

/** The writes of postings' schedules: the installments changed in one update, those added in one insert, and each shortened schedule's rows past its end dropped. */
const scheduleWrites = (trx: Transaction<Database>, postings: readonly LoanPosting[]): Write[] => {
  const { changed, added, shortened } = scheduleChanges(postings)
  const writes: Write[] = []
  if (changed.length > 0) {
    writes.push(
      write(
        'installments_changed',
        trx
          .updateTable('loan_installments')
          .from(valuesOf(changed, INSTALLMENT_TYPES, 'v'))
          .set((eb) => ({
            due_date: eb.ref('v.due_date'),
            principal_due: eb.ref('v.principal_due'),
            interest_due: eb.ref('v.interest_due'),
            fees_due: eb.ref('v.fees_due'),
            principal_paid: eb.ref('v.principal_paid'),
            interest_paid: eb.ref('v.interest_paid'),
            fees_paid: eb.ref('v.fees_paid'),
            interest_accrued: eb.ref('v.interest_accrued'),
          }))
          .whereRef('loan_installments.loan_id', '=', 'v.loan_id')
          .whereRef('loan_installments.number', '=', 'v.number')
          .returning('loan_installments.number'),
      ),
    )
  }
  if (added.length > 0) writes.push(write('installments_added', trx.insertInto('loan_installments').values(added).returning('number')))
  shortened.forEach(({ loanId, length }, k) =>
    writes.push(write(`installments_dropped_${k}`, trx.deleteFrom('loan_installments').where('loan_id', '=', loanId).where('number', '>', length).returning('number'))),
  )
  return writes
}

/**
 * What a posting changes of its loan's row, by column (only those it changes), with `raised`:
 * the `events` of the loan the statement writes (whichever posting carries them), added to its
 * count (`event_sequence`).
 */
const loanChangesOf = ({ loanId, posting }: LoanPosting, events: number) => {
  return {
    ...(posting.loanStatus === undefined ? {} : { status: posting.loanStatus }),
    ...(posting.oldestUnpaidDueDate === undefined ? {} : { oldest_unpaid_due_date: posting.oldestUnpaidDueDate }),
    ...(posting.chargedOffOn === undefined ? {} : { charged_off_on: posting.chargedOffOn }),
    ...(posting.checkpoint === undefined ? {} : { checkpoint: checkpointColumn(posting.checkpoint) }),
    ...(events === 0 ? {} : { raised: events }),
  }
}

/** The SQL types of what `loanChangesOf` changes, for the VALUES list of an update of many loans. */
const LOAN_CHANGE_TYPES = { id: 'uuid', status: 'text', oldest_unpaid_due_date: 'date', charged_off_on: 'date', checkpoint: 'jsonb', raised: 'int4' } as const

/**
 * The updates of the postings' loans: one for all the loans whose postings change the same
 * columns (the close's loans mostly change the same ones), none for a loan nothing changed of.
 */
const loanWrites = (trx: Transaction<Database>, postings: readonly LoanPosting[]): Write[] => {
  const events = postings.flatMap(({ posting }) => posting.events)
  const alike = new Map<string, Record<string, unknown>[]>()
  for (const p of postings) {
    const changes = loanChangesOf(p, eventsOfLoan(events, p.loanId))
    const columns = Object.keys(changes).sort().join(',')
    if (columns !== '') alike.set(columns, [...(alike.get(columns) ?? []), { id: p.loanId, ...changes }])
  }
  return [...alike].map(([columns, rows], k) => {
    const changed = columns.split(',') as (keyof typeof LOAN_CHANGE_TYPES)[]
    const types = Object.fromEntries(['id' as const, ...changed].map((c) => [c, LOAN_CHANGE_TYPES[c]]))
    return write(
      `loans_${k}`,
      trx
        .updateTable('loans')
        .from(valuesOf(rows, types, 'v'))
        .set(Object.fromEntries(changed.map((c) => (c === 'raised' ? ['event_sequence', sql`loans.event_sequence + v.raised`] : [c, sql.ref(`v.${c}`)]))))
        .whereRef('loans.id', '=', sql.ref('v.id'))
        .returning('loans.id'),
    )
  })
}

/** The upsert of a maker-checker request (named `name`): inserted, or its decision updated by id. */
const requestWrite = (trx: Transaction<Database>, name: string, request: OperatorRequest): Write =>
  write(
    name,
    trx
      .insertInto('operator_requests')
      .values(requestColumns(request))
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
  )

/** The upsert of payments: inserted, or (same id) given what the later change decided. */
const paymentsUpsert = (trx: Transaction<Database>, payments: readonly Payment[]) =>
  trx
    .insertInto('payments')
    .values(payments.map(paymentColumns))
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
    .returning('id')

/**
 * Writes the postings of one or more loans (each under its lock) in one statement, each write a
 * data-modifying CTE: the payments, the ledger entries (each loan's in order), the installments
 * that changed, the snapshots and the audit events, each kind one insert of all loans' rows;
 * each loan's row update and maker-checker request; the events and their deliveries. One round
 * trip however many loans and rows.
 */
export const writePostings = async (trx: Transaction<Database>, postings: readonly LoanPosting[]): Promise<void> => {
  const all = <T>(rows: (posting: Posting) => readonly T[]): T[] => postings.flatMap(({ posting }) => rows(posting))
  const payments = all((p) => p.payments)
  const entries = all((p) => p.transactions)
  const snapshots = all((p) => (p.balance === null ? [] : [p.balance]))
  const audits = all((p) => (p.audit === null ? [] : [p.audit]))
  const writes: Write[] = [
    ...(payments.length === 0 ? [] : [write('payments', paymentsUpsert(trx, payments))]),
    ...(entries.length === 0 ? [] : [write('entries', entriesInsert(trx, entries))]),
    ...scheduleWrites(trx, postings),
    ...(snapshots.length === 0 ? [] : [write('snapshots', trx.insertInto('loan_balances').values(snapshots.map(balanceColumns)).returning('id'))]),
    ...loanWrites(trx, postings),
    ...(audits.length === 0 ? [] : [write('audit', trx.insertInto('audit_events').values(audits.map(auditEventColumns)).returning('id'))]),
    ...postings.flatMap(({ posting }, k) => (posting.request === undefined ? [] : [requestWrite(trx, `request_${k}`, posting.request)])),
    ...eventWrites(trx, all((p) => p.events), new Set(postings.map((p) => p.loanId))),
  ]
  await writeTogether(trx, writes)
}

/** Writes one loan's posting (`writePostings` of one). */
export const writePosting = (trx: Transaction<Database>, loanId: LoanId, before: readonly ServicedInstallment[], posting: Posting): Promise<void> => writePostings(trx, [{ loanId, before, posting }])
