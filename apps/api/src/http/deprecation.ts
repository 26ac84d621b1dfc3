import type { Middleware } from 'koa'
import type { Deprecation } from '../routes/operations.js'
import type { AppState } from './context.js'

/** Midnight UTC of a `YYYY-MM-DD` day. */
const dayStart = (day: string): Date => new Date(`${day}T00:00:00Z`)

/**
 * The headers of a deprecated operation's answers: `Deprecation` as an RFC 9745 structured date
 * (`@` and Unix seconds), `Sunset` as an HTTP date (RFC 8594), `Link` to what replaces it.
 */
export const deprecationHeaders = (deprecation: Deprecation): Readonly<Record<string, string>> => ({
  Deprecation: `@${dayStart(deprecation.since).getTime() / 1000}`,
  Sunset: dayStart(deprecation.sunset).toUTCString(),
  Link: `<${deprecation.link}>; rel="deprecation"; type="text/html"`,
})

/** Announces `deprecation` on every answer of its operation, a refusal included. */
export const announceDeprecation = (deprecation: Deprecation): Middleware<AppState> => {
  const headers = deprecationHeaders(deprecation)
  return (ctx, next) => {
    ctx.set(headers)
    return next()
  }
}
