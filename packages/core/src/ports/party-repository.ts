import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { Party } from '../domain/party.js'

/** Reads parties. They are written only by the approval of a session (OnboardingSessionRepository.approve). */
export type PartyRepository = {
  readonly findById: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<Party>>
}
