import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/api-key.js'
import { decode, strictObject, Uuid } from '../../domain/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/errors.js'
import type { OnboardingSession } from '../../domain/onboarding-session.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'

export type GetOnboardingSessionDeps = { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'> }
export type GetOnboardingSessionError = InvalidRequest | NotFound | StoreUnavailable

const SessionParams = strictObject('SessionParams', { sessionId: Uuid }, {})

/** The session's current state; another client's session is `NotFound`. */
export const getOnboardingSession =
  (deps: GetOnboardingSessionDeps) =>
  (caller: Caller, params: unknown): TE.TaskEither<GetOnboardingSessionError, OnboardingSession> =>
    pipe(
      TE.fromEither(decode(SessionParams)(params)),
      TE.chainW(({ sessionId }) => deps.sessions.findForClient(caller.clientId, sessionId)),
      TE.chainW(TE.fromOption(() => notFound('onboarding_session'))),
    )
