import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Address } from '../domain/onboarding/address.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/foundations/errors.js'
import type { Party } from '../domain/onboarding/party.js'
import type { PartyId } from '../domain/foundations/ids.js'

/**
 * Parties. A party is created only by the approval of a session
 * (OnboardingSessionRepository.saveApproved); afterwards only its addresses change.
 */
export type PartyRepository = {
  /** The party with all its addresses, oldest first. */
  readonly findById: (id: PartyId) => TE.TaskEither<StoreUnavailable, O.Option<Party>>
  /** Adds an address. A second `registered` address of the party is `AlreadyExists('registered_address')`. */
  readonly addAddress: (partyId: PartyId, address: Address) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** Replaces an existing address of the party (same id); same `registered` rule as `addAddress`. */
  readonly updateAddress: (partyId: PartyId, address: Address) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
}
