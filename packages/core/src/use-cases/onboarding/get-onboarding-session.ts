import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../../domain/api-key.js'
import type { OnboardingSession } from '../../domain/onboarding-session.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

export type GetOnboardingSessionDeps = { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }
export type GetOnboardingSessionError = LoadOwnSessionError

/** The session's current state; another client's session is `NotFound`. */
export const getOnboardingSession =
  (deps: GetOnboardingSessionDeps) =>
  (caller: Caller, params: unknown): TE.TaskEither<GetOnboardingSessionError, OnboardingSession> =>
    loadOwnSession(deps.sessions)(caller, params)
