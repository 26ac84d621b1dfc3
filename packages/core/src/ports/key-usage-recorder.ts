import type { ApiKeyId } from '../domain/foundations/ids.js'
/** Notes key uses, buffered and written by `flush` (on a timer and at shutdown); never fails the request. */
export type KeyUsageRecorder = {
  /** Returns at once. */
  readonly record: (keyId: ApiKeyId, at: Date) => void
  /** Resolves when written or given up on. */
  readonly flush: () => Promise<void>
}
