import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../../domain/keys/api-key.js'
import type { OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

/** What `getOnboardingSession` needs. */
export type GetOnboardingSessionDeps = { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }

/** Another client's session is `NotFound`. */
export const getOnboardingSession =
  (deps: GetOnboardingSessionDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, OnboardingSession> =>
    loadOwnSession(deps.sessions)(caller, command)
