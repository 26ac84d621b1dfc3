/**
 * What happens after a delivery attempt (CONTRACT.md "Webhooks"): a 2xx delivers; a 410 stops
 * for good; anything else (another status, a timeout, a refused connection) is retried after
 * the next delay of the schedule, until the schedule runs out and the event is failed.
 */

/**
 * What one delivery attempt got: the receiver's status code, or an `error` (timeout, refused
 * connection) and no status; and how long it took.
 */
export type AttemptResult = { readonly statusCode: number | null; readonly error: string | null; readonly durationMs: number }

/**
 * What happens after a delivery attempt (CONTRACT.md "Webhooks"): a 2xx delivers; a 410 stops
 * for good; anything else (another status, a timeout, a refused connection) is retried after
 * the next delay of the schedule, until the schedule runs out and the event is failed.
 */
export type AttemptOutcome =
  | { readonly _tag: 'Delivered' }
  | { readonly _tag: 'Failed'; readonly reason: 'gone' | 'schedule_exhausted' }
  | { readonly _tag: 'RetryAt'; readonly at: Date }

/**
 * `attemptNumber` is the attempt just made (1 for the first). `schedule[i]` is the delay in
 * seconds before attempt i + 1, so the schedule's length is the number of attempts. `jitter`
 * in [0, 1) spreads retries by up to +10% so a receiver that comes back is not hit by every
 * sender at once.
 */
export const afterAttempt = (
  result: AttemptResult,
  attemptNumber: number,
  schedule: readonly number[],
  now: Date,
  jitter: number,
): AttemptOutcome => {
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return { _tag: 'Delivered' }
  if (result.statusCode === 410) return { _tag: 'Failed', reason: 'gone' }
  const delaySeconds = schedule[attemptNumber]
  if (delaySeconds === undefined) return { _tag: 'Failed', reason: 'schedule_exhausted' }
  return { _tag: 'RetryAt', at: new Date(now.getTime() + Math.round(delaySeconds * 1000 * (1 + 0.1 * jitter))) }
}
