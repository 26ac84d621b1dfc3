import * as E from 'fp-ts/lib/Either.js'
import type { Caller } from '../../domain/api-key.js'
import { insufficientScope, partyMismatch, type InsufficientScope, type PartyMismatch } from '../../domain/errors.js'
import { grants, type KnownScope } from '../../domain/scopes.js'

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
