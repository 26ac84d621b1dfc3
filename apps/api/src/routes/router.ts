import Router, { type RouterMiddleware } from '@koa/router'
import type { KeyLookupGuard } from '@lendgate/core'
import type { Middleware } from 'koa'
import compose from 'koa-compose'
import type { Config } from '../config.js'
import type { AppDeps } from '../deps.js'
import { internalAuth, mintAuth, partnerGate } from '../http/auth.js'
import { requireJsonBody } from '../http/body.js'
import type { AppContext, AppState } from '../http/context.js'
import { idempotency } from '../http/idempotency.js'
import { fail, type RateLimitExceeded } from '../http/problems.js'
import { keyLookupGuard, limitedBy, limitsFor, rateLimited } from '../http/rate-limit.js'
import { OPERATIONS, type Operation } from './operations.js'
import type { Routes } from './route.js'

/** Spec §7: a route without its real handler yet answers 501 with its operationId. */
const placeholder =
  (op: Operation): Middleware<AppState> =>
  async () =>
    fail({ _tag: 'NotImplemented', operationId: op.operationId })

const authFor = (op: Operation, deps: AppDeps, config: Config, lookups: KeyLookupGuard<AppContext, RateLimitExceeded>): Middleware<AppState>[] => {
  switch (op.auth) {
    case 'partner':
      return [partnerGate(deps, lookups, limitedBy(limitsFor(op, deps, config.rateLimits)), op.scope ?? 'partner:api')]
    case 'mint':
      return [rateLimited(limitedBy(limitsFor(op, deps, config.rateLimits))), mintAuth(config.partnerMintSecret)]
    case 'internal':
      return [internalAuth(config.internalApiToken)]
    case 'none':
      return []
  }
}

/** A route table: one router per method, so a request is matched only against its method's routes. */
export type RouteTable = {
  /** Dispatches a request to its route; a request no route takes goes on to `next` with a 404. */
  readonly dispatch: Middleware<AppState>
  /** The methods the table serves `path` under (`HEAD` with `GET`). */
  readonly methodsOf: (path: string) => readonly string[]
  /** Every registered layer, for tests that compare the table with the OpenAPI document. */
  readonly layers: () => readonly { readonly path: string | RegExp; readonly methods: readonly string[] }[]
}

/**
 * Registers every operation of the table: authentication (then, on party paths, the party
 * check; then the scope), and either the real handler — behind the JSON-body check and, for
 * every mutating method under /public, idempotency — or the 501 placeholder. `PLACEHOLDER_OPERATIONS` forces
 * the placeholder.
 *
 * Each route's chain is composed once, here, into one middleware. Routes are grouped by their
 * shape (`shapeOf`: method, number of segments, first segment under the area): a request is
 * matched by @koa/router only against the routes of its own shape, one to four regular
 * expressions instead of every route of its method. Dispatch asks the shape's router for the
 * match and runs the route's chain itself, putting the path parameters and the operationId
 * (`ctx.routerName`, for the access line) on the context as the router's own middleware would:
 * that middleware reads the Host header, composes the matched layers anew and wraps them on
 * every request, work a table of one composed chain a route never needs (docs/benchmarks.md).
 * `HEAD` is served by the `GET` routes, as @koa/router does. `lookups` guards the partner
 * routes' key lookups.
 */
export const buildRouter = (
  deps: AppDeps,
  config: Config,
  routes: Routes,
  lookups: KeyLookupGuard<AppContext, RateLimitExceeded> = keyLookupGuard(deps, config.rateLimits),
): RouteTable => {
  const byShape = new Map<string, Router<AppState>>()
  for (const op of OPERATIONS) {
    const route = config.placeholderOperations.has(op.operationId) ? undefined : routes[op.operationId]
    const chain: Middleware<AppState>[] = authFor(op, deps, config, lookups)
    if (route === undefined) chain.push(placeholder(op))
    else {
      if (op.jsonBody) chain.push(requireJsonBody)
      if (op.method !== 'GET' && op.path.startsWith('/public/')) {
        chain.push(idempotency({ store: deps.idempotency, clock: deps.clock, ...(route.forReplay ? { forReplay: route.forReplay } : {}) }))
      }
      chain.push((ctx) => route.handle(ctx as AppContext))
    }
    const shape = shapeOfRoute(op)
    let router = byShape.get(shape)
    if (router === undefined) byShape.set(shape, (router = new Router<AppState>()))
    router.register(op.path, [op.method], compose(chain) as RouterMiddleware<AppState>, { name: op.operationId })
  }
  const routers = [...byShape.values()]
  /** The route's layer for the request, if any. */
  const layerOf = (method: string, path: string) => byShape.get(shapeOf(method === 'HEAD' ? 'GET' : method, path))?.match(path, method).pathAndMethod[0]
  return {
    dispatch: (ctx, next) => {
      const path = ctx.path
      const layer = layerOf(ctx.method, path)
      if (layer === undefined) return next()
      const context = ctx as AppContext
      context.params = layer.params(path, layer.captures(path))
      // The operationId: the route's name, for the access line.
      context.routerName = layer.name ?? ''
      return (layer.stack[0] as Middleware<AppState>)(ctx, next)
    },
    methodsOf: (path) => routers.flatMap((router) => router.match(path, 'OPTIONS').path.flatMap((layer) => layer.methods)),
    layers: () => routers.flatMap((router) => router.stack),
  }
}

/**
 * A request's shape: its method, its number of path segments (a trailing slash, which the
 * routes accept, not counted) and its first segment under `/public` or `/internal`, in lower
 * case (routes match regardless of case). A route's segments are literals or one-segment
 * parameters, so every path a route matches has the route's shape.
 */
const shapeOf = (method: string, path: string): string => {
  const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/')
  return `${method} ${segments.length} ${segments[2]?.toLowerCase() ?? ''}`
}

const ROUTE_SEGMENT = /^(?:[a-z0-9.-]+|:[A-Za-z]+)$/

/** The shape of an operation's path; a path of another grammar is a programming error. */
const shapeOfRoute = (op: Operation): string => {
  const segments = op.path.split('/').slice(1)
  if (!segments.every((segment) => ROUTE_SEGMENT.test(segment)) || segments[1]?.startsWith(':') === true) {
    throw new Error(`route ${op.operationId}: ${op.path} is not made of literal and one-segment parameter segments`)
  }
  return shapeOf(op.method, op.path)
}

/**
 * What happens when no route handled the request: a path that exists under another method is a
 * 405 with `Allow` (an `OPTIONS` request gets 204 and `Allow`), anything else a JSON 404. The
 * last middleware, after the table's `dispatch`: only a request no route took reaches it, so a
 * routed request does not wait on it (it used to wrap the table and look at every answer).
 */
export const routeFallback =
  (table: RouteTable): Middleware<AppState> =>
  (ctx) => {
    if (ctx.status !== 404 || ctx.body !== undefined) return
    const allowed = [...new Set(table.methodsOf(ctx.path))]
    if (allowed.length === 0) return fail({ _tag: 'RouteNotFound', method: ctx.method, path: ctx.path })
    const allow = [...new Set([...allowed, 'OPTIONS'])]
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204
      ctx.set('Allow', allow.join(', '))
      return
    }
    fail({ _tag: 'MethodNotAllowed', allowed: allow })
  }
