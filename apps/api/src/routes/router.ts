import Router, { type RouterMiddleware } from '@koa/router'
import type { Middleware } from 'koa'
import type { Config } from '../config.js'
import type { AppDeps } from '../deps.js'
import { internalAuth, mintAuth, ownPartyOnly, partnerAuth, scoped } from '../http/auth.js'
import { requireJsonBody } from '../http/body.js'
import type { AppContext, AppState } from '../http/context.js'
import { idempotency } from '../http/idempotency.js'
import { fail } from '../http/problems.js'
import { limitsFor } from '../http/rate-limit.js'
import { OPERATIONS, type Operation } from './operations.js'
import type { Routes } from './route.js'

/** Spec §7: a route without its real handler yet answers 501 with its operationId. */
const placeholder =
  (op: Operation): Middleware<AppState> =>
  async () =>
    fail({ _tag: 'NotImplemented', operationId: op.operationId })

const authFor = (op: Operation, deps: AppDeps, config: Config): Middleware<AppState>[] => {
  switch (op.auth) {
    case 'partner':
      return [partnerAuth(deps), ...limitsFor(op, deps, config.rateLimits), ownPartyOnly, scoped(op.scope ?? 'partner:api')]
    case 'mint':
      return [...limitsFor(op, deps, config.rateLimits), mintAuth(config.partnerMintSecret)]
    case 'internal':
      return [internalAuth(config.internalApiToken)]
    case 'none':
      return []
  }
}

/**
 * Registers every operation of the table: authentication (then, on party paths, the party
 * check; then the scope), and either the real handler — behind the JSON-body check and, for
 * every mutating method under /public, idempotency — or the 501 placeholder. `PLACEHOLDER_OPERATIONS` forces
 * the placeholder.
 */
export const buildRouter = (deps: AppDeps, config: Config, routes: Routes): Router<AppState> => {
  const router = new Router<AppState>()
  for (const op of OPERATIONS) {
    const route = config.placeholderOperations.has(op.operationId) ? undefined : routes[op.operationId]
    // The operationId is the route's name: the router puts it on `ctx.routerName` for the access line.
    const chain: Middleware<AppState>[] = authFor(op, deps, config)
    if (route === undefined) chain.push(placeholder(op))
    else {
      if (op.jsonBody) chain.push(requireJsonBody)
      if (op.method !== 'GET' && op.path.startsWith('/public/')) {
        chain.push(idempotency({ store: deps.idempotency, clock: deps.clock, ...(route.forReplay ? { forReplay: route.forReplay } : {}) }))
      }
      chain.push(async (ctx) => route.handle(ctx as AppContext))
    }
    router.register(op.path, [op.method], chain as RouterMiddleware<AppState>[], { name: op.operationId })
  }
  return router
}

/**
 * What happens when no route handled the request: a path that exists under another method is a
 * 405 with `Allow` (an `OPTIONS` request gets 204 and `Allow`), anything else a JSON 404.
 */
export const routeFallback =
  (router: Router<AppState>): Middleware<AppState> =>
  async (ctx, next) => {
    await next()
    if (ctx.status !== 404 || ctx.body !== undefined) return
    const matched = router.match(ctx.path, ctx.method)
    const allowed = [...new Set(matched.path.flatMap((layer) => layer.methods))]
    if (allowed.length === 0) return fail({ _tag: 'RouteNotFound', method: ctx.method, path: ctx.path })
    const allow = [...new Set([...allowed, 'OPTIONS'])]
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204
      ctx.set('Allow', allow.join(', '))
      return
    }
    fail({ _tag: 'MethodNotAllowed', allowed: allow })
  }
