import type { HealthCheck } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { Metrics } from '../metrics.js'
import { internalAuth } from './auth.js'
import type { AppState } from './context.js'
import { notReady, type NotReady } from './problems.js'
import { HEALTH_PROBES, METRICS_PATH } from './probes.js'
import { answerProblem } from './respond.js'

/** Readiness: 503 `not_ready` while the schema is being migrated or the database does not answer. */
export const readiness = async (health: HealthCheck): Promise<E.Either<NotReady, { readonly status: 'ready'; readonly database: 'up' }>> =>
  !health.schemaCurrent()
    ? E.left(notReady('migrations_pending'))
    : (await health.storeReachable())
      ? E.right({ status: 'ready', database: 'up' })
      : E.left(notReady('database_unreachable'))

/**
 * Until the schema holds every migration this build needs (the process is migrating at start),
 * every request but the probes and the metrics is answered 503 `not_ready`: nothing reaches a
 * table that may not exist yet.
 */
export const schemaGate =
  (health: Pick<HealthCheck, 'schemaCurrent'>): Middleware<AppState> =>
  (ctx, next) =>
    health.schemaCurrent() || HEALTH_PROBES.has(ctx.path) || ctx.path === METRICS_PATH ? next() : answerProblem(ctx, notReady('migrations_pending'))

/**
 * `GET /metrics`: this process's metrics in the Prometheus text format, behind the internal
 * token (`Authorization: Bearer <INTERNAL_API_TOKEN>`, as on `/internal/*`). Not part of the
 * partner API: no route table entry, not in the OpenAPI document.
 */
export const metricsEndpoint = (metrics: Metrics, internalToken: string | undefined): Middleware<AppState> => {
  const authorized = internalAuth(internalToken)
  return async (ctx, next) => {
    if (ctx.path !== METRICS_PATH) return next()
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return answerProblem(ctx, { _tag: 'MethodNotAllowed', allowed: ['GET', 'HEAD'] })
    await authorized(ctx, async () => {
      ctx.set('Cache-Control', 'no-store')
      ctx.type = metrics.registry.contentType
      ctx.body = await metrics.registry.metrics()
    })
  }
}
