import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { ApiKey } from '../domain/keys/api-key.js'
import type { ApiKeyRepository } from '../ports/api-key-repository.js'
import type { Clock } from '../ports/clock.js'
import type { KeyRevocations } from '../ports/key-revocations.js'

/** How the cache is bounded. */
export type KeyCacheOptions = {
  /** Least recently used go first. */
  readonly maxEntries: number
  /** A safety net: an older entry is read again even if no revocation was heard. */
  readonly ttlMs: number
  readonly clock: Clock
}

/** The repository with its cache. */
export type CachedApiKeys = ApiKeyRepository & {
  /** The key answered from memory for this id segment (a use), or undefined when the store would be asked. */
  readonly held: (idSegment: string) => ApiKey | undefined
  /** Keys held now. */
  readonly size: () => number
  /** Stops listening for revocations. */
  readonly close: () => void
}

/**
 * The key repository with an in-process cache by id segment (decision 41). A revocation evicts
 * here at once and elsewhere on notice; missed notices drop everything. Unknown segments are never cached.
 */
export const cachedApiKeys = (
  repo: ApiKeyRepository,
  revocations: KeyRevocations,
  options: KeyCacheOptions,
): CachedApiKeys => {
  type Entry = { readonly key: ApiKey; readonly at: number; readonly found: TE.TaskEither<never, O.Option<ApiKey>> }
  const entries = new Map<string, Entry>()
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

  const hitOf = (idSegment: string): Entry | undefined => {
    const hit = entries.get(idSegment)
    if (hit === undefined) return undefined
    if (options.clock.now().getTime() - hit.at >= options.ttlMs) {
      evict(idSegment)
      return undefined
    }
    // A busy key is usually the last used already: moving it costs a Map delete and set.
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
    revoke: (owner, keyId, at, audit) =>
      pipe(
        repo.revoke(owner, keyId, at, audit),
        TE.map((revoked) => {
          if (O.isSome(revoked)) evict(revoked.value.idSegment)
          return revoked
        }),
      ),
  }
}
