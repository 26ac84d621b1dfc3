/** Fixed-window rate limits: what a count means. The limiters in `stateful/` count. */

export type RatePolicy = {
  readonly name: string
  readonly limit: number
  readonly windowSeconds: number
}

/** `remaining` after this request (0 when refused); `resetSeconds` until the window ends, at least 1, also the `Retry-After`. */
export type RateDecision = {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

/** `start` inclusive, `end` exclusive. */
export type RateWindow = { readonly start: Date; readonly end: Date }

/** FNV-1a (32 bit): a stable, cheap spread, not a secret. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/** Windows aligned to the epoch shifted by a per-bucket offset, so refused clients do not all return the same second. */
export const windowOf = (bucket: string, windowSeconds: number, now: Date): RateWindow => {
  const length = windowSeconds * 1000
  const offset = (fnv1a(bucket) % windowSeconds) * 1000
  const start = Math.floor((now.getTime() - offset) / length) * length + offset
  return { start: new Date(start), end: new Date(start + length) }
}

export const secondsUntilReset = (window: RateWindow, now: Date): number =>
  Math.max(1, Math.ceil((window.end.getTime() - now.getTime()) / 1000))

export const decide = (policy: RatePolicy, used: number, window: RateWindow, now: Date): RateDecision => {
  const allowed = used < policy.limit
  return {
    allowed,
    limit: policy.limit,
    remaining: allowed ? policy.limit - used - 1 : 0,
    resetSeconds: secondsUntilReset(window, now),
  }
}

/** The decision for an attempt a failed-attempts limit let run, the window holding `failures` after it. */
export const attemptAdmitted = (policy: RatePolicy, failures: number, window: RateWindow, now: Date): RateDecision => ({
  allowed: true,
  limit: policy.limit,
  remaining: policy.limit - failures,
  resetSeconds: secondsUntilReset(window, now),
})
