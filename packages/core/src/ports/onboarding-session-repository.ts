import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AlreadyExists, ConcurrentUpdate, StoreUnavailable } from '../domain/errors.js'
import type { OnboardingSession } from '../domain/onboarding-session.js'

/** Stores onboarding sessions with their contacts, profile and addresses. Reads are scoped to the owning API client. */
export type OnboardingSessionRepository = {
  /** `AlreadyExists` when a session with the same id is stored already. */
  readonly insert: (session: OnboardingSession) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** The session `id` if it belongs to `clientId`; none otherwise (missing or another client's). */
  readonly findForClient: (clientId: string, id: string) => TE.TaskEither<StoreUnavailable, O.Option<OnboardingSession>>
  /**
   * Writes the whole session (row and addresses) in one transaction, if the stored version is
   * still `session.version`; returns it with the version bumped. `ConcurrentUpdate` otherwise,
   * and nothing is written.
   */
  readonly save: (session: OnboardingSession) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, OnboardingSession>
}
