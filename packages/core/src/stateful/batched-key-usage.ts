import * as E from 'fp-ts/lib/Either.js'
import type { ApiKeyRepository } from '../ports/api-key-repository.js'
import type { KeyUsageRecorder } from '../ports/key-usage-recorder.js'
import type { ApiKeyId } from '../domain/foundations/ids.js'

/** Where usage goes, and whom to tell when a flush fails. */
export type BatchedKeyUsageDeps = {
  readonly apiKeys: Pick<ApiKeyRepository, 'recordUsage'>
  /** The usage is kept for the next flush. */
  readonly onFlushError: (error: unknown) => void
}

/** Keeps each key's latest use in memory, written in one statement per `flush`; a failed flush keeps its batch. */
export const batchedKeyUsage = (deps: BatchedKeyUsageDeps): KeyUsageRecorder => {
  let pending = new Map<ApiKeyId, Date>()
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
