import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Config } from '../config.js'
import type { AppContext } from '../http/context.js'
import { openApiDocuments, withServer } from '../openapi/document.js'
import { routes } from './route.js'

/** A host the request named that a URL can carry (a name or address and a port), or undefined. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

/**
 * The base URL the request reached: its scheme and Host (X-Forwarded-Proto and -Host behind
 * trusted proxies); `/`, this server wherever it is, when they name no http(s) URL.
 */
const servedFrom = (ctx: AppContext): string => (/^https?$/.test(ctx.protocol) && HOST.test(ctx.host) ? `${ctx.protocol}://${ctx.host}` : '/')

/**
 * The OpenAPI documents (issues 7 and 39), built once: the partner document without a key, the
 * operator document behind the internal token. The partner document names as its server the
 * configured public base URL or, when none is set, the address the request reached, so "Try it
 * out" and generated clients call the server that served it; the operator document always the
 * address its request reached, since operator routes are not served where partners are.
 */
export const referenceRoutes = (config: Pick<Config, 'publicBaseUrl' | 'placeholderOperations' | 'rateLimits'>) => {
  const documents = openApiDocuments({ placeholderOperations: config.placeholderOperations, rateLimits: config.rateLimits })
  return routes({
    getOpenApiDocument: { run: (ctx) => TE.right(withServer(documents.partner, config.publicBaseUrl ?? servedFrom(ctx))) },
    getOperatorOpenApiDocument: { run: (ctx) => TE.right(withServer(documents.operator, servedFrom(ctx))) },
  })
}
