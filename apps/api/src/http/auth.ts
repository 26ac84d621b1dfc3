import { secretsEqual } from '@lendgate/adapters'
import { authenticateApiKey, KEY_PREFIX, missingApiKey, requireOwnParty, requireScope, type AuthenticateApiKeyDeps, type KnownScope } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { AppContext, AppState } from './context.js'
import { invalidInternalToken, invalidMintKey, serverMisconfigured } from './problems.js'
import type { AttemptLimit, KeyLookupLimit, RequestLimit } from './rate-limit.js'
import { answerProblem } from './respond.js'

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
 * Everything a partner route checks before its handler, in this order:
 * 1. the key: present (else 401 `missing_api_key`); within the client address's key-lookup
 *    limit if it must be looked up (`lookups`); authenticated, the caller put on `ctx.state`;
 * 2. the route's rate limits (`limit`), counted against the key;
 * 3. on party-scoped paths, the `partyId` must be the key's party (spec §5.9), checked before
 *    anything is looked up;
 * 4. the key must carry `scope` (spec §5.8).
 */
export const partnerGate = (
  deps: AuthenticateApiKeyDeps,
  lookups: KeyLookupLimit,
  limit: RequestLimit,
  scope: KnownScope,
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

/** The mint secret in `X-Partner-Mint-Key`, compared in constant time (spec §5.7), under `limited`, the limit on failed attempts. */
export const mintAuth =
  (mintSecret: string | undefined, limited: AttemptLimit): Middleware<AppState> =>
  async (ctx, next) => {
    if (mintSecret === undefined) return answerProblem(ctx, serverMisconfigured('PARTNER_MINT_SECRET'))
    const presented = ctx.get('X-Partner-Mint-Key')
    const checked = await limited(ctx, () => (presented !== '' && secretsEqual(presented, mintSecret) ? E.right(undefined) : E.left(invalidMintKey)))
    if (E.isLeft(checked)) return answerProblem(ctx, checked.left)
    await next()
  }

/**
 * `/internal/*` and `/metrics`: only `Authorization: Bearer <INTERNAL_API_TOKEN>`, compared in
 * constant time under `limited`, the limit on failed attempts; partner keys never pass.
 */
export const internalAuth =
  (token: string | undefined, limited: AttemptLimit): Middleware<AppState> =>
  async (ctx, next) => {
    if (token === undefined) return answerProblem(ctx, serverMisconfigured('INTERNAL_API_TOKEN'))
    const presented = bearerOf(ctx as AppContext)
    const checked = await limited(ctx, () => (presented !== undefined && secretsEqual(presented, token) ? E.right(undefined) : E.left(invalidInternalToken)))
    if (E.isLeft(checked)) return answerProblem(ctx, checked.left)
    await next()
  }
