import * as E from 'fp-ts/lib/Either.js'
import type { ApiKeyRepository } from '../ports/api-key-repository.js'
import type { KeyUsageRecorder } from '../ports/key-usage-recorder.js'
import type { ApiKeyId } from '../domain/foundations/ids.js'

/** What `batchedKeyUsage` needs: where to write usage, and whom to tell when a write fails. */
export type BatchedKeyUsageDeps = {
  readonly apiKeys: Pick<ApiKeyRepository, 'recordUsage'>
  /** Called with the store's error when a flush fails; the usage is kept for the next flush. */
  readonly onFlushError: (error: unknown) => void
}

/**
 * A `KeyUsageRecorder` that keeps the latest use of each key in memory and writes them all in
 * one statement per `flush`. The composition root calls `flush` on a timer and at shutdown, so
 * `last_used_at` is at most one interval stale and a busy key costs one write per interval,
 * not one per request. A failed flush merges its batch back so nothing is lost.
 */
export const batchedKeyUsage = (deps: BatchedKeyUsageDeps): KeyUsageRecorder => {
  let pending = new Map<ApiKeyId, Date>()
  /** Keeps the later of `at` and what is pending for the key (every authenticated request calls this). */
  const note = (keyId: ApiKeyId, at: Date): void => {
    const seen = pending.get(keyId)
    if (seen === undefined || seen.getTime() < at.getTime()) pending.set(keyId, at)
  }
  const merge = (batch: ReadonlyMap<ApiKeyId, Date>): void => {
    for (const [keyId, at] of batch) note(keyId, at)
  }
  return {
    record: note,
    flush: async () => {
      if (pending.size === 0) return
      const batch = pending
      pending = new Map()
      const result = await deps.apiKeys.recordUsage(batch)()
      if (E.isLeft(result)) {
        merge(batch)
        deps.onFlushError(result.left.cause)
      }
    },
  }
}
