import type { AttemptOutcome, StoreUnavailable } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Logger } from 'pino'
import type { Metrics } from './metrics.js'

export type WebhookWorker = {
  /** Finishes the round in progress, then stops. */
  readonly stop: () => Promise<void>
}

/** Events a delivery round claims. */
export const WEBHOOK_BATCH = 25

/**
 * Runs delivery rounds: immediately again while rounds come back full, otherwise every
 * `pollMs`. A short poll (default 200 ms) rather than LISTEN/NOTIFY: it needs no dedicated
 * connection, works the same on embedded and server PostgreSQL, and keeps approval-to-delivery
 * well under a second; several processes can run it on one database (claims are exclusive).
 */
export const startWebhookWorker = (
  round: (limit: number) => Promise<E.Either<StoreUnavailable, readonly AttemptOutcome[]>>,
  logger: Logger,
  metrics: Pick<Metrics, 'deliveryAttempt'>,
  pollMs = 200,
): WebhookWorker => {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let current: Promise<void> = Promise.resolve()

  const tick = (): void => {
    current = (async () => {
      let full = true
      while (full && !stopped) {
        const result = await round(WEBHOOK_BATCH)
        if (E.isLeft(result)) {
          logger.warn({ err: result.left.cause }, 'webhook delivery round failed; will retry')
          full = false
        } else {
          for (const outcome of result.right) {
            metrics.deliveryAttempt(outcome)
            if (outcome._tag === 'Failed') logger.warn({ reason: outcome.reason }, 'webhook event failed for good')
          }
          full = result.right.length === WEBHOOK_BATCH
        }
      }
    })()
    void current.finally(() => {
      if (!stopped) timer = setTimeout(tick, pollMs)
    })
  }
  tick()
  return {
    stop: async () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await current
    },
  }
}
