import type { ApiKeyId } from '../domain/foundations/ids.js'
/**
 * Notes that a key was used. Called on every authenticated request, so it must not write per
 * call: implementations buffer and write in batches (`flush`), and `flush` is also called at
 * shutdown. Never fails the request it is called from.
 */
export type KeyUsageRecorder = {
  /** Notes that `keyId` authenticated a request at `at`; returns at once. */
  readonly record: (keyId: ApiKeyId, at: Date) => void
  /** Writes what was noted since the last flush; resolves when written (or given up on). */
  readonly flush: () => Promise<void>
}
