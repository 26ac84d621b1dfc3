import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { DocumentMetadata } from '../domain/document.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { PageRequest } from '../domain/pagination.js'
import type { SessionId } from '../domain/ids.js'

/** Stores document metadata linked to an onboarding session (and, later, to its party and loans). */
export type DocumentRepository = {
  readonly insertForSession: (sessionId: SessionId, document: DocumentMetadata) => TE.TaskEither<StoreUnavailable, void>
  /** The session's documents in `(createdAt, id)` order, at most `page.limit + 1` after `page.after`. */
  readonly listForSession: (sessionId: SessionId, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly DocumentMetadata[]>
}
