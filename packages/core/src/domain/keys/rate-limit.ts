/**
 * Rate limiting (issue 9): fixed windows per bucket, and the pure arithmetic of a decision.
 * The limiters in `stateful/` count; these functions say what a count means.
 */

/** A limit: at most `limit` requests per `windowSeconds`, named for the `RateLimit` headers. */
export type RatePolicy = {
  readonly name: string
  readonly limit: number
  readonly windowSeconds: number
}

/**
 * The answer for one request. `remaining` is what is left in the window after this request
 * (0 when refused); `resetSeconds` is when the window ends, in whole seconds rounded up (at
 * least 1), which is also the `Retry-After` of a refusal.
 */
export type RateDecision = {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

/** One window of a bucket: `start` inclusive, `end` exclusive. */
export type RateWindow = { readonly start: Date; readonly end: Date }

/** FNV-1a (32 bit) of the UTF-16 code units: a stable, cheap spread, not a secret. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/**
 * The window of `bucket` that contains `now`. Windows are `windowSeconds` long and aligned to
 * the Unix epoch shifted by a per-bucket offset (whole seconds, from a hash of the bucket
 * name): every instance computes the same window for a bucket, but buckets do not all reset at
 * the same second, so clients refused together do not all come back together.
 */
export const windowOf = (bucket: string, windowSeconds: number, now: Date): RateWindow => {
  const length = windowSeconds * 1000
  const offset = (fnv1a(bucket) % windowSeconds) * 1000
  const start = Math.floor((now.getTime() - offset) / length) * length + offset
  return { start: new Date(start), end: new Date(start + length) }
}

/** Whole seconds from `now` until `window` ends, rounded up: at least 1, at most the window. */
export const secondsUntilReset = (window: RateWindow, now: Date): number =>
  Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000))

/**
 * The decision for one more request when `used` requests were already admitted in `window`:
 * admitted while `used` is below the limit.
 */
export const decide = (policy: RatePolicy, used: number, window: RateWindow, now: Date): RateDecision => {
  const allowed = used < policy.limit
  return {
    allowed,
    limit: policy.limit,
    remaining: allowed ? policy.limit - used - 1 : 0,
    resetSeconds: secondsUntilReset(window, now),
  }
}

/**
 * The decision for an attempt that a limit on failed attempts let run (`AttemptLimiter`), once
 * the window holds `failures` after it (this one included if it failed): admitted, `remaining`
 * the failures still allowed. An attempt runs only while the failures before it are below the
 * limit, so `failures` is at most the limit. A refused attempt is `decide(policy, policy.limit, …)`.
 */
export const attemptAdmitted = (policy: RatePolicy, failures: number, window: RateWindow, now: Date): RateDecision => ({
  allowed: true,
  limit: policy.limit,
  remaining: policy.limit - failures,
  resetSeconds: secondsUntilReset(window, now),
})
