import type { ServerResponse } from 'node:http'
import type { HealthCheck } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { Metrics } from '../metrics.js'
import { internalAuth } from './auth.js'
import type { AppState } from './context.js'
import { notReady, type NotReady } from './problems.js'
import type { AttemptLimit } from './rate-limit.js'
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
 * How long a request waits at the schema gate while the process migrates at start, before it is
 * answered 503 `not_ready` (docs/decisions.md): a fresh database is migrated in well under it, so
 * a single instance's first callers (who may have waited only for `/health`) are served rather
 * than refused, and it is as long as a caller can fairly be kept waiting.
 */
export const SCHEMA_WAIT_MS = 30_000

/**
 * Resolves true once the schema is current, or false when `ms` pass first, the schema will never
 * be current in this process, or the client goes away (`res` closes) meanwhile. Its timer and
 * listener are removed as it settles, and the timer never keeps the process alive.
 */
const schemaCurrentWithin = (health: Pick<HealthCheck, 'whenSchemaCurrent'>, res: ServerResponse, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    const settle = (current: boolean): void => {
      clearTimeout(timer)
      res.off('close', clientGone)
      resolve(current)
    }
    const clientGone = (): void => settle(false)
    const timer = setTimeout(() => settle(false), ms)
    timer.unref()
    res.once('close', clientGone)
    health.whenSchemaCurrent().then(settle, () => settle(false))
  })

/**
 * Until the schema holds every migration this build needs (the process is migrating at start),
 * every request but the probes and the metrics waits for it, up to `waitMs`, before going on down
 * the chain (authentication, limits, its body, still unread, and its route); a request still
 * waiting when the bound passes, or the migration fails, is answered 503 `not_ready`: nothing
 * reaches a table that may not exist yet. Readiness is not held: it answers 503 at once, for fleets.
 */
export const schemaGate =
  (health: Pick<HealthCheck, 'schemaCurrent' | 'whenSchemaCurrent'>, waitMs: number = SCHEMA_WAIT_MS): Middleware<AppState> =>
  async (ctx, next) => {
    if (health.schemaCurrent() || HEALTH_PROBES.has(ctx.path) || ctx.path === METRICS_PATH) return next()
    return (await schemaCurrentWithin(health, ctx.res, waitMs)) ? next() : answerProblem(ctx, notReady('migrations_pending'))
  }

/**
 * `GET /metrics`: this process's metrics in the Prometheus text format, behind the internal
 * token (`Authorization: Bearer <INTERNAL_API_TOKEN>`, as on `/internal/*`, under the same limit
 * on failed attempts, `limited`). Not part of the partner API: no route table entry, not in the
 * OpenAPI document.
 */
export const metricsEndpoint = (metrics: Metrics, internalToken: string | undefined, limited: AttemptLimit): Middleware<AppState> => {
  const authorized = internalAuth(internalToken, limited)
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
