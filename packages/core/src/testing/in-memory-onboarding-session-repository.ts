import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { OnboardingSession } from '../domain/onboarding-session.js'
import type { OnboardingSessionRepository } from '../ports/onboarding-session-repository.js'

export const inMemoryOnboardingSessionRepository = (): OnboardingSessionRepository & {
  readonly all: () => readonly OnboardingSession[]
} => {
  const sessions = new Map<string, OnboardingSession>()
  return {
    all: () => [...sessions.values()],
    insert: (session) =>
      TE.fromIO(() => {
        sessions.set(session.id, session)
      }),
    findForClient: (clientId, id) =>
      TE.fromIO(() => O.filter((s: OnboardingSession) => s.clientId === clientId)(O.fromNullable(sessions.get(id)))),
  }
}
