import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { invalidApiKey, missingApiKey, type ApiKey } from '@lendgate/core'
import parseUrl from 'parseurl'
import type { Logger } from 'pino'
import type { RouteTable } from '../routes/router.js'
import { presentedApiKeyIn } from './auth.js'
import { declaresBody } from './body.js'
import { markOutsideCors } from './cors.js'
import { toHttpError } from './error-mapper.js'
import type { Problem } from './problems.js'
import { accessLogOn, requestIdFor, withoutVersionPrefix } from './request-lifecycle.js'
import { JSON_CONTENT_TYPE } from './respond.js'
import { stampSecurityHeaders } from './security-headers.js'

export type FrontDoorDeps = {
  readonly table: Pick<RouteTable, 'partnerOperationOf'>
  /** The partner authentication's own judgement of a key before any lookup (`keyOnSight`). */
  readonly onSight: (presented: string) => ApiKey | string | undefined
  readonly logger: Logger
}

/** A refusal's answer, serialised once. */
type Prepared = { readonly status: number; readonly body: string; readonly length: number; readonly headers: readonly (readonly [string, string])[] }

const prepared = (problem: Problem): Prepared => {
  const { status, body, headers } = toHttpError(problem)
  const text = JSON.stringify(body)
  return { status, body: text, length: Buffer.byteLength(text), headers: Object.entries(headers ?? {}) }
}

/** A request's refusal: its prepared answer, the path without the version prefix, the route's operationId. */
type Refusal = { readonly answer: Prepared; readonly path: string; readonly operationId: string }

/**
 * A header's value as Koa's `ctx.get` gives it ('' when absent). Node joins repeated headers
 * other than a few (`set-cookie`) into one string, so none of those read here is an array.
 */
const header = (value: string | string[] | undefined): string => (typeof value === 'string' ? value : '')

/**
 * Refuses a partner request whose key is missing or refused on sight before Koa runs, with the
 * answer, headers and access line the Koa application gives it; every other request goes to
 * `next` (the application) untouched. A key-guessing client drives this path hardest, and Koa's
 * context, middleware chain and response handling cost more than everything the refusal must
 * do (docs/decisions.md, decision 65).
 *
 * It answers only where the application would answer the same 401 for the same reason: no
 * `Origin` header (CORS answers those, preflights included), no body (the body parser runs
 * before authentication), a route of the table that asks for a partner key (anything else may
 * be a 404, a 405, the reference page or another kind of credential), and a key absent or
 * refused by `onSight`, which is the partner authentication's own first step. The same
 * functions make both answers: the request id, the security headers, the problem's mapping,
 * the access line. The key is judged before the route, so a request with a usable key pays only
 * for that judgement here. Whatever the front door fails to do (it throws) is left to the
 * application, which answers and logs the request as it would any other.
 */
export const frontDoor = (deps: FrontDoorDeps): ((next: RequestListener) => RequestListener) => {
  const accessLog = accessLogOn(deps.logger)
  const missing = prepared(missingApiKey)
  const invalid = prepared(invalidApiKey)

  /** The request's refusal, or undefined when the application must answer it. */
  const refusalOf = (req: IncomingMessage): Refusal | undefined => {
    const headers = req.headers
    if (header(headers.origin) !== '' || declaresBody(headers)) return undefined
    const presented = presentedApiKeyIn(header(headers.authorization), header(headers['x-api-key']))
    const answer = presented === undefined ? missing : deps.onSight(presented) === undefined ? invalid : undefined
    if (answer === undefined) return undefined
    const pathname = parseUrl(req)?.pathname
    if (pathname === undefined || pathname === null) return undefined
    const path = withoutVersionPrefix(pathname)
    const operationId = deps.table.partnerOperationOf(req.method ?? '', path)
    return operationId === undefined ? undefined : { answer, path, operationId }
  }

  const refuse = (req: IncomingMessage, res: ServerResponse, started: bigint, { answer, path, operationId }: Refusal): void => {
    const requestId = requestIdFor(header(req.headers['x-request-id']))
    res.statusCode = answer.status
    res.setHeader('X-Request-Id', requestId)
    stampSecurityHeaders(res)
    markOutsideCors(res)
    res.setHeader('Content-Type', JSON_CONTENT_TYPE)
    for (const [name, value] of answer.headers) res.setHeader(name, value)
    res.setHeader('Content-Length', answer.length)
    accessLog({ requestId, method: req.method ?? '', path, status: answer.status, started, operationId, caller: undefined })
    res.end(req.method === 'HEAD' ? undefined : answer.body)
  }

  return (next) => (req, res) => {
    const started = process.hrtime.bigint()
    try {
      const refusal = refusalOf(req)
      if (refusal !== undefined) return refuse(req, res, started, refusal)
    } catch (error) {
      // A bug here, logged; the application then does what the front door could not, as for any
      // request. An answer already on its way cannot be taken back.
      deps.logger.error({ err: error }, 'front door failed; the application answers the request')
      if (res.headersSent) return void res.destroy()
    }
    return next(req, res)
  }
}
