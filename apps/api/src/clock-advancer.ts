import type { StoreUnavailable, TestClock } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Logger } from 'pino'

export type ClockAdvancer = {
  /** Looks for an advance to work now rather than at the next poll (an advance was just asked for). */
  readonly wake: () => void
  /** Finishes the advance in progress, then stops. */
  readonly stop: () => Promise<void>
}

/**
 * Works the test clocks' advances (decision 131) in this process: claims one clock at a time
 * (`advanceClaimedClock`) and works it to its end, while there are any; then polls every `pollMs`,
 * or sooner when woken. Several processes may run it on one database: a claim is exclusive, and a
 * clock whose process died is resumed by another once its lease runs out.
 */
export const startClockAdvancer = (advance: () => TE.TaskEither<StoreUnavailable, O.Option<TestClock>>, logger: Logger, pollMs = 500): ClockAdvancer => {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running = false
  let current: Promise<void> = Promise.resolve()

  const tick = (): void => {
    timer = undefined
    running = true
    current = (async () => {
      while (!stopped) {
        const worked = await advance()()
        if (E.isLeft(worked)) {
          logger.warn({ err: worked.left.cause }, 'a test clock advance failed; will retry')
          return
        }
        if (O.isNone(worked.right)) return
        logger.info({ test_clock_id: worked.right.value.id, frozen_time: worked.right.value.frozenTime }, 'test clock advanced')
      }
    })()
    void current.finally(() => {
      running = false
      if (!stopped) timer = setTimeout(tick, pollMs)
    })
  }
  tick()
  return {
    wake: () => {
      if (stopped || running || timer === undefined) return
      clearTimeout(timer)
      tick()
    },
    stop: async () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      await current
    },
  }
}
