import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists, concurrentUpdate } from '../domain/errors.js'
import type { OnboardingSession } from '../domain/onboarding-session.js'
import type { OnboardingSessionRepository } from '../ports/onboarding-session-repository.js'

export const inMemoryOnboardingSessionRepository = (): OnboardingSessionRepository & {
  readonly all: () => readonly OnboardingSession[]
} => {
  const sessions = new Map<string, OnboardingSession>()
  return {
    all: () => [...sessions.values()],
    insert: (session) => {
      if (sessions.has(session.id)) return TE.left(alreadyExists('onboarding_session'))
      sessions.set(session.id, session)
      return TE.right(undefined)
    },
    save: (session) => {
      const stored = sessions.get(session.id)
      if (stored === undefined || stored.version !== session.version) return TE.left(concurrentUpdate('onboarding_session'))
      const saved = { ...session, version: session.version + 1 }
      sessions.set(session.id, saved)
      return TE.right(saved)
    },
    findForClient: (clientId, id) =>
      TE.fromIO(() => O.filter((s: OnboardingSession) => s.clientId === clientId)(O.fromNullable(sessions.get(id)))),
  }
}
