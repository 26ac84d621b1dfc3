import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/errors.js'
import type { OnboardingSession } from '../domain/onboarding-session.js'

/** Stores onboarding sessions. Reads are scoped to the owning API client. */
export type OnboardingSessionRepository = {
  /** `AlreadyExists` when a session with the same id is stored already. */
  readonly insert: (session: OnboardingSession) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** The session `id` if it belongs to `clientId`; none otherwise (missing or another client's). */
  readonly findForClient: (clientId: string, id: string) => TE.TaskEither<StoreUnavailable, O.Option<OnboardingSession>>
}
