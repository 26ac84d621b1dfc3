import * as TE from 'fp-ts/lib/TaskEither.js'
import type { DocumentMetadata } from '../domain/onboarding/document.js'
import type { DocumentRepository } from '../ports/document-repository.js'
import { inMemoryPage } from './in-memory-paging.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** Onboarding documents' metadata in memory, with the same semantics as the PostgreSQL repository. */
export const inMemoryDocumentRepository = (): DocumentRepository & {
  /** Deletes the documents of sessions `sessionIds` (a wipe of the test world). */
  readonly forgetSessions: (sessionIds: ReadonlySet<SessionId>) => void
} => {
  const documents: { readonly sessionId: SessionId; readonly document: DocumentMetadata }[] = []
  return {
    forgetSessions: (sessionIds) => {
      documents.splice(0, documents.length, ...documents.filter((d) => !sessionIds.has(d.sessionId)))
    },
    insertForSession: (sessionId, document) =>
      TE.fromIO(() => {
        documents.push({ sessionId, document })
      }),
    listForSession: (sessionId, page) =>
      TE.fromIO(() =>
        inMemoryPage(
          documents
            .filter((d) => d.sessionId === sessionId)
            .map((d) => d.document),
          page,
        ),
      ),
  }
}
