import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/api-key.js'
import type { OnboardingSession } from '../../domain/onboarding-session.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { loadOwnSession, SessionCommand, type LoadOwnSessionError } from './load-own-session.js'
import { decode } from '../../domain/codecs.js'

/** What `getOnboardingSession` needs. */
export type GetOnboardingSessionDeps = { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }
/** Why `getOnboardingSession` fails (`LoadOwnSessionError`). */
export type GetOnboardingSessionError = LoadOwnSessionError

/** The session named by the command's `sessionId` (its only field); another client's session is `NotFound`. */
export const getOnboardingSession =
  (deps: GetOnboardingSessionDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<GetOnboardingSessionError, OnboardingSession> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainFirstEitherKW(() => decode(SessionCommand)(command)),
    )
