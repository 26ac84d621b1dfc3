import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { AddressInput, AddressPatch, newAddress, oneRegistered, patchAddress, roomForAnother, type Address } from '../../domain/address.js'
import type { Caller } from '../../domain/api-key.js'
import { NOT_AUDITED } from '../../domain/audit-event.js'
import { decode, nonEmptyPatch, Uuid } from '../../domain/codecs.js'
import { notFound, type ConcurrentUpdate, type InvalidState, type NotFound } from '../../domain/errors.js'
import { withContents, type OnboardingSession } from '../../domain/onboarding-session.js'
import { decodePageRequest, isAfter, pageOf, type Page } from '../../domain/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { ensureEditable, loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

export type OnboardingAddressDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient' | 'save'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
export type ChangeOnboardingAddressError = LoadOwnSessionError | InvalidState | ConcurrentUpdate

const saveWith = (deps: OnboardingAddressDeps, session: OnboardingSession, address: Address) =>
  pipe(
    deps.sessions.save(
      withContents(session, { addresses: [...session.addresses.filter((a) => a.id !== address.id), address].sort(byPosition) }, address.updatedAt),
      NOT_AUDITED,
    ),
    TE.map(() => address),
  )

const byPosition = (a: Address, b: Address): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Adds an address to an editable session. */
export const createOnboardingAddress =
  (deps: OnboardingAddressDeps) =>
  (caller: Caller, params: unknown, input: unknown): TE.TaskEither<ChangeOnboardingAddressError, Address> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, params),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(AddressInput)(input)),
          TE.chainFirstEitherKW(() => roomForAnother('session', session.addresses)),
          TE.map((cmd) => newAddress(cmd, deps.ids.next(), deps.clock.now())),
          TE.chainEitherKW((address) => oneRegistered('session', session.addresses, address)),
          TE.chainW((address) => saveWith(deps, session, address)),
        ),
      ),
    )

const AddressParams = t.type({ addressId: Uuid })

/** Partially updates one address of an editable session. */
export const updateOnboardingAddress =
  (deps: OnboardingAddressDeps) =>
  (caller: Caller, params: unknown, input: unknown): TE.TaskEither<ChangeOnboardingAddressError | NotFound, Address> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, params),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(AddressParams)(params)),
          TE.chainW(({ addressId }) =>
            TE.fromOption(() => notFound('onboarding_address'))(O.fromNullable(session.addresses.find((a) => a.id === addressId))),
          ),
          TE.chainW((address) =>
            pipe(
              TE.fromEither(decode(AddressPatch)(input)),
              TE.chainEitherKW(nonEmptyPatch),
              TE.map((patch) => patchAddress(address, patch, deps.clock.now())),
            ),
          ),
          TE.chainEitherKW((address) => oneRegistered('session', session.addresses, address)),
          TE.chainW((address) => saveWith(deps, session, address)),
        ),
      ),
    )

/** The session's addresses in creation order, paginated. Readable in any status. */
export const listOnboardingAddresses =
  (deps: Pick<OnboardingAddressDeps, 'sessions'>) =>
  (caller: Caller, params: unknown, query: unknown): TE.TaskEither<LoadOwnSessionError, Page<Address>> =>
    pipe(
      TE.fromEither(decodePageRequest(query)),
      TE.chainW((page) =>
        pipe(
          loadOwnSession(deps.sessions)(caller, params),
          TE.map((session) =>
            pageOf(
              session.addresses.filter((a) => O.isNone(page.after) || isAfter(a, page.after.value)),
              page.limit,
            ),
          ),
        ),
      ),
    )
