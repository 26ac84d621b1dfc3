import { idSegmentToLookUp, isWebhookEventId, type AttemptLimiter, type RateDecision, type RateLimiter, type RatePolicy } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Middleware, ParameterizedContext } from 'koa'
import type { RateLimitSettings } from '../config.js'
import type { AppDeps } from '../deps.js'
import type { Operation } from '../routes/operations.js'
import { presentedApiKeyIn } from './auth.js'
import { declaresBody } from './body.js'
import { clientAddress } from './client-address.js'
import type { AppContext, AppState } from './context.js'
import type { RateLimitExceeded } from './problems.js'
import { HEALTH_PROBES, METRICS_PATH } from './probes.js'
import { RATE_POLICY } from './rate-policies.js'
import { answerProblem } from './respond.js'

/** One limit of a route: which limiter counts, under which policy, in which bucket. */
export type RouteLimit = {
  readonly limiter: RateLimiter
  readonly policy: RatePolicy
  /** The request's bucket; undefined when the limit does not apply to it. */
  readonly bucketOf: (ctx: AppContext) => string | undefined
}

type Taken = { readonly policy: RatePolicy; readonly decision: RateDecision }

/** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, structured fields): quota and window of each policy. */
const policyHeader = (policies: readonly RatePolicy[]): string =>
  policies.map((policy) => `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`).join(', ')

/** `RateLimit`: what remains of each policy's quota and the seconds until its window resets. */
const stateHeader = (taken: readonly Taken[]): string =>
  taken.map(({ policy, decision }) => `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`).join(', ')

/** The `RateLimit-Policy` (`policies`, made by `policyHeader`) and `RateLimit` headers of the limits a request consulted. */
const setRateLimitHeaders = (ctx: ParameterizedContext<AppState>, policies: string, taken: readonly Taken[]): void => {
  ctx.res.setHeader('RateLimit-Policy', policies)
  ctx.res.setHeader('RateLimit', stateHeader(taken))
}

/** The 429 of a refused request. */
const exceeded = ({ policy, decision }: Taken): RateLimitExceeded => ({
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
const takeOrWarn = async (
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

/** Runs one attempt at a secret (`check`) under a limit on failed attempts; a Left is what to answer: the check's failure, or the 429 of a refused attempt. */
export type AttemptLimit = <F>(ctx: ParameterizedContext<AppState>, check: () => E.Either<F, void>) => Promise<E.Either<F | RateLimitExceeded, void>>

/**
 * A limit on failed attempts at an operator secret, per client address (`<prefix>:<client
 * address>`, `RATE_LIMIT_MINT_REQUESTS` a window), counted exactly by the attempt limiter, which
 * decides each attempt under its bucket's lock (decision 109). A right secret never counts; once
 * an address has used up its failed attempts, every attempt from it is refused with 429
 * `rate_limited` (`policy`) until the window ends, the right secret included and not compared,
 * or the limit would not bound guessing. `RateLimit` tells the failed attempts left. A store
 * failure checks the secret without the limit, with a logged warning (fail open, as `limitedBy`).
 */
const secretAttemptLimit = (deps: Pick<AppDeps, 'attemptLimiter'>, policy: RatePolicy, prefix: string, secret: string): AttemptLimit => {
  const policies = policyHeader([policy])
  return async (ctx, check) => {
    const attempted = await deps.attemptLimiter.attempt(`${prefix}:${clientAddressOf(ctx)}`, policy, check)()
    if (E.isLeft(attempted)) {
      ctx.state.log.warn({ err: attempted.left.cause, policy: policy.name }, `rate limit store unavailable; ${secret} checked without this limit`)
      return check()
    }
    const { decision, outcome } = attempted.right
    setRateLimitHeaders(ctx, policies, [{ policy, decision }])
    return O.isSome(outcome) ? outcome.value : E.left(exceeded({ policy, decision }))
  }
}

/**
 * The mint limit (decision 109): failed mint attempts (a wrong or empty mint secret) per client
 * address (`mint:<client address>`, policy `mint`), so a partner backend minting key after key
 * is never refused by it (`secretAttemptLimit`).
 */
export const mintAttemptLimit = (deps: Pick<AppDeps, 'attemptLimiter'>, settings: RateLimitSettings): AttemptLimit =>
  secretAttemptLimit(deps, { name: RATE_POLICY.mint, limit: settings.mintRequests, windowSeconds: settings.windowSeconds }, 'mint', 'mint secret')

/**
 * The internal-token limit (decision 112): failed authentications at `/internal/*` and
 * `/metrics` (a wrong or missing Bearer token) per client address, in a count of their own
 * (`internal:<client address>`, policy `internal`) with the mint secret's budget
 * (`secretAttemptLimit`): two secrets, each guessed on its own, and a partner mistyping the mint
 * secret never locks the operators out of their routes.
 */
export const internalAttemptLimit = (deps: Pick<AppDeps, 'attemptLimiter'>, settings: RateLimitSettings): AttemptLimit =>
  secretAttemptLimit(deps, { name: RATE_POLICY.internal, limit: settings.mintRequests, windowSeconds: settings.windowSeconds }, 'internal', 'internal token')

/** The client address a per-address limit counts under (`clientAddress`), from the request's address. */
const clientAddressOf = (ctx: Pick<AppContext, 'ip'>): string => clientAddress(ctx.ip)

const keyBucket =
  (prefix: string) =>
  (ctx: AppContext): string | undefined =>
    ctx.state.caller === undefined ? undefined : `${prefix}:${ctx.state.caller.keyId}`

/**
 * The limits of an operation (docs/decisions.md): every partner route counts against its API
 * key (`key:<apiKeyId>`, the synced limiter: no database round trip per request); the
 * verification routes also against `verify:<apiKeyId>`, a manual webhook retry against
 * `retry:<apiClientId>:<eventId>`, both exactly (one upsert per request). Partner limits go
 * right after authentication. The mint route counts failed attempts, not requests
 * (`mintAttemptLimit`), the internal routes failed internal-token authentications
 * (`internalAttemptLimit`); unauthenticated routes are not limited.
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
        // Per event and API client, so no one else can use up an event's retries; a malformed
        // event id is refused 400 without being counted (or stored as a bucket).
        bucketOf: (ctx) => {
          const eventId = ctx.params['eventId']
          const clientId = ctx.state.caller?.clientId
          return eventId !== undefined && clientId !== undefined && isWebhookEventId(eventId) ? `retry:${clientId}:${eventId}` : undefined
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
    case 'none':
      return []
  }
}

/** Admits or refuses one partner request's key lookup (`keyLookupLimit`); a refusal is the 429 to answer. */
export type KeyLookupLimit = (ctx: AppContext, presented: string) => Promise<E.Either<RateLimitExceeded, void>>

/**
 * The key-lookup limit (docs/decisions.md), the step before a partner key is authenticated: a
 * key that authentication would look up in the store (well-formed, a valid checksum:
 * `idSegmentToLookUp`) and that the key cache does not hold is admitted only while the client
 * address has lookups left in the window (`lookup:<client address>`, `RATE_LIMIT_KEY_LOOKUPS`,
 * the synced limiter). A valid key is looked up once and then held, so this bounds what forged
 * keys with a valid checksum cost the store, not what partners do. Past the limit the request
 * is answered 429 `rate_limited` (policy `key_lookups`) without the lookup; a key the cache
 * holds still passes, and a key refused by its format or checksum is not counted. A store
 * failure of the limiter admits the lookup with a logged warning, as `limitedBy` does.
 */
export const keyLookupLimit = (deps: Pick<AppDeps, 'keyCache' | 'keyMaterial' | 'rateLimiter'>, settings: RateLimitSettings): KeyLookupLimit => {
  const policy: RatePolicy = { name: RATE_POLICY.keyLookups, limit: settings.keyLookups, windowSeconds: settings.windowSeconds }
  const policies = policyHeader([policy])
  const toLookUp = idSegmentToLookUp(deps.keyMaterial)
  return async (ctx, presented) => {
    const idSegment = toLookUp(presented)
    if (O.isNone(idSegment) || deps.keyCache.held(idSegment.value) !== undefined) return E.right(undefined)
    const decision = await takeOrWarn(ctx, deps.rateLimiter, `lookup:${clientAddressOf(ctx)}`, policy, 'key looked up')
    if (decision === undefined || decision.allowed) return E.right(undefined)
    const taken: Taken = { policy, decision }
    setRateLimitHeaders(ctx, policies, [taken])
    return E.left(exceeded(taken))
  }
}

/**
 * Whether a request presents a credential worth checking: a partner key whose format and
 * checksum hold (checked in memory: `idSegmentToLookUp`; forged keys that pass are counted by
 * the key-lookup limit), a Bearer token on an internal route, or the mint secret on the mint
 * route (counted by the mint limit). Anything else, junk headers included, is keyless.
 */
const presentsCredential =
  (toLookUp: ReturnType<typeof idSegmentToLookUp>) =>
  (ctx: AppContext): boolean => {
    const key = presentedApiKeyIn(ctx.get('Authorization'), ctx.get('X-Api-Key'))
    if (key !== undefined && O.isSome(toLookUp(key))) return true
    if ((ctx.path.startsWith('/internal/') || ctx.path === METRICS_PATH) && /^Bearer[ \t]/i.test(ctx.get('Authorization'))) return true
    return ctx.method === 'POST' && ctx.path === '/public/partner/api-keys' && ctx.get('X-Partner-Mint-Key') !== ''
  }

/** Load balancers' probes, which must never be refused for what other anonymous clients do (sent without a body). */
const isProbe = (ctx: AppContext): boolean => HEALTH_PROBES.has(ctx.path) && !declaresBody(ctx.req.headers)

/**
 * The keyless budget (docs/decisions.md), before routing: a request that presents no credential
 * worth checking (`presentsCredential`: a 401 to come, a 404 scan, the OpenAPI document, a junk
 * key) counts against its client address
 * (`keyless:<client address>`, `RATE_LIMIT_KEYLESS_REQUESTS`, the synced limiter); past it, 429
 * `rate_limited` (policy `keyless`), and the connection is closed after the answer without
 * reading what the client is still sending (within the budget, an unread body is read and
 * dropped so the answer arrives whole: `bodyBounds`). The health probes (without a body) are
 * exempt, and CORS preflights are answered before it. Requests with a credential meet the limits of what they
 * present instead.
 */
export const keylessBudget = (deps: Pick<AppDeps, 'rateLimiter' | 'keyMaterial'>, settings: RateLimitSettings): Middleware<AppState> => {
  const credentialed = presentsCredential(idSegmentToLookUp(deps.keyMaterial))
  const limit = limitedBy([
    {
      limiter: deps.rateLimiter,
      policy: { name: RATE_POLICY.keyless, limit: settings.keylessRequests, windowSeconds: settings.windowSeconds },
      bucketOf: (ctx) => (credentialed(ctx) || isProbe(ctx) ? undefined : `keyless:${clientAddressOf(ctx)}`),
    },
  ])
  return async (ctx, next) => {
    const limited = await limit(ctx)
    if (E.isRight(limited)) return next()
    ctx.set('Connection', 'close')
    answerProblem(ctx, limited.left)
  }
}
