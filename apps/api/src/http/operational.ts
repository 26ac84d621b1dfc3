import { readFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { HealthCheck } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { Metrics } from '../metrics.js'
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
const schemaGate =
  (health: Pick<HealthCheck, 'schemaCurrent' | 'whenSchemaCurrent'>, waitMs: number = SCHEMA_WAIT_MS): Middleware<AppState> =>
  async (ctx, next) => {
    if (health.schemaCurrent() || HEALTH_PROBES.has(ctx.path) || ctx.path === METRICS_PATH) return next()
    return (await schemaCurrentWithin(health, ctx.res, waitMs)) ? next() : answerProblem(ctx, notReady('migrations_pending'))
  }

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lendgate API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/reference.js"></script>
</body>
</html>
`

/** The document's URL relative to the page's, so that the page works behind a gateway's path prefix. */
const INIT = `window.ui = SwaggerUIBundle({ url: new URL('public/openapi.json', document.baseURI).href, dom_id: '#reference', deepLinking: true, docExpansion: 'list' })\n`

type Asset = { readonly type: string; readonly body: string | Buffer }

/** Read once, at start. */
const ASSETS: Readonly<Record<string, Asset>> = {
  '/docs': { type: 'text/html; charset=utf-8', body: PAGE },
  '/docs/reference.js': { type: 'text/javascript; charset=utf-8', body: INIT },
  '/docs/swagger-ui.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(distDir, 'swagger-ui.css')) },
  '/docs/swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(join(distDir, 'swagger-ui-bundle.js')) },
}

/**
 * `GET /docs`: the OpenAPI reference rendered by Swagger UI, served from the `swagger-ui-dist`
 * package (no CDN: the page works offline). Not part of the API: no key, no route table entry.
 */
const docsPage: Middleware<AppState> = (ctx, next) => {
  const path = ctx.path
  const asset = path.startsWith('/docs') && (ctx.method === 'GET' || ctx.method === 'HEAD') ? ASSETS[path] : undefined
  if (path === '/docs/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
    // The page's URLs are relative to `/docs` (no slash), where a gateway's prefix is kept.
    ctx.status = 301
    ctx.redirect('../docs')
    return
  }
  if (asset === undefined) return next()
  ctx.status = 200
  ctx.type = asset.type
  // The page only reads the public document; scripts come from this origin alone.
  ctx.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
  if (path !== '/docs' && path !== '/docs/') ctx.set('Cache-Control', 'public, max-age=3600')
  ctx.body = asset.body
}

/**
 * The steps before the API that are not the API: the schema gate, then the reference page (`/docs`),
 * which no credential or budget concerns.
 */
export const operational = (health: Pick<HealthCheck, 'schemaCurrent' | 'whenSchemaCurrent'>, waitMs: number = SCHEMA_WAIT_MS): Middleware<AppState> => {
  const gate = schemaGate(health, waitMs)
  return (ctx, next) => gate(ctx, () => docsPage(ctx, next))
}

/**
 * `GET /metrics`: this process's metrics in the Prometheus text format, behind `authorized`, the
 * internal token's check (`http/caller.ts`). Not part of the partner API: no route table entry,
 * not in the OpenAPI document.
 */
export const metricsEndpoint = (metrics: Metrics, authorized: Middleware<AppState>): Middleware<AppState> => {
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
