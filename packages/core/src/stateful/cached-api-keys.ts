import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { ApiKey } from '../domain/keys/api-key.js'
import type { ApiKeyRepository } from '../ports/api-key-repository.js'
import type { Clock } from '../ports/clock.js'
import type { KeyRevocations } from '../ports/key-revocations.js'

/** How `cachedApiKeys` bounds its cache. */
export type KeyCacheOptions = {
  /** At most this many keys are kept (least recently used go first). */
  readonly maxEntries: number
  /** A safety net: an entry older than this is read again even if no revocation was heard. */
  readonly ttlMs: number
  /** Tells the age of entries. */
  readonly clock: Clock
}

/** The cached repository: what `cachedApiKeys` returns. */
export type CachedApiKeys = ApiKeyRepository & {
  /**
   * The key `findByIdSegment` would answer from memory for this id segment (a key held and not
   * older than the TTL), or undefined when it would ask the store. A held answer is a use.
   */
  readonly held: (idSegment: string) => ApiKey | undefined
  /** How many keys are held now. */
  readonly size: () => number
  /** Stops listening for revocations; call it when the process stops. */
  readonly close: () => void
}

/**
 * The key repository with an in-process cache of keys by id segment (issue 8): a valid key
 * costs no database read on the hot path. A revocation evicts the key here at once, and on
 * every other instance when they hear of it (`revocations`, PostgreSQL LISTEN/NOTIFY: within a
 * second); if they may have missed news, they drop everything. Unknown segments are never
 * cached, so a key minted on another instance works at once.
 */
export const cachedApiKeys = (
  repo: ApiKeyRepository,
  revocations: KeyRevocations,
  options: KeyCacheOptions,
): CachedApiKeys => {
  /** `found` is the answer to a hit, made once per entry. */
  type Entry = { readonly key: ApiKey; readonly at: number; readonly found: TE.TaskEither<never, O.Option<ApiKey>> }
  const entries = new Map<string, Entry>()
  /** The entry last put at the end of `entries` (by a hit or a read), or one since removed. */
  let lastHit: Entry | undefined
  const evict = (idSegment: string) => entries.delete(idSegment)
  const unsubscribe = revocations.subscribe((event) => (event.kind === 'revoked' ? evict(event.idSegment) : entries.clear()))

  const remember = (key: ApiKey) => {
    entries.delete(key.idSegment)
    const entry: Entry = { key, at: options.clock.now().getTime(), found: TE.right(O.some(key)) }
    entries.set(key.idSegment, entry)
    lastHit = entry
    while (entries.size > options.maxEntries) {
      const oldest = entries.keys().next()
      if (oldest.done === true) break
      entries.delete(oldest.value)
    }
  }

  /** The entry held for the id segment, made the most recently used. */
  const hitOf = (idSegment: string): Entry | undefined => {
    const hit = entries.get(idSegment)
    if (hit === undefined) return undefined
    if (options.clock.now().getTime() - hit.at >= options.ttlMs) {
      evict(idSegment)
      return undefined
    }
    // Most recently used goes to the end: a hit moves only a key that is not there already
    // (a busy key is usually the last one used, and a Map's delete and set cost a request).
    if (hit !== lastHit) {
      entries.delete(idSegment)
      entries.set(idSegment, hit)
      lastHit = hit
    }
    return hit
  }

  return {
    ...repo,
    held: (idSegment) => hitOf(idSegment)?.key,
    size: () => entries.size,
    close: unsubscribe,
    findByIdSegment: (idSegment) =>
      hitOf(idSegment)?.found ??
      pipe(
        repo.findByIdSegment(idSegment),
        TE.map((found) => {
          if (O.isSome(found)) remember(found.value)
          return found
        }),
      ),
    revoke: (clientId, keyId, at, audit) =>
      pipe(
        repo.revoke(clientId, keyId, at, audit),
        TE.map((revoked) => {
          if (O.isSome(revoked)) evict(revoked.value.idSegment)
          return revoked
        }),
      ),
  }
}
