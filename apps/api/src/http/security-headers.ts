import type { ServerResponse } from 'node:http'
import type { Middleware } from 'koa'
import type { AppState } from './context.js'

/**
 * Headers every API response carries (OWASP's REST guidance): no sniffing, no framing, no
 * referrer, no caching of account data, no active content in a JSON answer, HTTPS only once a
 * browser has seen the API over TLS. The reference page (`/docs`) replaces the content policy
 * with its own.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
}

const ENTRIES = Object.entries(SECURITY_HEADERS)

/** Sets the security headers on every response. */
export const securityHeaders: Middleware<AppState> = (ctx, next) => {
  stampSecurityHeaders(ctx.res)
  return next()
}

/** Sets `SECURITY_HEADERS` on a Node response (the middleware above, and the front door's refusals). */
export const stampSecurityHeaders = (res: ServerResponse): void => {
  for (const [name, value] of ENTRIES) res.setHeader(name, value)
}
