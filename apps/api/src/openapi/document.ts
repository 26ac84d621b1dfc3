import { insufficientRole, jsonSchemaOf, PageQuery, PATH_PARAMETERS, rolesWith, type JsonSchema, type OperatorPermission } from '@lendgate/core'
import type * as t from 'io-ts'
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE, type RateLimitSettings } from '../config.js'
import { notReady } from '../http/problems.js'
import { RATE_POLICY } from '../http/rate-policies.js'
import { isNotedWrite, OPERATIONS, type Deprecation, type Operation } from '../routes/operations.js'
import { documented, ERROR_SCHEMAS, errorBodySchema, errorExamples, errorStatuses, sample, SAMPLE_PROBLEMS, sentence, type DocumentedProblem } from './errors.js'
import { ACH_RETURN_FILE_EXAMPLE, CARD_PAYMENT_METHOD_EXAMPLE, PARAMETER_EXAMPLES, REQUEST_EXAMPLES, SUCCESS_EXAMPLES } from './examples.js'
import { OPERATION_DOCS, OPERATOR_TAGS, PARTNER_TAGS, REQUEST_BODIES, type OperationDoc, type RequestBodyName } from './operation-docs.js'
import { RESPONSE_SCHEMAS, SUCCESS_BODIES, SUCCESS_PINS } from './responses.js'
import { PATH_PARAMETER_DESCRIPTIONS } from './parameters.js'
import { partnerGuides, partnerApiVersion } from './guides.js'
import { QUERY_DESCRIPTIONS } from './query-descriptions.js'
import { HEADERS, INFO, PARAMETERS, PARTY_READY_EVENT, SECURITY_SCHEMES, WEBHOOKS } from './components.js'

/**
 * The OpenAPI 3.1 documents of the service (issues 7 and 39): the partner document
 * (`/public/openapi.json`, every route a partner calls) and the operator document
 * (`/internal/openapi.json`, the `/internal` routes and the probes). Both are built once at start
 * from the route table (method, path, auth, scope, success status), the io-ts codecs that
 * validate each request (their JSON Schemas), the schemas of the views that shape each success
 * body (responses.ts), each operation's documentation and problems (operation-docs.ts) and the
 * error mapper (errors.ts); `servers` is added per base URL (`withServer`).
 *
 * The partner document's paths are relative to its server, `<base URL>/public/v1` (decision 134):
 * the major version is in the path, and `/public` without it serves the same version 1 routes.
 */

export type Audience = 'partner' | 'operator'

/** The operator document holds the `/internal` routes and the probes; the partner document every other route. */
export const audienceOf = (op: Operation): Audience => (op.path.startsWith('/internal/') || op.path.startsWith('/health') ? 'operator' : 'partner')

/** Where the partner routes of version 1 are, under the base URL: the partner document's paths follow it. */
export const PARTNER_VERSION_PATH = '/public/v1'
/** The partner routes without the version segment (spec: `/public/v1/...` is `/public/...`), the same version 1 routes. */
const PARTNER_PATH = '/public'

/**
 * Where `op` is in its document: its route-table path as an OpenAPI template, partner paths
 * relative to their server (`PARTNER_VERSION_PATH`).
 */
export const documentPath = (op: Operation): string => {
  const template = op.path.replace(/:([A-Za-z]+)/g, '{$1}')
  return audienceOf(op) === 'partner' ? template.slice(PARTNER_PATH.length) : template
}

export type DocumentOptions = {
  /** The configured rate limits, which the 429 examples quote. */
  readonly rateLimits: RateLimitSettings
  /** Operations configured to answer the 501 placeholder (PLACEHOLDER_OPERATIONS). */
  readonly placeholderOperations?: ReadonlySet<string>
  /** The route table; `OPERATIONS` unless said. */
  readonly operations?: readonly Operation[]
  /** The webhook retry schedule, which the Webhooks guide states; the default unless said. */
  readonly webhookRetrySchedule?: readonly number[]
}

// ---- the problems of each kind of operation ------------------------------------------------------

/** Writes under /public take an Idempotency-Key, and a replay carries Idempotent-Replayed (docs/api.md "Idempotency"). */
const idempotent = (op: Operation): boolean => op.path.startsWith('/public/') && op.method !== 'GET'
const isProbe = (op: Operation): boolean => op.path.startsWith('/health')
const isDocument = (op: Operation): boolean => op.path.endsWith('/openapi.json')
const takesBody = (op: Operation, d: OperationDoc): boolean => d.body !== undefined || op.jsonBody

/** The request body of a route that takes a file (`Operation.fileBody`): a NACHA file's text. */
const FILE_BODY: JsonSchema = {
  required: true,
  description: 'The file as the bank sent it: NACHA records of 94 characters, one per line (gzip it with `Content-Encoding: gzip` if you like)',
  content: { 'text/plain': { schema: { type: 'string', minLength: 94 }, example: ACH_RETURN_FILE_EXAMPLE } },
}
const pathParametersOf = (op: Operation): readonly string[] => [...op.path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!)

/** Why this operation can answer `invalid_request`: what it reads from the request. */
const inputWhy = (op: Operation, d: OperationDoc): string | undefined => {
  const reasons = [
    ...(pathParametersOf(op).length > 0 ? ['a path parameter is malformed'] : []),
    ...(d.query !== undefined || d.list === true ? ['a query parameter is unknown or malformed'] : op.method === 'GET' ? [] : ['the request carries a query parameter (a write takes none)']),
    ...(takesBody(op, d) ? ['the body is not a JSON object of the documented fields (`param` names the first field at fault)'] : []),
    ...(op.method === 'PATCH' || op.jsonBody ? ['the Content-Type is not JSON'] : []),
    ...(op.fileBody === true ? ['the body is missing or its Content-Type is not text/plain'] : []),
  ]
  return reasons.length === 0 ? undefined : `${reasons.join('; ')}.`.replace(/^./, (c) => c.toUpperCase())
}

const rateLimited = (policy: string, limit: number, windowSeconds: number, why: string): DocumentedProblem =>
  documented({ ...SAMPLE_PROBLEMS.RateLimitExceeded, policy, limit, windowSeconds }, why)

/** An `invalid_request` this operation could answer: its first path parameter malformed, else its query, else its body. */
const inputSample = (op: Operation, d: OperationDoc, why: string): DocumentedProblem => {
  const [parameter] = pathParametersOf(op)
  if (parameter !== undefined) return documented({ _tag: 'InvalidRequest', detail: `${parameter} must be a UUID`, param: parameter }, why)
  if (d.list === true) return documented({ _tag: 'InvalidRequest', detail: 'limit must be an integer from 1 to 100', param: 'limit' }, why)
  if (d.query !== undefined || op.method === 'GET') return documented({ _tag: 'InvalidRequest', detail: 'filter is not a known field', param: 'filter' }, why)
  return documented({ _tag: 'InvalidRequest', detail: 'The request body must be a JSON object.' }, why)
}

/** The problems an operation has by its kind: credentials, rate limits, input, idempotency, outages. */
const kindProblems = (op: Operation, d: OperationDoc, options: DocumentOptions): readonly DocumentedProblem[] => {
  const problems: DocumentedProblem[] = []
  const limits = options.rateLimits
  const input = inputWhy(op, d)
  if (input !== undefined) problems.push(inputSample(op, d, input))
  switch (op.auth) {
    case 'partner':
      problems.push(sample('MissingApiKey'), sample('InvalidApiKey'), documented({ _tag: 'InsufficientScope', scope: op.scope ?? 'partner:api' }, `The key lacks the \`${op.scope ?? 'partner:api'}\` scope.`))
      if (op.path.includes(':partyId') || op.operationId === 'createLoanApplication') problems.push(sample('PartyMismatch'))
      if (op.testOnly === true) problems.push(sample('TestModeOnly'))
      problems.push(
        op.extraLimit === undefined
          ? rateLimited(RATE_POLICY.default, limits.requests, limits.windowSeconds, 'The key\'s `default` policy (or the client address\'s `key_lookups`) is spent; wait `Retry-After` seconds.')
          : rateLimited(
              op.extraLimit === 'verification' ? RATE_POLICY.verification : RATE_POLICY.webhookRetry,
              op.extraLimit === 'verification' ? limits.verificationRequests : limits.webhookRetries,
              limits.windowSeconds,
              `The \`${op.extraLimit}\` policy (on top of the key's \`default\`) is spent; wait \`Retry-After\` seconds.`,
            ),
      )
      break
    case 'mint':
      problems.push(
        sample('InvalidMintKey'),
        rateLimited(RATE_POLICY.mint, limits.mintRequests, limits.windowSeconds, 'The client address has used up its failed mint attempts (`mint` policy: wrong or empty secrets; a right one never counts); every attempt is refused until the window ends. Wait `Retry-After` seconds.'),
        documented({ _tag: 'ServerMisconfigured', setting: 'PARTNER_MINT_SECRET' }, 'The server has no mint secret configured: nobody can mint.'),
      )
      break
    case 'internal':
      problems.push(
        sample('InvalidInternalToken'),
        rateLimited(RATE_POLICY.internal, limits.mintRequests, limits.windowSeconds, 'The client address has used up its failed internal-token attempts (`internal` policy: wrong or missing tokens; a right one never counts); every attempt is refused until the window ends. Wait `Retry-After` seconds.'),
        rateLimited(RATE_POLICY.keyless, limits.keylessRequests, limits.windowSeconds, 'The client address\'s `keyless` policy is spent by requests that carried no bearer token.'),
        documented({ _tag: 'ServerMisconfigured', setting: 'INTERNAL_API_TOKEN' }, 'INTERNAL_API_TOKEN is not set and the request has no console session.'),
        ...sessionProblems(op, limits),
      )
      problems.push(...roleProblems(op))
      break
    case 'session':
      problems.push(...sessionProblems(op, limits), ...roleProblems(op))
      break
    case 'none':
      if (!isProbe(op)) problems.push(rateLimited(RATE_POLICY.keyless, limits.keylessRequests, limits.windowSeconds, 'The client address\'s `keyless` policy (requests without a credential) is spent.'))
      break
  }
  // A declared body over the limit is refused on every route, before anything else.
  problems.push(sample('PayloadTooLarge', takesBody(op, d) ? undefined : 'A declared `Content-Length` is over 1 MiB (this operation reads no body).'))
  if (idempotent(op)) problems.push(sample('IdempotencyKeyInUse'), sample('IdempotencyKeyReused'))
  if (op.idempotencyKeyRequired === true) problems.push(sample('IdempotencyKeyRequired'))
  if (op.method !== 'GET') problems.push(documented({ _tag: 'ConcurrentUpdate', resource: 'record' }, 'A concurrent request changed the same record first; retry.'))
  if (!isProbe(op)) problems.push(documented(notReady('migrations_pending'), 'The process is still migrating the database schema at start: the request waited up to 30 s for it, then gave up; retry after `Retry-After` seconds.'))
  if (!isProbe(op) && !isDocument(op)) problems.push(sample('StoreUnavailable'))
  problems.push(sample('InternalError'))
  if (options.placeholderOperations?.has(op.operationId) === true) problems.push(documented({ _tag: 'NotImplemented', operationId: op.operationId }))
  return problems
}

// ---- headers -------------------------------------------------------------------------------------

/**
 * Every route but the probes answers the RateLimit headers (docs/api.md "Rate limits"): partner
 * routes and minting for their own policies, and every route for a request without a credential
 * (the address's keyless budget).
 */
const carriesRateLimit = (op: Operation): boolean => !isProbe(op)
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
}

const header = (name: string): JsonSchema => ({ $ref: `#/components/headers/${name}` })

/** The headers an answer of `op` with `status` may carry (docs/api.md "Response headers"). */
const responseHeaders = (op: Operation, status: number): Record<string, JsonSchema> => ({
  'X-Request-Id': header('X-Request-Id'),
  ...(op.deprecated === undefined ? {} : { Deprecation: header('Deprecation'), Sunset: header('Sunset'), Link: header('Link') }),
  ...(op.readsBehind === true || isNotedWrite(op) ? { 'Lendgate-Data-As-Of': header('Lendgate-Data-As-Of') } : {}),
  ...(carriesRateLimit(op) ? RATE_LIMIT_HEADERS : {}),
  ...(idempotent(op) && status < 500 && status !== 401 ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {}),
  ...(status === 401 && op.auth !== 'mint' ? { 'WWW-Authenticate': header('WWW-Authenticate') } : {}),
  // 409 idempotency_key_in_use and 503 not_ready (the schema still migrating) ask the caller to wait.
  ...(status === 429 || status === 503 || (status === 409 && idempotent(op)) ? { 'Retry-After': header('Retry-After') } : {}),
})

// ---- parameters and bodies -----------------------------------------------------------------------

/** The example of `name`; a parameter without one is a mistake of examples.ts. */
const exampleOf = <V>(examples: Readonly<Record<string, V>>, name: string): V => {
  const example = examples[name]
  if (example === undefined) throw new Error(`parameter ${name} has no example (openapi/examples.ts)`)
  return example
}

/** The examples of a request body: one, or for a payment method one of each type. */
const requestExamples = (name: RequestBodyName): JsonSchema =>
  name === 'PaymentMethodInput'
    ? { examples: { bank_account: { summary: 'A bank account', value: REQUEST_EXAMPLES[name] }, card: { summary: 'A card token', value: CARD_PAYMENT_METHOD_EXAMPLE } } }
    : { example: REQUEST_EXAMPLES[name] }

/** Query parameters from a strict object codec: one parameter per property, described by `QUERY_DESCRIPTIONS` and the codec. */
const queryParameters = (codec: t.Mixed): readonly JsonSchema[] => {
  const schema = jsonSchemaOf(codec) as { properties?: Record<string, JsonSchema> }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    // Optional properties allow null in a body; a query value is a string or absent.
    const { description, ...value } = ((property as { anyOf?: readonly JsonSchema[] }).anyOf?.[0] ?? property) as { description?: string }
    const described = [QUERY_DESCRIPTIONS.get(codec)?.[name], description].filter((text): text is string => typeof text === 'string')
    if (described.length === 0) throw new Error(`query parameter ${name} has no description (openapi/query-descriptions.ts)`)
    // No example: "Try it out" would fill the optional filters in, and list a filtered page by default.
    return { name, in: 'query', required: false, description: described.join('; '), schema: value }
  })
}

/** The schema of path parameter `name`: the schema of the codec its use cases decode it with. */
const pathParameter = (name: string): JsonSchema => {
  const codec = (PATH_PARAMETERS as Readonly<Record<string, t.Mixed>>)[name]
  if (codec === undefined) throw new Error(`path parameter ${name} has no codec in PATH_PARAMETERS`)
  const description = PATH_PARAMETER_DESCRIPTIONS[name as keyof typeof PATH_PARAMETERS]
  return { name, in: 'path', required: true, description, schema: jsonSchemaOf(codec), example: exampleOf(PARAMETER_EXAMPLES, name) }
}

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

/** Who holds `permission`: its roles, or the internal token alone. */
const holders = (permission: OperatorPermission): string => {
  const roles = rolesWith(permission)
  return roles.length === 0 ? 'no role holds it: only the internal token' : `${roles.join(', ')} hold it`
}

/** A console session whose operator's role lacks the route's permission (every role holds `read`). */
const roleProblems = (op: Operation): readonly DocumentedProblem[] =>
  op.permission === undefined || op.permission === 'read'
    ? []
    : [documented(insufficientRole('reviewer', op.permission), `A console session's operator whose role lacks \`${op.permission}\` (${holders(op.permission)}).`)]

/** What a console session's request can be refused for (decision 149). */
const sessionProblems = (op: Operation, limits: RateLimitSettings): readonly DocumentedProblem[] => [
  sample('InvalidOperatorSession'),
  rateLimited(RATE_POLICY.keyless, limits.keylessRequests, limits.windowSeconds, "A cookie that finds no live session is charged to the client address's `keyless` policy, which is spent; wait `Retry-After` seconds."),
  ...(op.method === 'GET' ? [] : [sample('InvalidCsrfToken')]),
]

/** The media types of a request body: a PATCH also takes `application/merge-patch+json` (RFC 7396). */
const bodyContent = (op: Operation, media: JsonSchema): JsonSchema =>
  op.method === 'PATCH' ? { 'application/json': media, 'application/merge-patch+json': media } : { 'application/json': media }

// ---- operations ----------------------------------------------------------------------------------

const securityOf = (op: Operation): readonly Record<string, readonly string[]>[] => {
  switch (op.auth) {
    case 'partner':
      return [{ bearerApiKey: [] }, { headerApiKey: [] }]
    case 'mint':
      return [{ mintKey: [] }]
    case 'internal':
      return [{ internalToken: [] }, { operatorSession: [] }]
    case 'session':
      return [{ operatorSession: [] }]
    case 'none':
      return []
  }
}

const idempotencyText = (op: Operation): string => {
  if (op.method === 'GET') return 'Safe: it changes nothing, and may be retried freely.'
  if (op.idempotencyKeyRequired === true) return '**Idempotency**: an `Idempotency-Key` is required, and kept for good: the same key always answers this payment.'
  if (idempotent(op)) return '**Idempotency**: send an `Idempotency-Key` to retry safely: the first answer is replayed for 24 hours (`Idempotent-Replayed: true`).'
  return 'Not idempotent by key: operator routes take no `Idempotency-Key`; check the result before repeating it.'
}

/** What a deprecated operation's description starts with. */
const deprecationText = (deprecation: Deprecation): string =>
  `**Deprecated** since ${deprecation.since}: it may stop answering after ${deprecation.sunset}. Its answers carry \`Deprecation\`, \`Sunset\` and \`Link\` (${deprecation.link}).`

/** The world an operator's request acts on (decision 128), a header of every internal operation. */
const LENDGATE_MODE: JsonSchema = {
  name: 'Lendgate-Mode',
  in: 'header',
  required: false,
  schema: { type: 'string', enum: ['live', 'test'], default: 'live' },
  example: 'test',
  description: 'The world the request acts on: `live` (the default) or `test`, the world of test keys (docs/testing.md). Any other value is 400 `invalid_request`',
}

const operationObject = (op: Operation, options: DocumentOptions): JsonSchema => {
  const d = OPERATION_DOCS[op.operationId as keyof typeof OPERATION_DOCS]
  const parameters: JsonSchema[] = [
    ...pathParametersOf(op).map(pathParameter),
    ...(d.query === undefined ? [] : queryParameters(d.query)),
    ...(d.list === true ? queryParameters(PageQuery) : []),
  ]
  if (op.auth === 'internal') parameters.push(LENDGATE_MODE)
  if ((op.auth === 'internal' || op.auth === 'session') && op.method !== 'GET') parameters.push({ $ref: '#/components/parameters/CsrfToken' })
  if (idempotent(op)) {
    parameters.push(
      op.idempotencyKeyRequired === true ? { $ref: '#/components/parameters/RequiredIdempotencyKey' } : { $ref: '#/components/parameters/IdempotencyKey' },
    )
  }
  const problems = [...kindProblems(op, d, options), ...(d.errors ?? [])]
  const errors = errorStatuses(problems)
  const pin = SUCCESS_PINS[op.operationId as keyof typeof SUCCESS_PINS]
  const description = [
    ...(op.deprecated === undefined ? [] : [deprecationText(op.deprecated)]),
    d.description,
    idempotencyText(op),
    `**Errors**\n\n${errors
      .flatMap(({ status, codes }) => codes.map(({ code, problems }) => `- ${status} \`${code}\`: ${[...new Set(problems.map(({ why }) => sentence(why)))].join(' ')}`))
      .join('\n')}`,
  ].join('\n\n')
  return {
    operationId: op.operationId,
    summary: d.summary,
    description,
    tags: [d.tag],
    ...(op.deprecated === undefined ? {} : { deprecated: true }),
    security: securityOf(op),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(d.body === undefined ? {} : { requestBody: { required: op.jsonBody, content: bodyContent(op, { schema: schemaRef(d.body), ...requestExamples(d.body) }) } }),
    ...(op.fileBody === true ? { requestBody: FILE_BODY } : {}),
    responses: {
      [String(op.successStatus)]: {
        description: pin === undefined ? 'Success' : `Success. ${pin.says}`,
        headers: responseHeaders(op, op.successStatus),
        content: {
          'application/json': { schema: SUCCESS_BODIES[op.operationId as keyof typeof SUCCESS_BODIES], example: SUCCESS_EXAMPLES[op.operationId as keyof typeof SUCCESS_EXAMPLES] },
        },
      },
      ...Object.fromEntries(
        errors.map((entry) => [
          String(entry.status),
          {
            description: entry.codes.map(({ code }) => `\`${code}\``).join(', '),
            headers: responseHeaders(op, entry.status),
            content: { 'application/json': { schema: errorBodySchema(entry.codes.map(({ code }) => code)), examples: errorExamples(entry) } },
          },
        ]),
      ),
    },
  }
}

/** Every component reachable from `roots`, by kind and name. */
const reachable = (roots: unknown, components: Readonly<Record<string, Readonly<Record<string, unknown>>>>): ReadonlySet<string> => {
  const seen = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (typeof node !== 'object' || node === null) return
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !seen.has(value)) {
        seen.add(value)
        const [, , kind, name] = value.split('/')
        visit(components[kind!]?.[name!])
      } else if (key === 'mapping' && typeof value === 'object' && value !== null) {
        visit(Object.values(value).map(($ref) => ({ $ref })))
      } else visit(value)
    }
  }
  visit(roots)
  return seen
}

/** `components` with only what `roots` refer to, so neither document carries what it does not use. */
const usedComponents = (roots: unknown, components: Readonly<Record<string, Readonly<Record<string, unknown>>>>): JsonSchema => {
  const used = reachable(roots, components)
  return Object.fromEntries(
    Object.entries(components)
      .map(([kind, named]) => [kind, Object.fromEntries(Object.entries(named).filter(([name]) => used.has(`#/components/${kind}/${name}`)))] as const)
      .filter(([, named]) => Object.keys(named).length > 0),
  )
}

/**
 * Request bodies that are one of several shapes told apart by `type`, and the name of each shape's
 * schema, so generated clients get a named type per branch and tools a discriminator.
 */
const REQUEST_BRANCHES: Partial<Record<RequestBodyName, Readonly<Record<string, string>>>> = {
  PaymentMethodInput: { bank_account: 'BankAccountPaymentMethodInput', card: 'CardPaymentMethodInput' },
}

/** The schema of every request body, the branches of those in `REQUEST_BRANCHES` named apart. */
const requestSchemas = (): Record<string, JsonSchema> =>
  Object.fromEntries(
    Object.entries(REQUEST_BODIES).flatMap(([name, codec]): (readonly [string, JsonSchema])[] => {
      const schema = jsonSchemaOf(codec)
      const names = REQUEST_BRANCHES[name as RequestBodyName]
      if (names === undefined) return [[name, schema]]
      const branches = (schema as { oneOf: readonly { properties: { type: { enum: readonly [string] } } }[] }).oneOf.map((branch) => {
        const branchName = names[branch.properties.type.enum[0]]
        if (branchName === undefined) throw new Error(`request body ${name} has a branch of type ${branch.properties.type.enum[0]} without a name`)
        return [branchName, branch as JsonSchema] as const
      })
      const mapping = Object.fromEntries(Object.entries(names).map(([type, branchName]) => [type, `#/components/schemas/${branchName}`]))
      return [[name, { oneOf: branches.map(([branchName]) => schemaRef(branchName)), discriminator: { propertyName: 'type', mapping } }], ...branches]
    }),
  )

const buildDocument = (audience: Audience, options: DocumentOptions): JsonSchema => {
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const op of (options.operations ?? OPERATIONS).filter((o) => audienceOf(o) === audience)) {
    const path = documentPath(op)
    paths[path] = { ...paths[path], [op.method.toLowerCase()]: operationObject(op, options) }
  }
  const webhooks = audience === 'partner' ? WEBHOOKS : undefined
  const tags = audience === 'partner' ? PARTNER_TAGS : OPERATOR_TAGS
  const components = {
    securitySchemes: SECURITY_SCHEMES[audience],
    parameters: PARAMETERS,
    headers: HEADERS,
    schemas: { ...RESPONSE_SCHEMAS, ...requestSchemas(), ...ERROR_SCHEMAS, PartyReadyEvent: PARTY_READY_EVENT },
  }
  const roots = { paths, webhooks }
  return {
    openapi: '3.1.0',
    info: {
      ...INFO[audience],
      ...(audience === 'partner'
        ? { description: [INFO.partner.description, ...partnerGuides({ rateLimits: options.rateLimits, webhookRetrySchedule: options.webhookRetrySchedule ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE })].join('\n\n') }
        : {}),
      version: partnerApiVersion(),
      contact: { name: 'Lendgate API support', email: 'api-support@lendgate.example', url: 'https://lendgate.example/support' },
      license: { name: 'Apache 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    // In alphabetical order, as readers of a long list look for them (Spectral's openapi-tags-alphabetical).
    tags: Object.entries(tags)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, description]) => ({ name, description })),
    paths,
    ...(webhooks === undefined ? {} : { webhooks }),
    components: { ...usedComponents(roots, components), securitySchemes: components.securitySchemes },
  }
}

/** Both documents, without `servers` (see `withServer`). */
export const openApiDocuments = (options: DocumentOptions): Readonly<Record<Audience, JsonSchema>> => {
  for (const op of OPERATIONS) if (SUCCESS_BODIES[op.operationId] === undefined) throw new Error(`operation ${op.operationId} has no success body schema`)
  return { partner: buildDocument('partner', options), operator: buildDocument('operator', options) }
}

/**
 * `document` served from `baseUrl` (the configured public base URL, or the address the request
 * reached, or empty for this server's own host): the partner document's servers are version 1 with and without its path segment, the
 * operator document's the base URL itself.
 */
export const withServer = ({ openapi, info, ...rest }: JsonSchema, audience: Audience, baseUrl: string): JsonSchema => ({
  openapi,
  info,
  servers:
    audience === 'partner'
      ? [
          { url: `${baseUrl}${PARTNER_VERSION_PATH}`, description: 'Version 1 of the partner API (use this)' },
          { url: `${baseUrl}${PARTNER_PATH}`, description: 'The same version 1 routes without the version segment' },
        ]
      : [{ url: baseUrl === '' ? '/' : baseUrl, description: 'This server' }],
  ...rest,
})
