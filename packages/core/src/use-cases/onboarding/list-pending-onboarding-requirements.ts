import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { sessionRequirements } from '../../domain/onboarding/onboarding-session.js'
import type { Requirement } from '../../domain/onboarding/onboarding-state.js'
import { decodePageRequest } from '../../domain/foundations/pagination.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

/** What the session still lacks for submission, in step order (one page); none once not `IN_PROGRESS`. */
export const listPendingOnboardingRequirements =
  (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, readonly Requirement[]> =>
    pipe(
      TE.fromEither(decodePageRequest(command, ['sessionId'])),
      TE.chainW(() => loadOwnSession(deps.sessions)(caller, command)),
      TE.map((session) => (session.status === 'IN_PROGRESS' ? sessionRequirements(session) : [])),
    )
