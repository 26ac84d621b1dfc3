import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { DocumentMetadata } from '../domain/onboarding/document.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** Stores the metadata of onboarding documents, by session (a loan's documents are the `LoanRepository`'s). */
export type DocumentRepository = {
  /** Stores `document` under the session `sessionId` (the caller has checked the session is the client's). */
  readonly insertForSession: (sessionId: SessionId, document: DocumentMetadata) => TE.TaskEither<StoreUnavailable, void>
  /** The session's documents in `(createdAt, id)` order, at most `page.limit + 1` after `page.after`. */
  readonly listForSession: (sessionId: SessionId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly DocumentMetadata[]>
}
