import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { ContactChannel, VerificationChallenge } from '../domain/verification.js'

/** Stores one-time code challenges (only the code's hash). */
export type VerificationChallengeRepository = {
  /** In one transaction: closes any open challenge of the session's channel at `challenge.createdAt`, then stores `challenge`. */
  readonly issue: (challenge: VerificationChallenge) => TE.TaskEither<StoreUnavailable, void>
  /** The most recent challenge of the session's channel, open or not. */
  readonly latest: (sessionId: string, channel: ContactChannel) => TE.TaskEither<StoreUnavailable, O.Option<VerificationChallenge>>
  /** Writes the challenge's `attempts` and `closedAt`. */
  readonly update: (challenge: VerificationChallenge) => TE.TaskEither<StoreUnavailable, void>
}
