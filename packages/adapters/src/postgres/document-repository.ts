import type { DocumentMetadata, DocumentRepository } from '@lendgate/core'
import type { Kysely, Selectable } from 'kysely'
import type { Database, DocumentsTable } from './schema.js'
import { inPage } from './paging.js'
import { query } from './store-errors.js'

const toDocument = (row: Selectable<DocumentsTable>): DocumentMetadata => ({
  id: row.id,
  type: row.type as DocumentMetadata['type'],
  storageRef: row.storage_ref,
  fileName: row.file_name,
  contentType: row.content_type,
  description: row.description,
  createdAt: row.created_at,
})

export const postgresDocumentRepository = (db: Kysely<Database>): DocumentRepository => ({
  insertForSession: (sessionId, d) =>
    query(async () => {
      await db
        .insertInto('documents')
        .values({
          id: d.id,
          session_id: sessionId,
          type: d.type,
          storage_ref: d.storageRef,
          file_name: d.fileName,
          content_type: d.contentType,
          description: d.description,
          created_at: d.createdAt,
        })
        .execute()
    }),

  listForSession: (sessionId, page) =>
    query(async () => {
      const q = db.selectFrom('documents').selectAll().where('session_id', '=', sessionId)
      return (await inPage(q, page).execute()).map(toDocument)
    }),
})
