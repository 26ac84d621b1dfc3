import type { RequestListener } from 'node:http'
import * as E from 'fp-ts/lib/Either.js'
import Koa from 'koa'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import type { AppDeps } from './deps.js'
import { internalAuth } from './http/caller.js'
import type { AppState } from './http/context.js'
import { metricsEndpoint, readiness } from './http/operational.js'
import { answerProblem } from './http/respond.js'
import { requestLifecycle } from './http/request-lifecycle.js'

/** The worker's probes are not partner traffic: its request metrics are not kept. */
const UNCOUNTED = { requestServed: () => undefined }

/**
 * The worker's HTTP server (`WORKER_PORT`), for operators only: `GET /health` (liveness),
 * `GET /health/ready` (the schema is migrated and the database answers, else 503) and
 * `GET /metrics` behind the internal token and its limit on failed attempts; anything else is a
 * JSON 404 or 405.
 */
export const createWorkerApp = (deps: Pick<AppDeps, 'health' | 'metrics' | 'attemptLimiter'>, config: Pick<Config, 'internalApiToken' | 'rateLimits'>, logger: Logger): RequestListener => {
  const app = new Koa<AppState>()
  app.silent = true
  app.use(requestLifecycle(logger, UNCOUNTED))
  app.use(metricsEndpoint(deps.metrics, internalAuth(deps, config)))
  app.use(async (ctx) => {
    if (ctx.path !== '/health' && ctx.path !== '/health/ready') return answerProblem(ctx, { _tag: 'RouteNotFound', method: ctx.method, path: ctx.path })
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return answerProblem(ctx, { _tag: 'MethodNotAllowed', allowed: ['GET', 'HEAD'] })
    if (ctx.path === '/health') {
      ctx.body = { status: 'ok' }
      return
    }
    const ready = await readiness(deps.health)
    if (E.isLeft(ready)) return answerProblem(ctx, ready.left)
    ctx.body = ready.right
  })
  return app.callback()
}
