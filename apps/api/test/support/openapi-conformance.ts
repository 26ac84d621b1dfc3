import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { SUCCESS_PINS } from '../../src/openapi/responses.js'
import { OPERATION_IDS } from '../../src/routes/operations.js'
import { bothDocuments } from './openapi-documents.js'
import { testConfig } from './test-server.js'

/**
 * Every answer the HTTP suites receive is checked against the OpenAPI documents (issue 7: the
 * reference kept true by the tests), the partner's or the operator's by its route. `request` in client.ts calls `conformanceProblem` on each
 * reply from the service; a status the document does not list for the operation, a body that
 * does not match its schema, or one of the API's own headers (`API_HEADERS`) that the document
 * does not declare for that answer, fails the test that made the request.
 */

type Json = Record<string, unknown>

/** The suites turn any operation into the 501 placeholder (PLACEHOLDER_OPERATIONS), so each may answer it here. */
const { combined: document, resolved } = bothDocuments({ placeholderOperations: OPERATION_IDS, rateLimits: testConfig().rateLimits })

const paths = resolved(document['paths']) as Record<string, Record<string, { operationId: string; responses: Record<string, Json> }>>
/** What every error answers, whatever the route: a stable code and, but for the placeholder, a text for people. */
const errorSchema = { type: 'object', required: ['error'], properties: { error: { type: 'string', pattern: '^[a-z_]+$' }, detail: { type: 'string' } } }

const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)
const compiled = new Map<object, ValidateFunction>()
const validatorOf = (schema: object): ValidateFunction => {
  let validate = compiled.get(schema)
  if (validate === undefined) {
    validate = ajv.compile(schema)
    compiled.set(schema, validate)
  }
  return validate
}

/** Templates with fewer parameters first, so `/balances/latest` wins over `/{loanId}`. */
const routes = Object.entries(paths)
  .map(([template, item]) => ({
    item,
    params: (template.match(/\{/g) ?? []).length,
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }))
  .sort((a, b) => a.params - b.params)

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete'])

/** Paths of the service (receivers in tests answer on other paths, and are not checked). */
const isServicePath = (path: string): boolean => /^\/(public|internal|health)(\/|$)/.test(path)

/** The headers the API itself sets (not HTTP's own, CORS or the security headers): each must be declared. */
const API_HEADERS = ['x-request-id', 'idempotent-replayed', 'retry-after', 'www-authenticate', 'allow', 'ratelimit', 'ratelimit-policy', 'deprecation', 'sunset']

/** The first of the API's headers in `headers` that `response` does not declare, or undefined. */
const undeclaredHeader = (response: Json, headers: Headers): string | undefined => {
  const declared = new Set(Object.keys((response['headers'] as Json | undefined) ?? {}).map((name) => name.toLowerCase()))
  return API_HEADERS.find((name) => headers.has(name) && !declared.has(name))
}

/**
 * What is wrong with this reply by the document, or undefined. Unknown routes and methods must
 * still answer the error body.
 */
export const conformanceProblem = (method: string, rawPath: string, status: number, body: unknown, headers: Headers = new Headers()): string | undefined => {
  const path = rawPath.split('?')[0]!.replace(/^\/public\/v1(\/|$)/, '/public$1')
  if (!isServicePath(path)) return undefined
  const m = method.toLowerCase()
  const operation = METHODS.has(m) ? routes.find((r) => r.pattern.test(path) && r.item[m] !== undefined)?.item[m] : undefined
  const check = (schema: object, what: string): string | undefined => {
    const validate = validatorOf(schema)
    return validate(body) ? undefined : `${what}: the body does not match the document: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body)}`
  }
  if (operation === undefined) return status >= 400 && body !== undefined ? check(errorSchema, `${method} ${path} ${status}`) : undefined
  const response = operation.responses[String(status)]
  if (response === undefined) return `${operation.operationId} answered ${status}, a status the document does not list for it`
  const undeclared = undeclaredHeader(response, headers)
  if (undeclared !== undefined) return `${operation.operationId} ${status} carries the header ${undeclared}, which the document does not declare for it`
  const schema = ((response['content'] as Json | undefined)?.['application/json'] as Json | undefined)?.['schema']
  if (schema === undefined) return undefined
  const pinned = status < 300 ? SUCCESS_PINS[operation.operationId as keyof typeof SUCCESS_PINS] : undefined
  return check(schema as object, `${operation.operationId} ${status}`) ?? (pinned === undefined ? undefined : check(pinned.schema, `${operation.operationId} ${status} (${pinned.says})`))
}
