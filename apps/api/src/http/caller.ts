import { secretsEqual } from '@lendgate/adapters'
import {
  authenticateApiKey,
  idSegmentToLookUp,
  KEY_PREFIX,
  missingApiKey,
  operatorOfSession,
  requirePermission,
  requireOwnParty,
  requireScope,
  invalidOperatorSession,
  type AuthenticateApiKeyDeps,
  type SignInGuard,
  type KnownScope,
  type OperatorPermission,
  type RatePolicy,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Middleware, ParameterizedContext } from 'koa'
import type { Config, RateLimitSettings } from '../config.js'
import type { AppDeps } from '../deps.js'
import { operation, type Operation } from '../routes/operations.js'
import { declaresBody } from './body.js'
import { clientAddress } from './client-address.js'
import type { AppContext, AppState } from './context.js'
import { HEALTH_PROBES, METRICS_PATH } from './probes.js'
import { invalidCsrfToken, invalidInternalToken, invalidMintKey, serverMisconfigured, testModeOnly, type RateLimitExceeded } from './problems.js'
import { exceeded, limitedBy, limitsFor, policyHeader, setRateLimitHeaders, takeOrWarn, type RequestLimit } from './rate-limit.js'
import { RATE_POLICY } from './rate-policies.js'
import { answerProblem } from './respond.js'

/**
 * Who is calling: the credential a request presents (a partner key, the mint secret, the internal
 * token, or none), the limits on guessing each, and the keyless budget. The only module that reads
 * a credential off a request.
 */

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

const bearerIn = (authorization: string): string | undefined => BEARER.exec(authorization)?.[1]

/**
 * The partner key of a request (spec §5.2): a Bearer value that starts with the key prefix, else
 * the `X-Api-Key` header. A Bearer value without the prefix is not a key.
 */
export const presentedApiKey = (ctx: Pick<AppContext, 'get'>): string | undefined => {
  const bearer = bearerIn(ctx.get('Authorization'))
  if (bearer !== undefined && bearer.startsWith(KEY_PREFIX)) return bearer
  const header = ctx.get('X-Api-Key').trim()
  return header === '' ? undefined : header
}

/** The client address a per-address limit counts under (`clientAddress`). */
const clientAddressOf = (ctx: Pick<AppContext, 'ip'>): string => clientAddress(ctx.ip)

/**
 * The console session's cookie (decision 149): `__Host-` binds it to the origin that set it, over
 * HTTPS (browsers count http://localhost and 127.0.0.1 as secure), on every path.
 */
export const OPERATOR_SESSION_COOKIE = '__Host-lendgate_operator'
/** The header a console session's request that changes something sends its CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token'

/** The console session's token a request presents in its cookie, if any. */
export const presentedSessionToken = (ctx: Pick<AppContext, 'cookies'>): string | undefined => {
  const token = ctx.cookies.get(OPERATOR_SESSION_COOKIE, { signed: false })
  return token === undefined || token === '' ? undefined : token
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Runs one attempt at a secret (`check`) under a limit on failed attempts; a Left is the check's failure or the 429. */
export type AttemptLimit = <F>(ctx: ParameterizedContext<AppState>, check: () => E.Either<F, void>) => Promise<E.Either<F | RateLimitExceeded, void>>

/** The bucket of `prefix` for a request's client address (`<prefix>:<client address>`). */
const perAddress =
  (prefix: string) =>
  (ctx: ParameterizedContext<AppState>): string =>
    `${prefix}:${clientAddressOf(ctx)}`

/**
 * Failed attempts at an operator secret in a bucket (`bucketOf`, usually per client address), counted
 * exactly (decision 109). A right secret never counts; past the limit every attempt is 429, the
 * right secret included and not compared. A store failure checks without the limit (fail open).
 */
const secretAttemptLimit = (deps: Pick<AppDeps, 'attemptLimiter'>, policy: RatePolicy, bucketOf: (ctx: ParameterizedContext<AppState>) => string, secret: string): AttemptLimit => {
  const policies = policyHeader([policy])
  return async (ctx, check) => {
    const attempted = await deps.attemptLimiter.attempt(bucketOf(ctx), policy, check)()
    if (E.isLeft(attempted)) {
      ctx.state.log.warn({ err: attempted.left.cause, policy: policy.name }, `rate limit store unavailable; ${secret} checked without this limit`)
      return check()
    }
    const { decision, outcome } = attempted.right
    setRateLimitHeaders(ctx, policies, [{ policy, decision }])
    return O.isSome(outcome) ? outcome.value : E.left(exceeded({ policy, decision }))
  }
}

/** How long a run of failed sign-ins to one operator's e-mail is remembered: 15 minutes, whatever the window. */
const SIGN_IN_ACCOUNT_WINDOW_SECONDS = 900

/**
 * The sign-in's guard (decision 149), built once for the routes: failed console sign-ins limited
 * with the mint budget, per client address in the usual window (`sign_in:<address>`) and per
 * e-mail over 15 minutes (`sign_in_account:<e-mail>`), so that guessing one operator's password
 * from many addresses is bounded too. Both counts are consulted before the password is hashed (an
 * attempt that cannot fail, so counting nothing), and a failed check is then counted in both; a
 * right password never counts. Past either limit, 429 without a hash. Concurrent attempts each
 * pass the first look, so a burst may hash a few past the limit.
 */
export const signInGuards = (deps: Pick<AppDeps, 'attemptLimiter'>, settings: RateLimitSettings): ((ctx: AppContext) => SignInGuard<RateLimitExceeded>) => {
  const byAddress = secretAttemptLimit(deps, { name: RATE_POLICY.signIn, limit: settings.mintRequests, windowSeconds: settings.windowSeconds }, perAddress('sign_in'), 'sign-in')
  const accountPolicy: RatePolicy = { name: RATE_POLICY.signInAccount, limit: settings.mintRequests, windowSeconds: SIGN_IN_ACCOUNT_WINDOW_SECONDS }
  return (ctx) => (email, check) => async () => {
    const limits = [byAddress, secretAttemptLimit(deps, accountPolicy, () => `sign_in_account:${email}`, 'sign-in')]
    for (const limited of limits) {
      const admitted = await limited(ctx, () => E.right(undefined))
      if (E.isLeft(admitted)) {
        ctx.state.log.warn({ policy: admitted.left.policy }, 'console sign-in refused: too many failed attempts')
        return admitted
      }
    }
    const checked = await check()
    if (E.isLeft(checked) && checked.left._tag === 'InvalidCredentials') {
      const failed = checked.left
      for (const limited of limits) await limited(ctx, () => E.left(failed))
    }
    return checked
  }
}

/** Failed mint attempts per client address (`mint:<address>`, policy `mint`, decision 109). */
const mintAttemptLimit = (deps: Pick<AppDeps, 'attemptLimiter'>, settings: RateLimitSettings): AttemptLimit =>
  secretAttemptLimit(deps, { name: RATE_POLICY.mint, limit: settings.mintRequests, windowSeconds: settings.windowSeconds }, perAddress('mint'), 'mint secret')

/**
 * Failed internal-token attempts per client address (`internal:<address>`, policy `internal`,
 * decision 112): the mint budget, counted apart, so a mistyped mint secret never locks operators out.
 */
const internalAttemptLimit = (deps: Pick<AppDeps, 'attemptLimiter'>, settings: RateLimitSettings): AttemptLimit =>
  secretAttemptLimit(deps, { name: RATE_POLICY.internal, limit: settings.mintRequests, windowSeconds: settings.windowSeconds }, perAddress('internal'), 'internal token')

/**
 * The key-lookup limit: a key authentication would look up in the store (format and checksum hold:
 * `idSegmentToLookUp`) and the key cache does not hold is admitted only while the client address
 * has lookups left (`lookup:<address>`, policy `key_lookups`, the synced limiter). It bounds what
 * forged keys with a valid checksum cost the store. A store failure admits the lookup (fail open).
 */
const keyLookupLimit = (deps: Pick<AppDeps, 'keyCache' | 'keyMaterial' | 'rateLimiter'>, settings: RateLimitSettings) => {
  const policy: RatePolicy = { name: RATE_POLICY.keyLookups, limit: settings.keyLookups, windowSeconds: settings.windowSeconds }
  const policies = policyHeader([policy])
  const toLookUp = idSegmentToLookUp(deps.keyMaterial)
  return async (ctx: AppContext, presented: string): Promise<E.Either<RateLimitExceeded, void>> => {
    const idSegment = toLookUp(presented)
    if (O.isNone(idSegment) || deps.keyCache.held(idSegment.value) !== undefined) return E.right(undefined)
    const decision = await takeOrWarn(ctx, deps.rateLimiter, `lookup:${clientAddressOf(ctx)}`, policy, 'key looked up')
    if (decision === undefined || decision.allowed) return E.right(undefined)
    const taken = { policy, decision }
    setRateLimitHeaders(ctx, policies, [taken])
    return E.left(exceeded(taken))
  }
}

/**
 * A partner route's checks, in order: the key present (401 `missing_api_key`); within the
 * key-lookup limit; authenticated (the caller put on `ctx.state`); the route's limits (`limit`);
 * on a test helper (`testOnly`), a test key (403 `test_mode_only`); on party paths, the key's
 * own party (spec §5.9); the route's scope (spec §5.8).
 */
const partnerGate = (
  deps: AuthenticateApiKeyDeps,
  lookups: ReturnType<typeof keyLookupLimit>,
  limit: RequestLimit,
  scope: KnownScope,
  testOnly: boolean,
): Middleware<AppState> => {
  const authenticate = authenticateApiKey(deps)
  const hasScope = requireScope(scope)
  return async (ctx, next) => {
    const context = ctx as AppContext
    const presented = presentedApiKey(context)
    if (presented === undefined) return answerProblem(ctx, missingApiKey)
    const admitted = await lookups(context, presented)
    if (E.isLeft(admitted)) return answerProblem(ctx, admitted.left)
    const authenticated = await authenticate(presented)()
    if (E.isLeft(authenticated)) return answerProblem(ctx, authenticated.left)
    const caller = authenticated.right
    ctx.state.caller = caller
    const limited = await limit(ctx)
    if (E.isLeft(limited)) return answerProblem(ctx, limited.left)
    if (testOnly && caller.environment !== 'test') return answerProblem(ctx, testModeOnly)
    const partyId = context.params['partyId']
    if (partyId !== undefined) {
      const own = requireOwnParty(partyId)(caller)
      if (E.isLeft(own)) return answerProblem(ctx, own.left)
    }
    const scoped = hasScope(caller)
    if (E.isLeft(scoped)) return answerProblem(ctx, scoped.left)
    await next()
  }
}

/** An operator secret (`X-Partner-Mint-Key` or the internal Bearer token) compared in constant time under `limited`. */
const secretGate =
  (secret: string | undefined, setting: string, presentedIn: (ctx: AppContext) => string | undefined, refusal: typeof invalidMintKey | typeof invalidInternalToken, limited: AttemptLimit): Middleware<AppState> =>
  async (ctx, next) => {
    if (secret === undefined) return answerProblem(ctx, serverMisconfigured(setting))
    const presented = presentedIn(ctx as AppContext)
    const checked = await limited(ctx, () => (presented !== undefined && presented !== '' && secretsEqual(presented, secret) ? E.right(undefined) : E.left(refusal)))
    if (E.isLeft(checked)) return answerProblem(ctx, checked.left)
    await next()
  }

/** The `Set-Cookie` that clears the console session's cookie. */
export const CLEARED_SESSION_COOKIE = `${OPERATOR_SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`

/**
 * A console session's checks (decision 149): the cookie's session live, its operator put on
 * `ctx.state`; on a method that changes something, the session's CSRF token in `X-CSRF-Token`
 * (403 `invalid_csrf_token`); the role holding `permission`, when the route asks one (403
 * `insufficient_role`). A cookie that finds no live session (forged, expired, revoked, its
 * operator disabled) is charged to the keyless budget (`chargeMiss`), so forged cookies cost the
 * store no more than requests without any, and answered 401 `invalid_session` with the cookie
 * cleared; a live session is never refused for another's misses.
 */
const sessionGate = (deps: AppDeps, chargeMiss: RequestLimit, permission: OperatorPermission | undefined): Middleware<AppState> => {
  const sessionOf = operatorOfSession(deps)
  return async (ctx, next) => {
    const token = presentedSessionToken(ctx as AppContext)
    const found = token === undefined ? E.left(invalidOperatorSession) : await sessionOf(token)()
    if (E.isLeft(found)) {
      if (found.left._tag === 'StoreUnavailable') return answerProblem(ctx, found.left)
      const charged = await chargeMiss(ctx)
      if (E.isLeft(charged)) return answerProblem(ctx, charged.left)
      if (token !== undefined) ctx.append('Set-Cookie', CLEARED_SESSION_COOKIE)
      return answerProblem(ctx, found.left)
    }
    const { operator, session } = found.right
    ctx.state.operator = { operator, session, token: token ?? '' }
    if (!SAFE_METHODS.has(ctx.method) && !deps.operatorSecrets.csrfMatches(token ?? '', ctx.get(CSRF_HEADER))) return answerProblem(ctx, invalidCsrfToken)
    if (permission !== undefined) {
      const allowed = requirePermission(permission)(operator)
      if (E.isLeft(allowed)) return answerProblem(ctx, allowed.left)
    }
    await next()
  }
}

/**
 * An internal route: a request with an `Authorization` header, or with neither it nor a console
 * session's cookie, is the internal token's (`internalAuth`); one with only the cookie is a
 * named operator's (`sessionGate`), held to `permission`.
 */
const internalGate = (token: Middleware<AppState>, session: Middleware<AppState>): Middleware<AppState> => (ctx, next) =>
  ctx.get('Authorization') === '' && presentedSessionToken(ctx as AppContext) !== undefined ? session(ctx, next) : token(ctx, next)

/** `/internal/*` and `/metrics` (the API's and the worker's): only `Authorization: Bearer <INTERNAL_API_TOKEN>` passes; partner keys never do. */
export const internalAuth = (deps: Pick<AppDeps, 'attemptLimiter'>, config: Pick<Config, 'rateLimits' | 'internalApiToken'>): Middleware<AppState> =>
  secretGate(config.internalApiToken, 'INTERNAL_API_TOKEN', (ctx) => bearerIn(ctx.get('Authorization')), invalidInternalToken, internalAttemptLimit(deps, config.rateLimits))

/** The mint route: the mint secret in `X-Partner-Mint-Key` (spec §5.7). */
const mintAuth = (secret: string | undefined, limited: AttemptLimit): Middleware<AppState> =>
  secretGate(secret, 'PARTNER_MINT_SECRET', (ctx) => ctx.get('X-Partner-Mint-Key'), invalidMintKey, limited)

/**
 * Whether a request presents a credential worth checking: a partner key whose format and checksum
 * hold, a Bearer token on an internal route or `/metrics`, or the mint secret on the mint route.
 * Anything else, junk headers included, is keyless.
 */
const presentsCredential =
  (toLookUp: ReturnType<typeof idSegmentToLookUp>) =>
  (ctx: AppContext): boolean => {
    const key = presentedApiKey(ctx)
    if (key !== undefined && O.isSome(toLookUp(key))) return true
    if ((ctx.path.startsWith('/internal/') || ctx.path === METRICS_PATH) && /^Bearer[ \t]/i.test(ctx.get('Authorization'))) return true
    // A console session on a route that takes one (not the sign-in): a cookie that finds none is charged to this budget then (`sessionGate`).
    if (ctx.path.startsWith('/internal/') && !isSignIn(ctx) && presentedSessionToken(ctx) !== undefined) return true
    return ctx.method === 'POST' && ctx.path === '/public/partner/api-keys' && ctx.get('X-Partner-Mint-Key') !== ''
  }

/** The console's sign-in, which takes no credential: a cookie sent with it counts for nothing. */
const SIGN_IN = operation('signInOperator')

const isSignIn = (ctx: AppContext): boolean => ctx.method === SIGN_IN.method && ctx.path === SIGN_IN.path

/** Load balancers' probes (without a body) are never refused for what anonymous clients do. */
const isProbe = (ctx: AppContext): boolean => HEALTH_PROBES.has(ctx.path) && !declaresBody(ctx.req.headers)

/** A request's charge to the keyless budget (`keyless:<address>`, policy `keyless`, the synced limiter) when `charged` says so. */
const keylessCharge = (deps: Pick<AppDeps, 'rateLimiter'>, settings: RateLimitSettings, charged: (ctx: AppContext) => boolean): RequestLimit =>
  limitedBy([
    {
      limiter: deps.rateLimiter,
      policy: { name: RATE_POLICY.keyless, limit: settings.keylessRequests, windowSeconds: settings.windowSeconds },
      bucketOf: (ctx) => (charged(ctx) ? `keyless:${clientAddressOf(ctx)}` : undefined),
    },
  ])

/**
 * The keyless budget, before routing: a request presenting no credential (`presentsCredential`)
 * counts against its client address (`keyless:<address>`, policy `keyless`, the synced limiter);
 * past it, 429 and the connection closed after the answer, the body left unread. Health probes are
 * exempt; CORS preflights are answered before it.
 */
const keylessBudget = (deps: Pick<AppDeps, 'rateLimiter' | 'keyMaterial'>, settings: RateLimitSettings): Middleware<AppState> => {
  const credentialed = presentsCredential(idSegmentToLookUp(deps.keyMaterial))
  const limit = keylessCharge(deps, settings, (ctx) => !credentialed(ctx) && !isProbe(ctx))
  return async (ctx, next) => {
    const limited = await limit(ctx)
    if (E.isRight(limited)) return next()
    ctx.set('Connection', 'close')
    answerProblem(ctx, limited.left)
  }
}

/** Every check of who is calling, built once for an application. */
export type CallerChecks = {
  /** The app-level step before routing: the keyless budget. */
  readonly keyless: Middleware<AppState>
  /** The internal token and its attempt limit (`/internal/*`, `/metrics`). */
  readonly internal: Middleware<AppState>
  /** The checks an operation runs first, by its `auth`. */
  readonly forOperation: (op: Operation) => readonly Middleware<AppState>[]
}

export const callerChecks = (deps: AppDeps, config: Pick<Config, 'rateLimits' | 'partnerMintSecret' | 'internalApiToken'>): CallerChecks => {
  const settings = config.rateLimits
  const lookups = keyLookupLimit(deps, settings)
  const internal = internalAuth(deps, config)
  const mint = mintAuth(config.partnerMintSecret, mintAttemptLimit(deps, settings))
  const misses = keylessCharge(deps, settings, () => true)
  return {
    keyless: keylessBudget(deps, settings),
    internal,
    forOperation: (op) => {
      switch (op.auth) {
        case 'partner':
          return [partnerGate(deps, lookups, limitedBy(limitsFor(op, deps, settings)), op.scope ?? 'partner:api', op.testOnly === true)]
        case 'mint':
          return [mint]
        case 'internal':
          return [internalGate(internal, sessionGate(deps, misses, op.permission))]
        case 'session':
          return [sessionGate(deps, misses, undefined)]
        case 'none':
          return []
      }
    },
  }
}
