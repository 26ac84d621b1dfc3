import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ContactChannel, VerificationChallenge } from '../domain/onboarding/verification.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** One-time code challenges (only the code's hash). */
export type VerificationChallengeRepository = {
  /** Closes any open challenge of the channel, then stores `challenge`, in one transaction. */
  readonly issue: (challenge: VerificationChallenge) => TE.TaskEither<StoreUnavailable, void>
  /** Open or not. */
  readonly latest: (sessionId: SessionId, channel: ContactChannel) => TE.TaskEither<StoreUnavailable, O.Option<VerificationChallenge>>
  /** Counts one attempt atomically if open and under `maxAttempts`: concurrent checks each take one. None when closed or exhausted. */
  readonly takeAttempt: (id: string, maxAttempts: number) => TE.TaskEither<StoreUnavailable, O.Option<VerificationChallenge>>
  /** Writes `attempts` and `closedAt`. */
  readonly update: (challenge: VerificationChallenge) => TE.TaskEither<StoreUnavailable, void>
}
