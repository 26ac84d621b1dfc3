import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { VerificationChallenge } from '../domain/onboarding/verification.js'
import type { VerificationChallengeRepository } from '../ports/verification-challenge-repository.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** Verification challenges in memory, with the same semantics as the PostgreSQL repository. */
export const inMemoryVerificationChallengeRepository = (): VerificationChallengeRepository & {
  /** Every challenge issued, in order, as it stands now. */
  readonly all: () => readonly VerificationChallenge[]
  /** Deletes the challenges of sessions `sessionIds` (a wipe of the test world). */
  readonly forgetSessions: (sessionIds: ReadonlySet<SessionId>) => void
} => {
  const challenges: VerificationChallenge[] = []
  return {
    all: () => challenges,
    forgetSessions: (sessionIds) => {
      challenges.splice(0, challenges.length, ...challenges.filter((c) => !sessionIds.has(c.sessionId)))
    },
    issue: (challenge) =>
      TE.fromIO(() => {
        challenges.forEach((c, i) => {
          if (c.sessionId === challenge.sessionId && c.channel === challenge.channel && c.closedAt === null) {
            challenges[i] = { ...c, closedAt: challenge.createdAt }
          }
        })
        challenges.push(challenge)
      }),
    latest: (sessionId, channel) =>
      TE.fromIO(() => O.fromNullable([...challenges].reverse().find((c) => c.sessionId === sessionId && c.channel === channel))),
    takeAttempt: (id, maxAttempts) =>
      TE.fromIO(() => {
        const i = challenges.findIndex((c) => c.id === id && c.closedAt === null && c.attempts < maxAttempts)
        if (i < 0) return O.none
        const counted = { ...challenges[i]!, attempts: challenges[i]!.attempts + 1 }
        challenges[i] = counted
        return O.some(counted)
      }),
    update: (challenge) =>
      TE.fromIO(() => {
        const i = challenges.findIndex((c) => c.id === challenge.id)
        if (i >= 0) challenges[i] = challenge
      }),
  }
}
