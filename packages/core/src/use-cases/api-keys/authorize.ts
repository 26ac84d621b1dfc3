import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { decode } from '../../domain/foundations/codecs.js'
import type { Caller, PartyScope } from '../../domain/keys/api-key.js'
import { insufficientScope, invalidRequest, partyMismatch, type InsufficientScope, type InvalidRequest, type PartyMismatch } from '../../domain/foundations/errors.js'
import { grants, type KnownScope } from '../../domain/keys/scopes.js'
import type { PartyId } from '../../domain/foundations/ids.js'

/** The caller, if its scopes grant `scope` (wildcards honoured). */
export const requireScope =
  (scope: KnownScope) =>
  (caller: Caller): E.Either<InsufficientScope, Caller> =>
    grants(caller.scopes, scope) ? E.right(caller) : E.left(insufficientScope(scope))

/** UUIDs compare case-insensitively; any other value is a mismatch. */
export const requireOwnParty =
  (partyId: string) =>
  <C extends PartyScope>(caller: C): E.Either<PartyMismatch, C> =>
    partyId.toLowerCase() === caller.partyId ? E.right(caller) : E.left(partyMismatch)

/** Over HTTP the edge checks this before reading the body; an embedding service gets the same answer. */
export const requireCommandParty = <C extends PartyScope>(caller: C, command: unknown): E.Either<InvalidRequest | PartyMismatch, C> => {
  const partyId = typeof command === 'object' && command !== null ? (command as Record<string, unknown>)['partyId'] : undefined
  if (partyId === undefined || partyId === null) return E.left(invalidRequest('partyId is required', 'partyId'))
  return typeof partyId === 'string' ? requireOwnParty(partyId)(caller) : E.left(invalidRequest('partyId must be a UUID', 'partyId'))
}

export const decodePartyCommand =
  <A>(codec: t.Decoder<unknown, A>) =>
  (caller: Caller, command: unknown): E.Either<InvalidRequest | PartyMismatch, A> =>
    pipe(
      requireCommandParty(caller, command),
      E.chainW(() => decode(codec)(command)),
    )
