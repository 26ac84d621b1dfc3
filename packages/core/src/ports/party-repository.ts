import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Address } from '../domain/onboarding/address.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/foundations/errors.js'
import type { Party } from '../domain/onboarding/party.js'
import type { PartyId } from '../domain/foundations/ids.js'

/** Parties, created only by a session's approval (`saveApproved`); then only their addresses change. */
export type PartyRepository = {
  /** With its addresses, oldest first. */
  readonly findById: (id: PartyId) => TE.TaskEither<StoreUnavailable, O.Option<Party>>
  /** A second `registered` address is `AlreadyExists('registered_address')`. */
  readonly addAddress: (partyId: PartyId, address: Address) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** Same `registered` rule as `addAddress`. */
  readonly updateAddress: (partyId: PartyId, address: Address) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
}
