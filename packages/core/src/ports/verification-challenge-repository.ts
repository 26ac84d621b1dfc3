import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ContactChannel, VerificationChallenge } from '../domain/onboarding/verification.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** Stores one-time code challenges (only the code's hash). */
export type VerificationChallengeRepository = {
  /** In one transaction: closes any open challenge of the session's channel at `challenge.createdAt`, then stores `challenge`. */
  readonly issue: (challenge: VerificationChallenge) => TE.TaskEither<StoreUnavailable, void>
  /** The most recent challenge of the session's channel, open or not. */
  readonly latest: (sessionId: SessionId, channel: ContactChannel) => TE.TaskEither<StoreUnavailable, O.Option<VerificationChallenge>>
  /**
   * Counts one attempt on challenge `id`, atomically, if it is open and has fewer than
   * `maxAttempts`: the challenge as counted, or none (closed, or no attempts left). Concurrent
   * checks of one challenge each take their own attempt, so no more than `maxAttempts` codes
   * are ever compared.
   */
  readonly takeAttempt: (id: string, maxAttempts: number) => TE.TaskEither<StoreUnavailable, O.Option<VerificationChallenge>>
  /** Writes the challenge's `attempts` and `closedAt`. */
  readonly update: (challenge: VerificationChallenge) => TE.TaskEither<StoreUnavailable, void>
}
