import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Config } from '../config.js'
import type { AppContext } from '../http/context.js'
import { openApiDocuments, withServer, type Audience } from '../openapi/document.js'
import type { Operation } from './operations.js'
import { routes } from './route.js'

/** A host the request named that a URL can carry (a name or address and a port), or undefined. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

/**
 * The base URL the request reached: its scheme and Host (X-Forwarded-Proto and -Host behind
 * trusted proxies); empty, this server wherever it is (server URLs relative to the host), when
 * they name no http(s) URL.
 */
const servedFrom = (ctx: AppContext): string => (/^https?$/.test(ctx.protocol) && HOST.test(ctx.host) ? `${ctx.protocol}://${ctx.host}` : '')

/** How many base URLs a document is kept serialised for: the addresses a development server is reached by. */
const KEPT_BASE_URLS = 8

/**
 * `document` serialised with the servers of each base URL, once per base URL: the last
 * `KEPT_BASE_URLS` added are kept, the first added dropped first (a request's Host chooses the key, so the cache must not grow with it).
 */
const serialisedPerBaseUrl = (document: Readonly<Record<string, unknown>>, audience: Audience): ((baseUrl: string) => string) => {
  const kept = new Map<string, string>()
  return (baseUrl) => {
    const found = kept.get(baseUrl)
    if (found !== undefined) return found
    const text = JSON.stringify(withServer(document, audience, baseUrl))
    if (kept.size === KEPT_BASE_URLS) kept.delete(kept.keys().next().value!)
    kept.set(baseUrl, text)
    return text
  }
}

/**
 * The OpenAPI documents (issues 7, 39 and 58), built once and serialised once per base URL: the
 * partner document without a key, the operator document behind the internal token. The partner
 * document's servers are under the configured public base URL (required in production) or, when
 * none is set, the address the request reached, so "Try it out" and generated clients call the
 * server that served it; the operator document always the address its request reached, since
 * operator routes are not served where partners are.
 */
export const referenceRoutes = (config: Pick<Config, 'publicBaseUrl' | 'placeholderOperations' | 'rateLimits'>, operations: readonly Operation[]) => {
  const documents = openApiDocuments({ placeholderOperations: config.placeholderOperations, rateLimits: config.rateLimits, operations })
  const partner = serialisedPerBaseUrl(documents.partner, 'partner')
  const operator = serialisedPerBaseUrl(documents.operator, 'operator')
  return routes({
    getOpenApiDocument: { run: (ctx) => TE.right(partner(config.publicBaseUrl ?? servedFrom(ctx))) },
    getOperatorOpenApiDocument: { run: (ctx) => TE.right(operator(servedFrom(ctx))) },
  })
}
