import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { callerOf, parsePresentedKey, type ApiKey, type Caller } from '../../domain/api-key.js'
import { invalidApiKey, type InvalidApiKey, type StoreUnavailable } from '../../domain/errors.js'
import type { ApiKeyMaterial } from '../../ports/api-key-material.js'
import type { ApiKeyRepository } from '../../ports/api-key-repository.js'
import type { Clock } from '../../ports/clock.js'
import type { KeyUsageRecorder } from '../../ports/key-usage-recorder.js'

/**
 * Guards the key store against forged keys. The checksum is public (CONTRACT.md), so a client
 * can make well-formed keys that pass it, and each such key would cost a lookup. `held` is the
 * key kept in memory for an id segment (the key cache's), if any; `admit` is asked, with the
 * request's origin, before every lookup of a key not held; a Left ends the authentication with
 * that refusal and no lookup.
 */
export type KeyLookupGuard<Origin, Refusal> = {
  readonly held: (idSegment: string) => ApiKey | undefined
  readonly admit: (origin: Origin) => TE.TaskEither<Refusal, void>
}

export type AuthenticateApiKeyDeps = {
  readonly apiKeys: Pick<ApiKeyRepository, 'findByIdSegment'>
  readonly keyMaterial: Pick<ApiKeyMaterial, 'hasValidChecksum' | 'matches'>
  readonly usage: Pick<KeyUsageRecorder, 'record'>
  readonly clock: Clock
}

export type AuthenticateApiKeyError = InvalidApiKey | StoreUnavailable

/**
 * An authentication's answer: decided at once (an Either: the key was malformed, or held in
 * memory) or a task that looks the key up. Every partner request waits on nothing for a held
 * key (docs/benchmarks.md).
 */
export type KeyDecision<E> = E.Either<E, Caller> | TE.TaskEither<E, Caller>

/** Whether the answer is decided already. */
export const isDecided = <E>(decision: KeyDecision<E>): decision is E.Either<E, Caller> => typeof decision !== 'function'

/** The answer to a malformed key, made once: it is the path a key-guessing client drives hardest. */
const refusedNow: E.Either<AuthenticateApiKeyError, never> = E.left(invalidApiKey)
const refused: TE.TaskEither<AuthenticateApiKeyError, never> = TE.fromEither(refusedNow)

/**
 * What a presented key needs before anything is looked up, given the keys `held` in memory:
 * `undefined` when it is refused on sight (malformed, or not held and failing its checksum),
 * the held key, or the id segment to look up. A key held in memory is decided by its stored
 * hash alone: the checksum only spares the store a lookup, and a held key costs none.
 * `authenticateApiKey` decides by it, and so does the HTTP adapter's refusal of a key before
 * its framework runs (docs/decisions.md), so the two cannot disagree.
 */
export const keyOnSight =
  (keyMaterial: Pick<ApiKeyMaterial, 'hasValidChecksum'>, held: (idSegment: string) => ApiKey | undefined) =>
  (presented: string): ApiKey | string | undefined => {
    const parsed = parsePresentedKey(presented)
    if (O.isNone(parsed)) return undefined
    const { idSegment } = parsed.value
    return held(idSegment) ?? (keyMaterial.hasValidChecksum(presented) ? idSegment : undefined)
  }

/**
 * Turns a presented key into the caller it stands for. The format and checksum are checked
 * before any lookup (a typo or a random string costs no database read; a key the guard holds
 * in memory needs no checksum, its stored hash decides); the stored hash is
 * compared in constant time; a revoked key is refused. Every refusal is the same
 * `InvalidApiKey`, so a caller learns nothing about which check failed. With a `guard`, a key
 * not held in memory is looked up only if the guard admits the request's origin, and an answer
 * that needs no lookup (a malformed key, a held key) is given at once.
 */
export function authenticateApiKey(deps: AuthenticateApiKeyDeps): (presented: string) => TE.TaskEither<AuthenticateApiKeyError, Caller>
export function authenticateApiKey<Origin, Refusal>(
  deps: AuthenticateApiKeyDeps,
  guard: KeyLookupGuard<Origin, Refusal>,
): (presented: string, origin: Origin) => KeyDecision<AuthenticateApiKeyError | Refusal>
export function authenticateApiKey<Origin, Refusal>(deps: AuthenticateApiKeyDeps, guard?: KeyLookupGuard<Origin, Refusal>) {
  /** The found key as its caller, if it is the presented key (compared first, in constant time) and active. */
  const admit = (presented: string, found: O.Option<ApiKey>): E.Either<AuthenticateApiKeyError, Caller> => {
    if (O.isNone(found) || !deps.keyMaterial.matches(presented, found.value.hash) || found.value.status !== 'active') return E.left(invalidApiKey)
    deps.usage.record(found.value.id, deps.clock.now())
    return E.right(callerOf(found.value))
  }
  /** The lookup of a key not held, made when the task runs (one continuation, not a chain of combinators). */
  const lookUp =
    (presented: string, idSegment: string): TE.TaskEither<AuthenticateApiKeyError, Caller> =>
    () =>
      deps.apiKeys.findByIdSegment(idSegment)().then((found) => (E.isLeft(found) ? found : admit(presented, found.right)))
  if (guard === undefined) {
    return (presented: string): TE.TaskEither<AuthenticateApiKeyError, Caller> => {
      const parsed = parsePresentedKey(presented)
      return O.isNone(parsed) || !deps.keyMaterial.hasValidChecksum(presented) ? refused : lookUp(presented, parsed.value.idSegment)
    }
  }
  const onSight = keyOnSight(deps.keyMaterial, guard.held)
  return (presented: string, origin: Origin): KeyDecision<AuthenticateApiKeyError | Refusal> => {
    const sighted = onSight(presented)
    if (sighted === undefined) return refusedNow
    if (typeof sighted !== 'string') return admit(presented, O.some(sighted))
    const check = lookUp(presented, sighted)
    const admitted = guard.admit(origin)
    return () => admitted().then<E.Either<AuthenticateApiKeyError | Refusal, Caller>>((allowed) => (E.isLeft(allowed) ? allowed : check()))
  }
}
