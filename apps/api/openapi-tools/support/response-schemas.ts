import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { Operation } from './document-requests.js'

/**
 * Validates a body against the schema a document gives an operation's response, with Ajv's
 * JSON Schema 2020-12 (OpenAPI 3.1's dialect) and ajv-formats, as openapi-conformance.ts does
 * for the in-process document. The whole document is registered as one schema, so its `$ref`s
 * (`#/components/schemas/…`) resolve in it, cycles included.
 */

const DOCUMENT_ID = 'urn:lendgate:openapi-tools:document'

const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1')

/** Ajv's errors as one line each: `/data/0/key_prefix must match pattern "…"`. */
const describe = (errors: readonly ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => `${e.instancePath === '' ? '(the body)' : e.instancePath} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` (${String(e.params['additionalProperty'])})` : ''}`)

export type BodyCheck = { readonly ok: true } | { readonly ok: false; readonly problems: readonly string[] }

/**
 * For `document`: checks `body` against the `application/json` schema of `op`'s `status`
 * response. No such schema means no check (ok), unless a body came back.
 */
export const responseBodyChecker = (document: Record<string, unknown>): ((op: Operation, status: number, body: unknown) => BodyCheck) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema({ ...document, $id: DOCUMENT_ID })
  const compiled = new Map<string, ValidateFunction>()
  return (op, status, body) => {
    const response = ((op.operation['responses'] ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>)[String(status)]
    if (response === undefined) return { ok: false, problems: [`status ${status} is not a documented response`] }
    if (response.content?.['application/json']?.schema === undefined) {
      return body === undefined ? { ok: true } : { ok: false, problems: [`a body came back, but the ${status} response has no application/json schema`] }
    }
    const pointer = ['paths', op.path, op.method, 'responses', String(status), 'content', 'application/json', 'schema'].map(escape).join('/')
    const validate = compiled.get(pointer) ?? ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` })
    compiled.set(pointer, validate)
    return validate(body) ? { ok: true } : { ok: false, problems: describe(validate.errors) }
  }
}
