import * as TE from 'fp-ts/lib/TaskEither.js'
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, type IdempotencyClaim, type IdempotencyKeyRef, type IdempotencyStore, type StoredResponse } from '../ports/idempotency-store.js'

type Entry = { fingerprint: string; claimedAt: Date; response: StoredResponse | null }

const id = (ref: IdempotencyKeyRef): string => `${ref.scope}\u0000${ref.key}`

/** An in-memory `IdempotencyStore`, which can also forget a scope's records. */
export type InMemoryIdempotencyStore = IdempotencyStore & {
  /** Deletes every record of `scope` (a wipe of the test world). */
  readonly forgetScope: (scope: string) => void
}

/** Same semantics as the PostgreSQL store, for use-case tests and embedders without a database. */
export const inMemoryIdempotencyStore = (): InMemoryIdempotencyStore => {
  const entries = new Map<string, Entry>()
  return {
    forgetScope: (scope) => {
      for (const k of [...entries.keys()]) if (k.startsWith(`${scope}\u0000`)) entries.delete(k)
    },
    claim: (ref, fingerprint, now) =>
      TE.fromIO((): IdempotencyClaim => {
        const entry = entries.get(id(ref))
        const expired = entry !== undefined && now.getTime() - entry.claimedAt.getTime() > IDEMPOTENCY_RETENTION_MS
        if (entry === undefined || expired) {
          entries.set(id(ref), { fingerprint, claimedAt: now, response: null })
          return { _tag: 'Claimed' }
        }
        if (entry.fingerprint !== fingerprint) return { _tag: 'Mismatch' }
        if (entry.response !== null) return { _tag: 'Replay', response: entry.response }
        if (now.getTime() - entry.claimedAt.getTime() > IDEMPOTENCY_LEASE_MS) {
          entry.claimedAt = now
          return { _tag: 'Claimed' }
        }
        return { _tag: 'InProgress' }
      }),
    complete: (ref, response) =>
      TE.fromIO(() => {
        const entry = entries.get(id(ref))
        if (entry !== undefined) entry.response = response
      }),
    release: (ref) =>
      TE.fromIO(() => {
        const entry = entries.get(id(ref))
        if (entry !== undefined && entry.response === null) entries.delete(id(ref))
      }),
    purgeExpired: (now) =>
      TE.fromIO(() => {
        let purged = 0
        for (const [k, entry] of entries) {
          if (now.getTime() - entry.claimedAt.getTime() > IDEMPOTENCY_RETENTION_MS) {
            entries.delete(k)
            purged += 1
          }
        }
        return purged
      }),
  }
}
