import type { Middleware } from 'koa'
import type { AppState } from './context.js'

/** Headers every API response carries: no sniffing, no framing, no caching of account data. */
export const securityHeaders: Middleware<AppState> = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.set('X-Frame-Options', 'DENY')
  ctx.set('Referrer-Policy', 'no-referrer')
  ctx.set('Cache-Control', 'no-store')
  await next()
}
