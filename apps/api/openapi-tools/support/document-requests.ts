import { randomUUID } from 'node:crypto'
import type { Finding } from './findings.js'

/**
 * A request for each operation of a document, built from the document alone: path and required
 * query parameters from their examples, the body from its media type's example, a credential of
 * the kind the operation's security names, and an Idempotency-Key where one is required. What
 * the document does not provide is a finding, not something this file makes up.
 */

type Json = Record<string, unknown>

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

export type Operation = {
  readonly method: (typeof METHODS)[number]
  readonly path: string
  readonly operationId: string
  readonly operation: Json
  readonly pathItem: Json
}

/** `METHOD /path (operationId)`: how findings name an operation. */
export const nameOf = (op: Operation): string => `${op.method.toUpperCase()} ${op.path} (${op.operationId})`

/** Every operation under `paths`, in document order (webhooks are not served, so not included). */
export const operationsOf = (document: Json): Operation[] =>
  Object.entries((document['paths'] as Record<string, Json> | undefined) ?? {}).flatMap(([path, pathItem]) =>
    METHODS.flatMap((method) => {
      const operation = pathItem[method] as Json | undefined
      return operation === undefined ? [] : [{ method, path, operationId: String(operation['operationId'] ?? '(no operationId)'), operation, pathItem }]
    }),
  )

/** `node` with its local `$ref`s followed (a reference to a reference too). */
export const deref = (document: Json, node: unknown): unknown => {
  let at = node
  for (let hops = 0; typeof at === 'object' && at !== null && typeof (at as Json)['$ref'] === 'string'; hops += 1) {
    const ref = (at as Json)['$ref'] as string
    if (!ref.startsWith('#/') || hops > 20) throw new Error(`cannot follow $ref ${ref}`)
    at = ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document)
    if (at === undefined) throw new Error(`unresolvable $ref ${ref}`)
  }
  return at
}

const NONE = Symbol('no example')

/** A parameter's example: `example`, the first of `examples`, or its schema's `examples[0]` / `example`. */
const parameterExample = (document: Json, parameter: Json): unknown => {
  if ('example' in parameter) return parameter['example']
  const examples = Object.values((parameter['examples'] as Json | undefined) ?? {})
  if (examples.length > 0) return (deref(document, examples[0]) as Json)['value']
  const schema = deref(document, parameter['schema']) as Json | undefined
  if (Array.isArray(schema?.['examples']) && schema['examples'].length > 0) return schema['examples'][0]
  if (schema !== undefined && 'example' in schema) return schema['example']
  return NONE
}

/** A media type's example: `example`, else the value of the first of `examples`. */
const mediaExample = (document: Json, media: Json): unknown => {
  if ('example' in media) return media['example']
  const examples = Object.values((media['examples'] as Json | undefined) ?? {})
  return examples.length > 0 ? (deref(document, examples[0]) as Json)['value'] : NONE
}

/** A placeholder credential: the mock checks that one of the right kind is present, not its value. */
const CREDENTIAL = 'openapi-tools-mock-credential'

/** The headers (and query parameters) that satisfy the operation's first security requirement. */
const credentials = (document: Json, op: Operation): { headers: Record<string, string>; query: Record<string, string> } => {
  const requirements = (op.operation['security'] ?? document['security'] ?? []) as Record<string, unknown>[]
  const schemes = ((document['components'] as Json | undefined)?.['securitySchemes'] ?? {}) as Record<string, unknown>
  const headers: Record<string, string> = {}
  const query: Record<string, string> = {}
  for (const name of Object.keys(requirements[0] ?? {})) {
    const scheme = deref(document, schemes[name]) as Json | undefined
    if (scheme?.['type'] === 'http' && String(scheme['scheme']).toLowerCase() === 'bearer') headers['Authorization'] = `Bearer ${CREDENTIAL}`
    else if (scheme?.['type'] === 'http' && String(scheme['scheme']).toLowerCase() === 'basic') headers['Authorization'] = `Basic ${Buffer.from(`${CREDENTIAL}:${CREDENTIAL}`).toString('base64')}`
    else if (scheme?.['type'] === 'apiKey' && scheme['in'] === 'header') headers[String(scheme['name'])] = CREDENTIAL
    else if (scheme?.['type'] === 'apiKey' && scheme['in'] === 'query') query[String(scheme['name'])] = CREDENTIAL
    else if (scheme?.['type'] === 'apiKey' && scheme['in'] === 'cookie') headers['Cookie'] = `${String(scheme['name'])}=${CREDENTIAL}`
  }
  return { headers, query }
}

export type DocumentRequest = { readonly method: string; readonly target: string; readonly headers: Record<string, string>; readonly body?: string }

/** The request for `op`, or the findings that say what the document lacks to build it. */
export const requestFor = (document: Json, op: Operation): { readonly request?: DocumentRequest; readonly findings: readonly Finding[] } => {
  const findings: Finding[] = []
  const lacks = (rule: string, message: string): void => {
    findings.push({ rule, severity: 'error', where: nameOf(op), message })
  }
  const parameters = [...((op.pathItem['parameters'] as unknown[]) ?? []), ...((op.operation['parameters'] as unknown[]) ?? [])].map((p) => deref(document, p) as Json)
  const auth = credentials(document, op)
  const headers: Record<string, string> = { Accept: 'application/json', ...auth.headers }
  const query = new URLSearchParams(auth.query)
  let path = op.path
  for (const parameter of parameters) {
    const name = String(parameter['name'])
    const where = String(parameter['in'])
    if (where !== 'path' && parameter['required'] !== true) continue
    const example = parameterExample(document, parameter)
    if (example === NONE && where === 'header' && name.toLowerCase() === 'idempotency-key') {
      headers[name] = randomUUID()
      continue
    }
    if (example === NONE) {
      lacks('parameter-example', `the ${where} parameter ${name} has no example (parameter example/examples, or its schema's examples)`)
      continue
    }
    const value = typeof example === 'string' ? example : JSON.stringify(example)
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(value))
    else if (where === 'query') query.set(name, value)
    else if (where === 'header') headers[name] = value
    else if (where === 'cookie') headers['Cookie'] = `${headers['Cookie'] === undefined ? '' : `${headers['Cookie']}; `}${name}=${value}`
  }
  let body: string | undefined
  const requestBody = deref(document, op.operation['requestBody']) as Json | undefined
  if (requestBody !== undefined) {
    const content = (requestBody['content'] ?? {}) as Record<string, Json>
    const mediaType = 'application/json' in content ? 'application/json' : Object.keys(content)[0]
    const example = mediaType === undefined ? NONE : mediaExample(document, content[mediaType]!)
    if (example !== NONE) {
      headers['Content-Type'] = mediaType!
      body = JSON.stringify(example)
    } else if (requestBody['required'] === true) lacks('request-body-example', `the required request body (${mediaType ?? 'no media type'}) has no example`)
  }
  if (findings.length > 0) return { findings }
  const search = query.toString()
  return { request: { method: op.method.toUpperCase(), target: `${path}${search === '' ? '' : `?${search}`}`, headers, ...(body === undefined ? {} : { body }) }, findings }
}
