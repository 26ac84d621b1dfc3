import type { AchInbound, AchInboundFileRecord, AchIngestReport, AchNoticeRecord, AchReturnRecord } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import type { AchInboundFilesTable, AchNoticesTable, AchReturnsTable } from './lending-tables.js'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

const toFile = (row: Selectable<AchInboundFilesTable>): AchInboundFileRecord => ({
  id: row.id,
  sha256: row.sha256,
  receivedAt: row.received_at,
  status: row.status,
  report: row.report === null ? null : ((typeof row.report === 'string' ? JSON.parse(row.report) : row.report) as AchIngestReport),
})

const toReturn = (row: Selectable<AchReturnsTable>): AchReturnRecord => ({
  id: row.id,
  inboundFileId: row.inbound_file_id,
  record: row.record,
  originalTrace: row.original_trace,
  returnCode: row.return_code,
  category: row.category,
  amount: row.amount,
  paymentId: row.payment_id,
  clientId: row.client_id,
  receivedOn: row.received_on,
  outcome: row.outcome,
  late: row.late,
})

const toNotice = (row: Selectable<AchNoticesTable>): AchNoticeRecord => ({
  id: row.id,
  inboundFileId: row.inbound_file_id,
  record: row.record,
  originalTrace: row.original_trace,
  changeCode: row.change_code,
  paymentMethodId: row.payment_method_id,
  receivedOn: row.received_on,
  outcome: row.outcome,
  detail: row.detail,
})

/**
 * The inbound records of one world in PostgreSQL (`db` is the world's). Each insert is guarded by
 * a unique key (a file's SHA-256, a return's or notice's original trace number) with `on conflict
 * do nothing`, so two ingestions of one file at once record each item once, and the second reads
 * the first's row.
 */
export const postgresAchInbound = (db: Kysely<Database>): AchInbound => ({
  openFile: (file) =>
    query(async () => {
      await db
        .insertInto('ach_inbound_files')
        .values({ id: file.id, sha256: file.sha256, received_at: file.receivedAt, status: 'ingesting', report: null })
        .onConflict((oc) => oc.column('sha256').doNothing())
        .execute()
      return toFile(await db.selectFrom('ach_inbound_files').selectAll().where('sha256', '=', file.sha256).executeTakeFirstOrThrow())
    }),
  findFile: (id) => query(async () => O.map(toFile)(O.fromNullable(await db.selectFrom('ach_inbound_files').selectAll().where('id', '=', id).executeTakeFirst()))),
  recordReturn: (r) =>
    query(async () => {
      const inserted = await db
        .insertInto('ach_returns')
        .values({
          id: r.id,
          inbound_file_id: r.inboundFileId,
          record: r.record,
          original_trace: r.originalTrace,
          return_code: r.returnCode,
          category: r.category,
          amount: r.amount,
          payment_id: r.paymentId,
          client_id: r.clientId,
          received_on: r.receivedOn,
          outcome: r.outcome,
          late: r.late,
        })
        .onConflict((oc) => oc.column('original_trace').doNothing())
        .returningAll()
        .executeTakeFirst()
      return toReturn(inserted ?? (await db.selectFrom('ach_returns').selectAll().where('original_trace', '=', r.originalTrace).executeTakeFirstOrThrow()))
    }),
  recordNotice: (n) =>
    query(async () => {
      const inserted = await db
        .insertInto('ach_notices')
        .values({
          id: n.id,
          inbound_file_id: n.inboundFileId,
          record: n.record,
          original_trace: n.originalTrace,
          change_code: n.changeCode,
          payment_method_id: n.paymentMethodId,
          received_on: n.receivedOn,
          outcome: n.outcome,
          detail: n.detail,
        })
        .onConflict((oc) => oc.column('original_trace').doNothing())
        .returningAll()
        .executeTakeFirst()
      return toNotice(inserted ?? (await db.selectFrom('ach_notices').selectAll().where('original_trace', '=', n.originalTrace).executeTakeFirstOrThrow()))
    }),
  finish: (id, report) =>
    query(async () => {
      await db.updateTable('ach_inbound_files').set({ status: 'ingested', report: JSON.stringify(report) }).where('id', '=', id).where('status', '=', 'ingesting').execute()
    }),
})
