import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import { DocumentInput, newDocument, type DocumentMetadata } from '../../domain/onboarding/document.js'
import type { InvalidRequest } from '../../domain/foundations/errors.js'
import type { InvalidState } from '../../domain/foundations/errors.js'
import { decodePageRequest, pageOf, type Page } from '../../domain/foundations/pagination.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { DocumentRepository } from '../../ports/document-repository.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { ensureEditable, loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'
import { newId } from '../../domain/foundations/ids.js'

/** What the onboarding document use cases need. */
export type OnboardingDocumentDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'>
  readonly documents: DocumentRepository
  readonly ids: IdGenerator
  readonly clock: Clock
}

const CreateDocumentCommand = commandOf(['sessionId'], DocumentInput)

/** Not idempotent: each call registers another document. */
export const createOnboardingDocumentMetadata =
  (deps: OnboardingDocumentDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError | InvalidState | InvalidRequest, DocumentMetadata> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(CreateDocumentCommand)(command)),
          TE.map((cmd) => newDocument(cmd, newId(deps.ids), deps.clock.now())),
          TE.chainFirstW((document) => deps.documents.insertForSession(session.id, document)),
        ),
      ),
    )

/** In any status: documents stay listed after approval. */
export const listDocumentsForOnboardingSession =
  (deps: Pick<OnboardingDocumentDeps, 'sessions' | 'documents'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, Page<DocumentMetadata>> =>
    pipe(
      TE.fromEither(decodePageRequest(command, ['sessionId'])),
      TE.chainW((page) =>
        pipe(
          loadOwnSession(deps.sessions)(caller, command),
          TE.chainW((session) => deps.documents.listForSession(session.id, page)),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )
