import { secretsEqual } from '@lendgate/adapters'
import {
  authenticateApiKey,
  isDecided,
  type Caller,
  KEY_PREFIX,
  missingApiKey,
  requireOwnParty,
  requireScope,
  type AuthenticateApiKeyDeps,
  type KeyLookupGuard,
  type KnownScope,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware, Next } from 'koa'
import type { AppContext, AppState } from './context.js'
import { fail, invalidInternalToken, invalidMintKey, serverMisconfigured, type Problem, type RateLimitExceeded } from './problems.js'
import type { RequestLimit } from './rate-limit.js'
import { answerProblem } from './request-lifecycle.js'

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

const bearerIn = (authorization: string): string | undefined => BEARER.exec(authorization)?.[1]

const bearerOf = (ctx: AppContext): string | undefined => bearerIn(ctx.get('Authorization'))

/**
 * The partner key in a request's `Authorization` and `X-Api-Key` headers (spec §5.2; '' for an
 * absent header): a Bearer value that starts with the key prefix, else the `X-Api-Key` header.
 * A Bearer value without the prefix is not a key and is ignored.
 */
export const presentedApiKeyIn = (authorization: string, xApiKey: string): string | undefined => {
  const bearer = bearerIn(authorization)
  if (bearer !== undefined && bearer.startsWith(KEY_PREFIX)) return bearer
  const header = xApiKey.trim()
  return header === '' ? undefined : header
}

/** The partner key of a request (`presentedApiKeyIn` its headers). */
export const presentedApiKey = (ctx: AppContext): string | undefined => presentedApiKeyIn(ctx.get('Authorization'), ctx.get('X-Api-Key'))

/**
 * Everything a partner route checks before its handler, in this order (one middleware rather
 * than four composed ones: every partner request runs it; docs/benchmarks.md):
 * 1. the key: authenticated, the caller put on `ctx.state`; a 401 is answered here rather than
 *    thrown, since refusing unknown keys is the path a key-guessing client drives hardest; a key
 *    not held in memory is looked up only within the address's key-lookup limit (`lookups`);
 * 2. the route's rate limits (`limit`), counted against the key;
 * 3. on party-scoped paths, the `partyId` must be the key's party (spec §5.9), checked before
 *    anything is looked up;
 * 4. the key must carry `scope` (spec §5.8).
 */
export const partnerGate = (
  deps: AuthenticateApiKeyDeps,
  lookups: KeyLookupGuard<AppContext, RateLimitExceeded>,
  limit: RequestLimit,
  scope: KnownScope,
): Middleware<AppState> => {
  const authenticate = authenticateApiKey(deps, lookups)
  const hasScope = requireScope(scope)
  /** Steps 3 and 4, then the route. */
  const checked = (ctx: AppContext, caller: Caller, next: Next): Promise<unknown> => {
    const partyId = ctx.params['partyId']
    if (partyId !== undefined) {
      const own = requireOwnParty(partyId)(caller)
      if (E.isLeft(own)) fail(own.left)
    }
    const scoped = hasScope(caller)
    if (E.isLeft(scoped)) fail(scoped.left)
    return next()
  }
  /** Steps 2 to 4 for an authentication's answer. */
  const authenticated = (ctx: AppContext, result: E.Either<Problem, Caller>, next: Next): unknown => {
    if (E.isLeft(result)) return answerProblem(ctx, result.left)
    const caller = result.right
    ctx.state.caller = caller
    const limiting = limit(ctx)
    return limiting === undefined ? checked(ctx, caller, next) : limiting.then(() => checked(ctx, caller, next))
  }
  // A held key and the synced limiter decide at once: a partner request reaches its route
  // without waiting on a promise here (docs/benchmarks.md).
  return (ctx, next) => {
    const presented = presentedApiKey(ctx as AppContext)
    if (presented === undefined) return answerProblem(ctx, missingApiKey)
    const decision = authenticate(presented, ctx as AppContext)
    return isDecided(decision)
      ? authenticated(ctx as AppContext, decision, next)
      : decision().then((result) => authenticated(ctx as AppContext, result, next))
  }
}

/** The mint secret in `X-Partner-Mint-Key`, compared in constant time (spec §5.7). */
export const mintAuth =
  (mintSecret: string | undefined): Middleware<AppState> =>
  async (ctx, next) => {
    if (mintSecret === undefined) fail(serverMisconfigured('PARTNER_MINT_SECRET'))
    const presented = ctx.get('X-Partner-Mint-Key')
    if (presented === '' || !secretsEqual(presented, mintSecret as string)) fail(invalidMintKey)
    await next()
  }

/** `/internal/*`: only `Authorization: Bearer <INTERNAL_API_TOKEN>`; partner keys never pass. */
export const internalAuth =
  (token: string | undefined): Middleware<AppState> =>
  async (ctx, next) => {
    if (token === undefined) fail(serverMisconfigured('INTERNAL_API_TOKEN'))
    const presented = bearerOf(ctx as AppContext)
    if (presented === undefined || !secretsEqual(presented, token as string)) fail(invalidInternalToken)
    await next()
  }
