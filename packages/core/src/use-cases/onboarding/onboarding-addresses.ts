import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { AddressInput, AddressPatch, newAddress, oneRegistered, patchAddress, roomForAnother, type Address } from '../../domain/onboarding/address.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { decode } from '../../domain/foundations/codecs.js'
import { notFound, type ConcurrentUpdate, type InvalidState, type NotFound } from '../../domain/foundations/errors.js'
import { withContents, type OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import { decodePageRequest, isAfter, pageOf, type Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { ensureEditable, loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'
import { newId } from '../../domain/foundations/ids.js'

/** What the onboarding address use cases need. */
export type OnboardingAddressDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient' | 'save'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
/** Invalid (a second registered address, a 21st), not editable, or lost to a concurrent change. */
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

const CreateAddressCommand = commandOf(['sessionId'], AddressInput)

/** A session holds at most 20 addresses and one registered. */
export const createOnboardingAddress =
  (deps: OnboardingAddressDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<ChangeOnboardingAddressError, Address> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(CreateAddressCommand)(command)),
          TE.chainFirstEitherKW(() => roomForAnother('session', session.addresses)),
          TE.map((cmd) => newAddress(cmd, session.addresses, newId(deps.ids), deps.clock.now())),
          TE.chainEitherKW((address) => oneRegistered('session', session.addresses, address)),
          TE.chainW((address) => saveWith(deps, session, address)),
        ),
      ),
    )

const UpdateAddressCommand = commandOf(['sessionId', 'addressId'], AddressPatch)

/** The identifiers are checked before the session's state. */
export const updateOnboardingAddress =
  (deps: OnboardingAddressDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<ChangeOnboardingAddressError | NotFound, Address> =>
    pipe(
      TE.fromEither(decode(pathParameters('sessionId', 'addressId'))(command)),
      TE.chainW(({ addressId }) =>
        pipe(
          loadOwnSession(deps.sessions)(caller, command),
          TE.chainEitherKW(ensureEditable),
          TE.chainW((session) =>
            pipe(
              TE.fromOption(() => notFound('onboarding_address'))(O.fromNullable(session.addresses.find((a) => a.id === addressId))),
              TE.chainW((address) =>
                pipe(
                  TE.fromEither(decode(UpdateAddressCommand)(command)),
                  TE.map((patch) => patchAddress(address, patch, deps.clock.now())),
                ),
              ),
              TE.chainEitherKW((address) => oneRegistered('session', session.addresses, address)),
              TE.chainW((address) => saveWith(deps, session, address)),
            ),
          ),
        ),
      ),
    )

/** Readable in any status. */
export const listOnboardingAddresses =
  (deps: Pick<OnboardingAddressDeps, 'sessions'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, Page<Address>> =>
    pipe(
      TE.fromEither(decodePageRequest(command, ['sessionId'])),
      TE.chainW((page) =>
        pipe(
          loadOwnSession(deps.sessions)(caller, command),
          TE.map((session) =>
            pageOf(
              session.addresses.filter((a) => O.isNone(page.after) || isAfter(a, page.after.value)),
              page.limit,
            ),
          ),
        ),
      ),
    )
