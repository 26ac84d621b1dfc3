import { secretsEqual } from '@lendgate/adapters'
import {
  authenticateApiKey,
  KEY_PREFIX,
  missingApiKey,
  requireOwnParty,
  requireScope,
  type AuthenticateApiKeyDeps,
  type KnownScope,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { AppContext, AppState } from './context.js'
import { fail, invalidInternalToken, invalidMintKey, serverMisconfigured } from './problems.js'
import { answerProblem } from './request-lifecycle.js'

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

const bearerOf = (ctx: AppContext): string | undefined => BEARER.exec(ctx.get('Authorization'))?.[1]

/**
 * The partner key of a request (spec §5.2): a Bearer value that starts with the key prefix,
 * else the `X-Api-Key` header. A Bearer value without the prefix is not a key and is ignored.
 */
export const presentedApiKey = (ctx: AppContext): string | undefined => {
  const bearer = bearerOf(ctx)
  if (bearer !== undefined && bearer.startsWith(KEY_PREFIX)) return bearer
  const header = ctx.get('X-Api-Key').trim()
  return header === '' ? undefined : header
}

/**
 * Authenticates a partner key and puts the caller on `ctx.state`; 401 otherwise, answered here
 * rather than thrown: refusing unknown keys is the path a key-guessing client drives hardest.
 */
export const partnerAuth = (deps: AuthenticateApiKeyDeps): Middleware<AppState> => {
  const authenticate = authenticateApiKey(deps)
  return async (ctx, next) => {
    const presented = presentedApiKey(ctx as AppContext)
    if (presented === undefined) return answerProblem(ctx, missingApiKey)
    const result = await authenticate(presented)()
    if (E.isLeft(result)) return answerProblem(ctx, result.left)
    ctx.state.caller = result.right
    await next()
  }
}

/**
 * On party-scoped paths, the `partyId` must be the key's party (spec §5.9). Runs right after
 * authentication, before the scope check and before anything is looked up.
 */
export const ownPartyOnly: Middleware<AppState> = (ctx, next) => {
  const partyId = (ctx as AppContext).params['partyId']
  const caller = ctx.state.caller
  if (partyId !== undefined && caller !== undefined) {
    const checked = requireOwnParty(partyId)(caller)
    if (E.isLeft(checked)) fail(checked.left)
  }
  return next()
}

/** The caller's key must carry `scope` (spec §5.8). */
export const scoped = (scope: KnownScope): Middleware<AppState> => {
  const check = requireScope(scope)
  return (ctx, next) => {
    const caller = ctx.state.caller
    if (caller === undefined) return fail(missingApiKey)
    const checked = check(caller)
    if (E.isLeft(checked)) fail(checked.left)
    return next()
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
