import { isUuid, isWebhookEventId, type RateDecision, type RateLimiter, type RatePolicy } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { ParameterizedContext } from 'koa'
import type { RateLimitSettings } from '../config.js'
import type { AppDeps } from '../deps.js'
import type { Operation } from '../routes/operations.js'
import type { AppContext, AppState } from './context.js'
import type { RateLimitExceeded } from './problems.js'
import { RATE_POLICY } from './rate-policies.js'

/** One limit of a route: which limiter counts, under which policy, in which bucket. */
export type RouteLimit = {
  readonly limiter: RateLimiter
  readonly policy: RatePolicy
  /** The request's bucket; undefined when the limit does not apply to it. */
  readonly bucketOf: (ctx: AppContext) => string | undefined
}

export type Taken = { readonly policy: RatePolicy; readonly decision: RateDecision }

/** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, structured fields): quota and window of each policy. */
export const policyHeader = (policies: readonly RatePolicy[]): string =>
  policies.map((policy) => `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`).join(', ')

/** `RateLimit`: what remains of each policy's quota and the seconds until its window resets. */
const stateHeader = (taken: readonly Taken[]): string =>
  taken.map(({ policy, decision }) => `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`).join(', ')

/** The `RateLimit-Policy` (`policies`, made by `policyHeader`) and `RateLimit` headers of the limits a request consulted. */
export const setRateLimitHeaders = (ctx: ParameterizedContext<AppState>, policies: string, taken: readonly Taken[]): void => {
  ctx.res.setHeader('RateLimit-Policy', policies)
  ctx.res.setHeader('RateLimit', stateHeader(taken))
}

/** The 429 of a refused request. */
export const exceeded = ({ policy, decision }: Taken): RateLimitExceeded => ({
  _tag: 'RateLimitExceeded',
  policy: policy.name,
  limit: policy.limit,
  windowSeconds: policy.windowSeconds,
  retryAfterSeconds: decision.resetSeconds,
})

/** Applies a route's limits to one request: a Left is the 429 to answer. */
export type RequestLimit = (ctx: ParameterizedContext<AppState>) => Promise<E.Either<RateLimitExceeded, void>>

/**
 * One request taken from `limiter` in `bucket`: its decision, or undefined when the limiter's
 * store is unavailable, with a logged warning naming what went ahead without the limit (fail
 * open: a store outage never becomes a 5xx through a rate limit).
 */
export const takeOrWarn = async (
  ctx: ParameterizedContext<AppState>,
  limiter: RateLimiter,
  bucket: string,
  policy: RatePolicy,
  admitted: string,
): Promise<RateDecision | undefined> => {
  const result = await limiter.take(bucket, policy)()
  if (E.isRight(result)) return result.right
  ctx.state.log.warn({ err: result.left.cause, policy: policy.name }, `rate limit store unavailable; ${admitted} without this limit`)
  return undefined
}

/**
 * Takes one request from each limit in turn (stopping at the first refusal) and sets the
 * `RateLimit-Policy` and `RateLimit` headers for the policies it consulted; a refusal ends the
 * request with 429 `rate_limited` and `Retry-After` before anything else runs. If a limiter's
 * store is unavailable, that limit is skipped with a logged warning (fail open): the request
 * still meets every other check, and a store outage never becomes a 5xx here.
 */
export const limitedBy = (limits: readonly RouteLimit[]): RequestLimit => {
  // The usual answer (every limit consulted) has the same policy header on every request.
  const everyPolicy = policyHeader(limits.map(({ policy }) => policy))
  const conclude = (ctx: ParameterizedContext<AppState>, taken: readonly Taken[]): E.Either<RateLimitExceeded, void> => {
    if (taken.length > 0) setRateLimitHeaders(ctx, taken.length === limits.length ? everyPolicy : policyHeader(taken.map(({ policy }) => policy)), taken)
    const refused = taken.find((t) => !t.decision.allowed)
    return refused === undefined ? E.right(undefined) : E.left(exceeded(refused))
  }
  return async (ctx) => {
    const taken: Taken[] = []
    for (const limit of limits) {
      const bucket = limit.bucketOf(ctx as AppContext)
      if (bucket === undefined) continue
      const decision = await takeOrWarn(ctx, limit.limiter, bucket, limit.policy, 'request admitted')
      if (decision === undefined) continue
      taken.push({ policy: limit.policy, decision })
      if (!decision.allowed) break
    }
    return conclude(ctx, taken)
  }
}

const keyBucket =
  (prefix: string) =>
  (ctx: AppContext): string | undefined =>
    ctx.state.caller === undefined ? undefined : `${prefix}:${ctx.state.caller.keyId}`

/**
 * The limits of an operation (docs/decisions.md): every partner route counts against its API
 * key (`key:<apiKeyId>`, the synced limiter: no database round trip per request); the
 * verification routes also against `verify:<apiKeyId>`, a manual webhook retry or resend against
 * `retry:<apiClientId>:<eventId>` and a recovery against `recover:<apiClientId>:<endpointId>`, each exactly (one upsert per request). Partner limits go
 * right after authentication. The mint and internal routes count failed attempts instead
 * (`http/caller.ts`); unauthenticated routes are not limited.
 */
export const limitsFor = (op: Operation, deps: Pick<AppDeps, 'rateLimiter' | 'exactRateLimiter'>, settings: RateLimitSettings): readonly RouteLimit[] => {
  const w = settings.windowSeconds
  switch (op.auth) {
    case 'partner': {
      const general: RouteLimit = { limiter: deps.rateLimiter, policy: { name: RATE_POLICY.default, limit: settings.requests, windowSeconds: w }, bucketOf: keyBucket('key') }
      const verification: RouteLimit = {
        limiter: deps.exactRateLimiter,
        policy: { name: RATE_POLICY.verification, limit: settings.verificationRequests, windowSeconds: w },
        bucketOf: keyBucket('verify'),
      }
      const webhookRetry: RouteLimit = {
        limiter: deps.exactRateLimiter,
        policy: { name: RATE_POLICY.webhookRetry, limit: settings.webhookRetries, windowSeconds: w },
        // Per event and API client, so no one else can use up an event's retries (a recovery,
        // which names no event, per endpoint); a malformed id is refused 400 without being
        // counted (or stored as a bucket).
        bucketOf: (ctx) => {
          const eventId = ctx.params['eventId']
          const endpointId = ctx.params['endpointId']
          const clientId = ctx.state.caller?.clientId
          if (clientId === undefined) return undefined
          if (eventId !== undefined) return isWebhookEventId(eventId) ? `retry:${clientId}:${eventId}` : undefined
          return endpointId !== undefined && isUuid(endpointId) ? `recover:${clientId}:${endpointId}` : undefined
        },
      }
      switch (op.extraLimit) {
        // Sending a code costs a delivery, checking one an scrypt hash.
        case 'verification':
          return [general, verification]
        // Each manual retry is a delivery to the partner's endpoint: counted per event, whoever asks.
        case 'webhook_retry':
          return [general, webhookRetry]
        case undefined:
          return [general]
      }
    }
    case 'mint':
    case 'internal':
    case 'session':
    case 'none':
      return []
  }
}
