import type { KeyRevocationEvent, KeyRevocations } from '@lendgate/core'
import { KEY_REVOKED_CHANNEL } from './api-key-repository.js'
import type { OpenDatabase } from './database.js'

/**
 * Revocation news from PostgreSQL LISTEN/NOTIFY (issue 8). `start` listens; until then (and
 * after `stop`) nothing is heard. A dropped connection is a `reset`: caches drop everything.
 */
export const postgresKeyRevocations = (
  database: Pick<OpenDatabase, 'listen'>,
): KeyRevocations & { readonly start: () => Promise<void>; readonly stop: () => Promise<void> } => {
  const listeners = new Set<(event: KeyRevocationEvent) => void>()
  const emit = (event: KeyRevocationEvent) => listeners.forEach((listener) => listener(event))
  let stopListening: (() => Promise<void>) | undefined
  return {
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    start: async () => {
      stopListening ??= await database.listen(KEY_REVOKED_CHANNEL, (idSegment) => emit({ kind: 'revoked', idSegment }), () => emit({ kind: 'reset' }))
    },
    stop: async () => {
      const stop = stopListening
      stopListening = undefined
      await stop?.()
    },
  }
}
