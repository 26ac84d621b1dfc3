import type { ServerResponse } from 'node:http'
import cors from '@koa/cors'
import type { Middleware } from 'koa'
import type { AppState } from './context.js'

/**
 * CORS for browser integrations (configured by `CORS_ORIGINS`). A preflight from an allowed
 * origin is answered here, before authentication; a disallowed origin gets no CORS headers, so
 * the browser refuses. `X-Partner-Mint-Key` is deliberately not an allowed header: minting is
 * for operators and backends, never browsers (spec §4.1).
 */
export const corsMiddleware = (origins: readonly string[]): Middleware<AppState> => {
  const any = origins.includes('*')
  const allowed = new Set(origins)
  const handle = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin')
      return any || allowed.has(origin) ? origin : ''
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'X-Api-Key', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposeHeaders: ['X-Request-Id', 'Idempotent-Replayed', 'Retry-After', 'WWW-Authenticate', 'RateLimit', 'RateLimit-Policy'],
    maxAge: 600,
    keepHeadersOnError: true,
  }) as unknown as Middleware<AppState>
  // Without an Origin header a request is outside CORS: @koa/cors only adds `Vary: Origin` and
  // passes it on, which this does without its header parsing (nothing before it sets Vary).
  return (ctx, next) => {
    if (ctx.get('Origin') !== '') return handle(ctx, next)
    markOutsideCors(ctx.res)
    return next()
  }
}

/** What a response to a request without an `Origin` header (outside CORS) carries. */
export const markOutsideCors = (res: ServerResponse): void => {
  res.setHeader('Vary', 'Origin')
}
