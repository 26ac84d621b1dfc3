import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { decode } from '../../domain/foundations/codecs.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { insufficientScope, invalidRequest, partyMismatch, type InsufficientScope, type InvalidRequest, type PartyMismatch } from '../../domain/foundations/errors.js'
import { grants, type KnownScope } from '../../domain/keys/scopes.js'
import type { PartyId } from '../../domain/foundations/ids.js'

/** The caller, if its key's scopes grant `scope` (wildcards honoured). */
export const requireScope =
  (scope: KnownScope) =>
  (caller: Caller): E.Either<InsufficientScope, Caller> =>
    grants(caller.scopes, scope) ? E.right(caller) : E.left(insufficientScope(scope))

/**
 * The caller, if `partyId` (from a party-scoped path or body) is the key's own party. Compared
 * case-insensitively because UUIDs are; any other value, well-formed or not, is a mismatch.
 */
export const requireOwnParty =
  (partyId: string) =>
  (caller: Caller): E.Either<PartyMismatch, Caller> =>
    partyId.toLowerCase() === caller.partyId ? E.right(caller) : E.left(partyMismatch)

/**
 * The caller, if the command of a party-scoped use case names the key's own party in `partyId`
 * (`requireOwnParty`). Over HTTP the edge has already made this check, before reading the body;
 * a service embedding the core gets the same answer.
 */
export const requireCommandParty = (caller: Caller, command: unknown): E.Either<InvalidRequest | PartyMismatch, Caller> => {
  const partyId = typeof command === 'object' && command !== null ? (command as Record<string, unknown>)['partyId'] : undefined
  if (partyId === undefined || partyId === null) return E.left(invalidRequest('partyId is required', 'partyId'))
  return typeof partyId === 'string' ? requireOwnParty(partyId)(caller) : E.left(invalidRequest('partyId must be a UUID', 'partyId'))
}

/** A party-scoped command decoded by `codec`, once its `partyId` is the caller's party (`requireCommandParty`). */
export const decodePartyCommand =
  <A>(codec: t.Decoder<unknown, A>) =>
  (caller: Caller, command: unknown): E.Either<InvalidRequest | PartyMismatch, A> =>
    pipe(
      requireCommandParty(caller, command),
      E.chainW(() => decode(codec)(command)),
    )
