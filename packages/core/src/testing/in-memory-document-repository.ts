import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { DocumentMetadata } from '../domain/document.js'
import { isAfter } from '../domain/pagination.js'
import type { DocumentRepository } from '../ports/document-repository.js'

export const inMemoryDocumentRepository = (): DocumentRepository => {
  const documents: { readonly sessionId: string; readonly document: DocumentMetadata }[] = []
  return {
    insertForSession: (sessionId, document) =>
      TE.fromIO(() => {
        documents.push({ sessionId, document })
      }),
    listForSession: (sessionId, page) =>
      TE.fromIO(() =>
        documents
          .filter((d) => d.sessionId === sessionId)
          .map((d) => d.document)
          .filter((d) => O.isNone(page.after) || isAfter(d, page.after.value))
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
          .slice(0, page.limit + 1),
      ),
  }
}
