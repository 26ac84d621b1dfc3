import type { ApiKeyId } from '../domain/foundations/ids.js'
/** Notes key uses, buffered and written by `flush` (on a timer and at shutdown); never fails the request. */
export type KeyUsageRecorder = {
  readonly record: (keyId: ApiKeyId, at: Date) => void
  readonly flush: () => Promise<void>
}
