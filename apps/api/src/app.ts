import type { RequestListener } from 'node:http'
import Koa from 'koa'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import type { AppDeps } from './deps.js'
import { bodyBounds } from './http/body.js'
import { callerChecks } from './http/caller.js'
import type { AppState } from './http/context.js'
import { corsMiddleware } from './http/cors.js'
import { consolePage } from './http/console.js'
import { metricsEndpoint, operational } from './http/operational.js'
import { requestLifecycle } from './http/request-lifecycle.js'
import { apiKeyRoutes } from './routes/api-keys.js'
import { auditEventRoutes } from './routes/audit-events.js'
import { eventRoutes } from './routes/events.js'
import { healthRoutes } from './routes/health.js'
import { internalReviewRoutes } from './routes/internal-review.js'
import { internalLendingRoutes } from './routes/internal-lending.js'
import { internalServicingRoutes } from './routes/internal-servicing.js'
import { internalWebhookRoutes } from './routes/internal-webhooks.js'
import { partyRoutes } from './routes/parties.js'
import { applicationRoutes } from './routes/applications.js'
import { servicingRoutes } from './routes/servicing.js'
import { testHelperRoutes } from './routes/test-helpers.js'
import { referenceRoutes } from './routes/reference.js'
import { onboardingSessionRoutes } from './routes/onboarding-sessions.js'
import { operatorSessionRoutes } from './routes/operator-sessions.js'
import type { Routes } from './routes/route.js'
import { OPERATIONS, type Operation } from './routes/operations.js'
import { buildRouter, routeFallback } from './routes/router.js'

/** Every real handler, by operationId; operations missing here answer the 501 placeholder. */
export const allRoutes = (
  deps: AppDeps,
  config: Pick<Config, 'publicBaseUrl' | 'placeholderOperations' | 'rateLimits' | 'operatorSessionMinutes'>,
  operations: readonly Operation[] = OPERATIONS,
): Routes => ({
  ...healthRoutes(deps),
  ...apiKeyRoutes(deps),
  ...onboardingSessionRoutes(deps),
  ...internalReviewRoutes(deps),
  ...partyRoutes(deps),
  ...applicationRoutes(deps),
  ...internalLendingRoutes(deps),
  ...internalServicingRoutes(deps),
  ...internalWebhookRoutes(deps),
  ...servicingRoutes(deps),
  ...eventRoutes(deps),
  ...testHelperRoutes(deps),
  ...auditEventRoutes(deps),
  ...operatorSessionRoutes(deps, config),
  ...referenceRoutes(config, operations),
})

/** The application, and the request listener a server runs (the application's own). */
export type App = {
  readonly koa: Koa<AppState>
  readonly handle: RequestListener
}

export type AppOptions = {
  /** How long a request waits for the schema while the process migrates at start; default `SCHEMA_WAIT_MS` (30 s). Tests shorten it. */
  readonly schemaWaitMs?: number
  /** The route table, and the documents' operations; `OPERATIONS` unless said (tests mark one deprecated). */
  readonly operations?: readonly Operation[]
  /** Where the console's build is: `CONSOLE_DIST` unless said (tests serve one of their own). */
  readonly consoleDir?: string
}

/**
 * The Koa application; its chain is the whole request path (docs/architecture.md, "How a request
 * flows"). In order: the request's frame (id, logger, security headers, `/public/v1` prefix, bug
 * catcher, access line and metrics); the body bounds; the schema gate and `/docs`; the console's
 * page and files (`/console/`); CORS, which
 * answers preflights before any credential is asked for; the keyless budget; the route table, where
 * each operation checks who is calling, reads its body and runs; then what no route took
 * (`/metrics`, 404, 405).
 */
export const createApp = (deps: AppDeps, config: Config, logger: Logger, options: AppOptions = {}): App => {
  const app = new Koa<AppState>()
  app.silent = true
  // Behind N trusted proxies, `ctx.ip` is the N-th address from the right of X-Forwarded-For:
  // what the outermost trusted proxy saw. Entries further left were written by the client.
  app.proxy = config.trustedProxyHops > 0
  app.maxIpsCount = config.trustedProxyHops
  const callers = callerChecks(deps, config)
  const operations = options.operations ?? OPERATIONS
  const table = buildRouter(deps, config, (world) => allRoutes(world, config, operations), callers, operations)
  app.use(requestLifecycle(logger, deps.metrics))
  app.use(bodyBounds)
  app.use(operational(deps.health, options.schemaWaitMs))
  app.use(consolePage(options.consoleDir))
  app.use(corsMiddleware(config.corsOrigins))
  app.use(callers.keyless)
  app.use(table.routes)
  app.use(routeFallback(metricsEndpoint(deps.metrics, callers.internal)))
  return { koa: app, handle: app.callback() }
}
