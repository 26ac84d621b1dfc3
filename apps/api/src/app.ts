import type { RequestListener } from 'node:http'
import Koa from 'koa'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import type { AppDeps } from './deps.js'
import { bodyBounds } from './http/body.js'
import type { AppState } from './http/context.js'
import { corsMiddleware } from './http/cors.js'
import { docsPage } from './http/docs-page.js'
import { metricsEndpoint, schemaGate } from './http/operational.js'
import { normalizeVersionPrefix, requestLifecycle } from './http/request-lifecycle.js'
import { internalAttemptLimit, keylessBudget } from './http/rate-limit.js'
import { securityHeaders } from './http/security-headers.js'
import { apiKeyRoutes } from './routes/api-keys.js'
import { auditEventRoutes } from './routes/audit-events.js'
import { healthRoutes } from './routes/health.js'
import { internalReviewRoutes } from './routes/internal-review.js'
import { internalLendingRoutes } from './routes/internal-lending.js'
import { partyRoutes } from './routes/parties.js'
import { applicationRoutes } from './routes/applications.js'
import { servicingRoutes } from './routes/servicing.js'
import { referenceRoutes } from './routes/reference.js'
import { onboardingSessionRoutes } from './routes/onboarding-sessions.js'
import type { Routes } from './routes/route.js'
import { buildRouter, routeFallback } from './routes/router.js'

/** Every real handler, by operationId; operations missing here answer the 501 placeholder. */
export const allRoutes = (deps: AppDeps, config: Pick<Config, 'publicBaseUrl' | 'placeholderOperations' | 'rateLimits'>): Routes => ({
  ...healthRoutes(deps),
  ...apiKeyRoutes(deps),
  ...onboardingSessionRoutes(deps),
  ...internalReviewRoutes(deps),
  ...partyRoutes(deps),
  ...applicationRoutes(deps),
  ...internalLendingRoutes(deps),
  ...servicingRoutes(deps),
  ...auditEventRoutes(deps),
  ...referenceRoutes(config),
})

/** The application, and the request listener a server runs (the application's own). */
export type App = {
  readonly koa: Koa<AppState>
  readonly handle: RequestListener
}

export type AppOptions = {
  /** How long a request waits for the schema while the process migrates at start; default `SCHEMA_WAIT_MS` (30 s). Tests shorten it. */
  readonly schemaWaitMs?: number
}

/**
 * The Koa application. Order matters: request id, logging, metrics and error mapping wrap everything,
 * and every answer carries the security headers; the body bounds come next (an oversized declared body is refused unread, and a body the answer
 * did not need is dropped before it is written); while the schema is being migrated at start, everything but the
 * probes and the metrics waits for it (up to 30 s, then 503) before any step below touches the database; the version prefix is normalised before CORS,
 * routing and authentication; CORS answers preflights before any key is asked for; a request with no
 * credential at all is counted against its address's keyless budget; `/metrics` answers behind the internal token; each route
 * then runs its own authentication, reads its body, checks and handler; a request no route
 * took ends in the fallback (404, or 405 with `Allow`).
 */
export const createApp = (deps: AppDeps, config: Config, logger: Logger, options: AppOptions = {}): App => {
  const app = new Koa<AppState>()
  app.silent = true
  // Behind N trusted proxies, `ctx.ip` is the N-th address from the right of X-Forwarded-For:
  // what the outermost trusted proxy saw. Entries further left were written by the client.
  app.proxy = config.trustedProxyHops > 0
  app.maxIpsCount = config.trustedProxyHops
  const table = buildRouter(deps, config, allRoutes(deps, config))
  app.use(requestLifecycle(logger, deps.metrics))
  app.use(securityHeaders)
  app.use(bodyBounds)
  app.use(schemaGate(deps.health, options.schemaWaitMs))
  app.use(docsPage)
  app.use(normalizeVersionPrefix)
  app.use(corsMiddleware(config.corsOrigins))
  app.use(keylessBudget(deps, config.rateLimits))
  app.use(metricsEndpoint(deps.metrics, config.internalApiToken, internalAttemptLimit(deps, config.rateLimits)))
  app.use(table.routes)
  app.use(routeFallback)
  return { koa: app, handle: app.callback() }
}
