import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import { notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { InvalidState } from '../../domain/foundations/errors.js'
import { transition } from '../../domain/onboarding/onboarding-state.js'
import { pathParameters } from '../../domain/foundations/path-parameters.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'

const decodeSessionParams = decode(pathParameters('sessionId'))

/** A malformed `sessionId`, a session missing or another client's, or the store. */
export type LoadOwnSessionError = InvalidRequest | NotFound | StoreUnavailable

/** Another client's session is `NotFound`. */
export const loadOwnSession =
  (sessions: Pick<OnboardingSessionRepository, 'findForClient'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, OnboardingSession> =>
    pipe(
      TE.fromEither(decodeSessionParams(command)),
      TE.chainW(({ sessionId }) => sessions.findForClient(caller.clientId, sessionId)),
      TE.chainW(TE.fromOption(() => notFound('onboarding_session'))),
    )

/** The partner edits only `IN_PROGRESS` sessions. */
export const ensureEditable = (session: OnboardingSession): E.Either<InvalidState, OnboardingSession> =>
  pipe(
    transition(session.status, 'edit'),
    E.map(() => session),
  )
