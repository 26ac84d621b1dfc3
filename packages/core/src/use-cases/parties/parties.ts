import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { AddressInput, AddressPatch, newAddress, oneRegistered, patchAddress, roomForAnother, type Address } from '../../domain/onboarding/address.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import { notFound, type AlreadyExists, type InvalidRequest, type NotFound, type PartyMismatch, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { decodePageRequest, isAfter, pageOf, type Page } from '../../domain/foundations/pagination.js'
import type { Party } from '../../domain/onboarding/party.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { PartyRepository } from '../../ports/party-repository.js'
import { newId } from '../../domain/foundations/ids.js'

/** The caller's own party (spec §4.3): the command's `partyId` must be the key's (`PartyMismatch`). */

export type PartyError = InvalidRequest | PartyMismatch | NotFound | StoreUnavailable

export const loadCallerParty =
  (parties: Pick<PartyRepository, 'findById'>) =>
  (caller: Caller): TE.TaskEither<NotFound | StoreUnavailable, Party> =>
    pipe(parties.findById(caller.partyId), TE.chainW(TE.fromOption(() => notFound('party'))))

/** The key's party, named by the command's `partyId`. */
export const getParty =
  (deps: { readonly parties: Pick<PartyRepository, 'findById'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<PartyError, Party> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainW(() => loadCallerParty(deps.parties)(caller)),
    )

/** The party's addresses, oldest first. */
export const listPartyAddresses =
  (deps: { readonly parties: Pick<PartyRepository, 'findById'> }) =>
  (caller: Caller, command: unknown): TE.TaskEither<PartyError, Page<Address>> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decodePageRequest(command, ['partyId'])),
      TE.chainW((page) =>
        pipe(
          loadCallerParty(deps.parties)(caller),
          TE.map((party) => pageOf(party.addresses.filter((a) => O.isNone(page.after) || isAfter(a, page.after.value)), page.limit)),
        ),
      ),
    )

/** What the party address use cases need. */
export type PartyAddressDeps = {
  readonly parties: PartyRepository
  readonly ids: IdGenerator
  readonly clock: Clock
}

const CreateAddressCommand = commandOf(['partyId'], AddressInput)

/** A party holds at most 20 addresses and one registered (a concurrent second is `AlreadyExists`). */
export const createPartyAddress =
  (deps: PartyAddressDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<PartyError | AlreadyExists, Address> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decode(CreateAddressCommand)(command)),
      TE.chainW((cmd) =>
        pipe(
          loadCallerParty(deps.parties)(caller),
          TE.chainFirstEitherKW((party) => roomForAnother('party', party.addresses)),
          TE.chainEitherKW((party) => oneRegistered('party', party.addresses, newAddress(cmd, party.addresses, newId(deps.ids), deps.clock.now()))),
          TE.chainFirstW((address) => deps.parties.addAddress(caller.partyId, address)),
        ),
      ),
    )

const UpdateAddressCommand = commandOf(['partyId', 'addressId'], AddressPatch)

/** Merge-patches an address the party holds, else `NotFound`. */
export const updatePartyAddress =
  (deps: Omit<PartyAddressDeps, 'ids'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<PartyError | AlreadyExists, Address> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decode(pathParameters('addressId'))(command)),
      TE.chainW(({ addressId }) =>
        pipe(
          loadCallerParty(deps.parties)(caller),
          TE.chainW((party) =>
            pipe(
              TE.fromOption(() => notFound('party_address'))(O.fromNullable(party.addresses.find((a) => a.id === addressId))),
              TE.chainW((address) =>
                pipe(
                  TE.fromEither(decode(UpdateAddressCommand)(command)),
                  TE.map((patch) => patchAddress(address, patch, deps.clock.now())),
                ),
              ),
              TE.chainEitherKW((address) => oneRegistered('party', party.addresses, address)),
            ),
          ),
          TE.chainFirstW((address) => deps.parties.updateAddress(caller.partyId, address)),
        ),
      ),
    )
