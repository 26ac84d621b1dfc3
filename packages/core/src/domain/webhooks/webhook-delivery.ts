
/** The receiver's status code, or an `error` (timeout, refused connection) and no status. */
export type AttemptResult = { readonly statusCode: number | null; readonly error: string | null; readonly durationMs: number }

/** A 2xx delivers; a 410 stops for good; anything else retries on the schedule until it runs out (CONTRACT.md "Webhooks"). */
export type AttemptOutcome =
  | { readonly _tag: 'Delivered' }
  | { readonly _tag: 'Failed'; readonly reason: 'gone' | 'schedule_exhausted' }
  | { readonly _tag: 'RetryAt'; readonly at: Date }

/** `schedule[i]` is the delay in seconds before attempt i + 1; `jitter` in [0, 1) adds up to 10%. */
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
