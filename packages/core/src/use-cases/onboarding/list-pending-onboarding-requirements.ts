import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/api-key.js'
import { sessionRequirements } from '../../domain/onboarding-session.js'
import type { Requirement } from '../../domain/onboarding-state.js'
import { decodePageRequest } from '../../domain/pagination.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

/**
 * What is still missing before the session can be submitted, in step order. Computed from the
 * session on every call; the list is short, so it always fits one page (`next_cursor` null).
 */
export const listPendingOnboardingRequirements =
  (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, readonly Requirement[]> =>
    pipe(
      TE.fromEither(decodePageRequest(command, ['sessionId'])),
      TE.chainW(() => loadOwnSession(deps.sessions)(caller, command)),
      TE.map((session) => (session.status === 'IN_PROGRESS' ? sessionRequirements(session) : [])),
    )
