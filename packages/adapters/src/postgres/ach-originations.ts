import { ACH_FILE_ID_MODIFIERS, type AchDebitRow, type AchEntry, type AchFile, type AchOriginations, type PaymentId } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import type { AchEntriesTable, AchFilesTable } from './lending-tables.js'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

const toFile = (row: Selectable<AchFilesTable>): AchFile => ({
  id: row.id,
  runKey: row.run_key,
  partyId: row.party_id,
  cutoffAt: row.cutoff_at,
  effectiveEntryDate: row.effective_entry_date,
  creationDate: row.creation_date,
  creationTime: row.creation_time,
  status: row.status,
  fileIdModifier: row.file_id_modifier,
  name: row.name,
  sha256: row.sha256,
  entryCount: row.entry_count,
  debitTotal: row.debit_total,
  entryHash: row.entry_hash,
  createdAt: row.created_at,
  writtenAt: row.written_at,
})

const toEntry = (row: Selectable<AchEntriesTable>): AchEntry => ({
  paymentId: row.payment_id,
  fileId: row.file_id,
  paymentMethodId: row.payment_method_id,
  clientId: row.client_id,
  traceNumber: row.trace_number,
  status: row.status,
  amount: row.amount,
  submittedOn: row.submitted_on,
})

/** Trace number `n` of the ODFI `tracePrefix`: its 8 digits, then `n` in 7 (the table's check refuses any other shape). */
const traceNumber = (tracePrefix: string, n: number): string => `${tracePrefix}${String(n).padStart(7, '0')}`

/**
 * The origination records of one world in PostgreSQL; `db` is the world's (`worldDb`), so every
 * statement is built with Kysely and names no table in raw SQL.
 *
 * - `claim` takes, in one transaction, a share lock on its file (which must be `claiming`: a
 *   concurrent `startPosting` waits for it), then the lock of the world's trace counter, and only
 *   then reads the payments: claims therefore run one at a time, each reading what the ones before
 *   it committed, so a claim that answers fewer than its limit has left none behind. The entries'
 *   primary key (the payment's id) is the last guard: a payment is never in two files.
 * - `takeModifier` locks the files of its file's creation date and party (in id order) before it
 *   picks the first free letter, so two files of one day take turns. A file of that day inserted after the
 *   lock was taken can still race it to a letter: the unique constraint then refuses the second
 *   writer, answered as `StoreUnavailable`, and a repeat takes the next free letter.
 * - Every other write moves an entry or a file only from the status its port doc names, so a
 *   repeated write changes nothing.
 */
export const postgresAchOriginations = (db: Kysely<Database>): AchOriginations => {
  const fileById = (id: string) => db.selectFrom('ach_files').selectAll().where('id', '=', id)
  const moveFile = (id: string, from: AchFile['status']) => db.updateTable('ach_files').where('id', '=', id).where('status', '=', from)
  const moveEntry = (paymentId: PaymentId, from: AchEntry['status']) => db.updateTable('ach_entries').where('payment_id', '=', paymentId).where('status', '=', from)
  return {
    openFile: (file) =>
      query(async () => {
        await db
          .insertInto('ach_files')
          .values({
            id: file.id,
            run_key: file.runKey,
            party_id: file.partyId,
            cutoff_at: file.cutoffAt,
            effective_entry_date: file.effectiveEntryDate,
            creation_date: file.creationDate,
            creation_time: file.creationTime,
            status: 'claiming',
            file_id_modifier: null,
            name: null,
            sha256: null,
            entry_count: null,
            debit_total: null,
            entry_hash: null,
            created_at: file.createdAt,
            written_at: null,
          })
          .onConflict((oc) => oc.column('run_key').doNothing())
          .execute()
        return toFile(await db.selectFrom('ach_files').selectAll().where('run_key', '=', file.runKey).executeTakeFirstOrThrow())
      }),
    findFile: (id) => query(async () => O.map(toFile)(O.fromNullable(await fileById(id).executeTakeFirst()))),
    fileOfRun: (runKey) => query(async () => O.map(toFile)(O.fromNullable(await db.selectFrom('ach_files').selectAll().where('run_key', '=', runKey).executeTakeFirst()))),
    claim: (fileId, tracePrefix, limit) =>
      query(() =>
        db.transaction().execute(async (trx) => {
          const file = await trx.selectFrom('ach_files').select(['cutoff_at', 'party_id']).where('id', '=', fileId).where('status', '=', 'claiming').forShare().executeTakeFirst()
          if (file === undefined || limit <= 0) return 0
          await trx.selectFrom('ach_trace_counter').select('next_trace').forUpdate().execute()
          const partyId = file.party_id
          const payments = await trx
            .selectFrom('payments')
            .innerJoin('loans', 'loans.id', 'payments.loan_id')
            .select(['payments.id', 'payments.payment_method_id', 'payments.client_id'])
            .where('payments.status', '=', 'PENDING')
            .where('payments.created_at', '<=', file.cutoff_at)
            .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ach_entries').select('ach_entries.payment_id').whereRef('ach_entries.payment_id', '=', 'payments.id'))))
            // A party's file takes its own payments; the world's, those of parties on no test clock.
            .where((eb) =>
              partyId === null
                ? eb.not(eb.exists(eb.selectFrom('test_clocks').select('test_clocks.id').whereRef('test_clocks.party_id', '=', 'loans.party_id')))
                : eb('loans.party_id', '=', partyId),
            )
            .orderBy('payments.created_at')
            .orderBy('payments.id')
            .limit(limit)
            .execute()
          if (payments.length === 0) return 0
          const { first } = await trx
            .updateTable('ach_trace_counter')
            .set((eb) => ({ next_trace: eb('next_trace', '+', payments.length) }))
            .returning((eb) => eb('next_trace', '-', payments.length).as('first'))
            .executeTakeFirstOrThrow()
          const inserted = await trx
            .insertInto('ach_entries')
            .values(
              payments.map((p, i) => ({
                payment_id: p.id,
                file_id: fileId,
                payment_method_id: p.payment_method_id,
                client_id: p.client_id,
                trace_number: traceNumber(tracePrefix, first + i),
                status: 'claimed' as const,
                amount: null,
                submitted_on: null,
              })),
            )
            .onConflict((oc) => oc.column('payment_id').doNothing())
            .executeTakeFirst()
          return Number(inserted.numInsertedOrUpdatedRows ?? 0n)
        }),
      ),
    startPosting: (fileId) =>
      query(async () => {
        await moveFile(fileId, 'claiming').set({ status: 'posting' }).execute()
      }),
    claimedEntries: (fileId, limit) =>
      query(async () =>
        (await db.selectFrom('ach_entries').selectAll().where('file_id', '=', fileId).where('status', '=', 'claimed').orderBy('trace_number').limit(limit).execute()).map(toEntry),
      ),
    markSent: (paymentId, amount, submittedOn) =>
      query(async () => {
        await moveEntry(paymentId, 'claimed').set({ status: 'sent', amount, submitted_on: submittedOn }).execute()
      }),
    markDropped: (paymentId) =>
      query(async () => {
        await moveEntry(paymentId, 'claimed').set({ status: 'dropped' }).execute()
      }),
    release: (paymentId) =>
      query(() =>
        db.transaction().execute(async (trx) => {
          const owner = await trx.selectFrom('payments').select('loan_id').where('id', '=', paymentId).executeTakeFirst()
          if (owner === undefined) return
          // The loan's lock, as a submission takes it first: one under way commits before the status is read.
          await trx.selectFrom('loans').select('id').where('id', '=', owner.loan_id).forUpdate().execute()
          const payment = await trx.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirst()
          if (payment?.status !== 'PENDING') return
          await trx.deleteFrom('ach_entries').where('payment_id', '=', paymentId).where('status', '=', 'claimed').execute()
        }),
      ),
    debitsOf: (fileId) =>
      query(async () => {
        const rows = await db
          .selectFrom('ach_entries as e')
          .innerJoin('payment_methods as m', 'm.id', 'e.payment_method_id')
          .leftJoin('bank_account_secrets as s', 's.payment_method_id', 'e.payment_method_id')
          .selectAll('e')
          .select(['m.account_holder_name', 'm.account_type', 's.sealed'])
          .where('e.file_id', '=', fileId)
          .where('e.status', 'in', ['sent', 'settled', 'returned'])
          .orderBy('e.trace_number')
          .execute()
        return rows.map(({ account_holder_name, account_type, sealed, ...entry }): AchDebitRow => ({ ...toEntry(entry), accountHolderName: account_holder_name, accountType: account_type, sealedAccount: sealed }))
      }),
    unfinishedBefore: (runKey, partyId) =>
      query(async () =>
        O.map(toFile)(
          O.fromNullable(
            await db
              .selectFrom('ach_files')
              .selectAll()
              .where('run_key', '<', runKey)
              .where('party_id', partyId === null ? 'is' : '=', partyId)
              .where('status', 'not in', ['written', 'empty'])
              .orderBy('run_key')
              .limit(1)
              .executeTakeFirst(),
          ),
        ),
      ),
    takeModifier: (fileId) =>
      query(() =>
        db.transaction().execute(async (trx) => {
          const own = await trx.selectFrom('ach_files').select(['creation_date', 'party_id']).where('id', '=', fileId).executeTakeFirst()
          if (own === undefined) return O.none
          // The files of its day and party (the world's together), each party's modifiers its own.
          const ofTheDay = await trx
            .selectFrom('ach_files')
            .select(['id', 'file_id_modifier'])
            .where('creation_date', '=', own.creation_date)
            .where('party_id', own.party_id === null ? 'is' : '=', own.party_id)
            .orderBy('id')
            .forUpdate()
            .execute()
          const mine = ofTheDay.find((file) => file.id === fileId)
          if (mine === undefined) return O.none
          if (mine.file_id_modifier !== null) return O.some(mine.file_id_modifier)
          const taken = new Set(ofTheDay.map((file) => file.file_id_modifier))
          const free = [...ACH_FILE_ID_MODIFIERS].find((modifier) => !taken.has(modifier))
          if (free === undefined) return O.none
          await trx.updateTable('ach_files').set({ file_id_modifier: free }).where('id', '=', fileId).execute()
          return O.some(free)
        }),
      ),
    recordBuilt: (fileId, built) =>
      query(async () => {
        await moveFile(fileId, 'posting')
          .set({ status: 'built', name: built.name, sha256: built.sha256, entry_count: built.entryCount, debit_total: built.debitTotal, entry_hash: built.entryHash })
          .execute()
      }),
    recordEmpty: (fileId) =>
      query(async () => {
        await moveFile(fileId, 'posting').set({ status: 'empty' }).execute()
      }),
    recordWritten: (fileId, at) =>
      query(async () => {
        await moveFile(fileId, 'built').set({ status: 'written', written_at: at }).execute()
      }),
    unsettled: (submittedOnOrBefore, after, limit, partyId) =>
      query(async () => {
        const due = db
          .selectFrom('ach_entries')
          .selectAll('ach_entries')
          .innerJoin('ach_files', 'ach_files.id', 'ach_entries.file_id')
          .where('ach_entries.status', '=', 'sent')
          .where('ach_files.status', '=', 'written')
          .where('ach_files.party_id', partyId === null ? 'is' : '=', partyId)
          .where('ach_entries.submitted_on', '<=', submittedOnOrBefore)
        const page = O.isSome(after)
          ? due.where((eb) => eb(eb.refTuple('ach_entries.submitted_on', 'ach_entries.payment_id'), '>', eb.tuple(after.value.submittedOn, after.value.paymentId)))
          : due
        return (await page.orderBy('ach_entries.submitted_on').orderBy('ach_entries.payment_id').limit(limit).execute()).map(toEntry)
      }),
    markSettled: (paymentId) =>
      query(async () => {
        await moveEntry(paymentId, 'sent').set({ status: 'settled' }).execute()
      }),
    entryByTrace: (trace) => query(async () => O.map(toEntry)(O.fromNullable(await db.selectFrom('ach_entries').selectAll().where('trace_number', '=', trace).executeTakeFirst()))),
    markReturned: (paymentId) =>
      query(async () => {
        await db.updateTable('ach_entries').where('payment_id', '=', paymentId).where('status', 'in', ['sent', 'settled']).set({ status: 'returned' }).execute()
      }),
  }
}
