import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { expect } from 'chai'
import { toHttpError } from '../src/http/error-mapper.js'
import type { Problem } from '../src/http/problems.js'
import { openApiDocuments } from '../src/openapi/document.js'
import { ERROR_CODES, ERROR_SCHEMAS, errorSchemaName, SAMPLE_PROBLEMS } from '../src/openapi/errors.js'
import { RESPONSE_SCHEMAS } from '../src/openapi/responses.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { testConfig } from './support/test-server.js'

/**
 * Issue 39: the error answers the documents describe are the ones the service sends. Every
 * problem's body (by the error mapper) matches the schema of its code; every code the documents
 * name is one a problem produces; each operation's error responses carry their codes as a
 * discriminated union with an example of each, valid against it. That each operation lists every
 * code it really answers is checked by every HTTP suite (support/openapi-conformance.ts).
 */

type Json = Record<string, unknown>
type Operation = { readonly operationId: string; readonly responses: Record<string, Json> }

/** Every problem the service can answer: one sample of each, and each variant whose body differs. */
const EVERY_PROBLEM: readonly Problem[] = [
  ...Object.values(SAMPLE_PROBLEMS),
  { _tag: 'InvalidRequest', detail: 'The request body must be a JSON object.' },
  { _tag: 'UnreadableRequest', reason: 'headers_too_large' },
  { _tag: 'UnreadableRequest', reason: 'timeout' },
  { _tag: 'NotReady', reason: 'migrations_pending' },
  { _tag: 'NoPendingVerification', channel: 'email', alreadyVerified: true },
]

const documents = openApiDocuments({ placeholderOperations: new Set(['getLoanForParty']), rateLimits: testConfig().rateLimits }) as Record<'partner' | 'operator', Json>

/** A validator of `schema` that resolves references against `document`'s components. */
const validatorFor = (document: Json) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema({ ...document, $id: 'doc' })
  return (schema: Json) => ajv.compile({ ...JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) })
}

const operationsOf = (document: Json): readonly Operation[] =>
  Object.values(document['paths'] as Record<string, Record<string, Operation>>).flatMap((item) => Object.values(item))

describe('the error answers of the OpenAPI documents', () => {
  it('every problem answers a code the documents name, with a body its schema takes', () => {
    const compile = validatorFor({ components: { schemas: { ...RESPONSE_SCHEMAS, ...ERROR_SCHEMAS } } })
    for (const problem of EVERY_PROBLEM) {
      const { body } = toHttpError(problem)
      expect(ERROR_CODES, problem._tag).to.have.property(body.error)
      const validate = compile({ $ref: `#/components/schemas/${errorSchemaName(body.error)}` })
      expect(validate(body), `${problem._tag}: ${JSON.stringify(body)} ${JSON.stringify(validate.errors)}`).to.equal(true)
    }
    // The check is not vacuous: a body with a field its code does not have is refused.
    expect(compile({ $ref: '#/components/schemas/NotFoundError' })({ error: 'not_found', detail: 'No such loan.', extra: 1 })).to.equal(false)
  })

  it('names no code that no problem answers', () => {
    const answered = new Set(EVERY_PROBLEM.map((problem) => toHttpError(problem).body.error))
    expect(Object.keys(ERROR_CODES).filter((code) => !answered.has(code))).to.deep.equal([])
  })

  it('gives every error response its codes as a union told apart by `error`, and an example of each that the schema takes', () => {
    let examples = 0
    for (const document of Object.values(documents)) {
      const compile = validatorFor(document)
      for (const operation of operationsOf(document)) {
        for (const [status, response] of Object.entries(operation.responses).filter(([status]) => Number(status) >= 400)) {
          const media = (response['content'] as Json)['application/json'] as { schema: Json; examples: Record<string, { value: { error: string } }> }
          const codes = Object.keys(media.examples)
          const union = (media.schema['oneOf'] as Json[] | undefined)?.map((member) => member['$ref']) ?? [media.schema['$ref']]
          expect(union, `${operation.operationId} ${status}`).to.deep.equal(codes.map((code) => `#/components/schemas/${errorSchemaName(code)}`))
          const validate = compile(media.schema)
          for (const [code, { value }] of Object.entries(media.examples)) {
            expect(value.error).to.equal(code)
            expect(validate(value), `${operation.operationId} ${status} ${code}: ${JSON.stringify(validate.errors)}`).to.equal(true)
            examples += 1
          }
        }
      }
    }
    expect(examples).to.be.greaterThan(500)
  })

  it('lists on every operation the outage it can meet, on none 405, and 501 only where the placeholder is configured', () => {
    for (const document of Object.values(documents)) {
      for (const operation of operationsOf(document)) {
        const statuses = Object.keys(operation.responses)
        expect(statuses, operation.operationId).to.include('500')
        expect(statuses, operation.operationId).to.not.include('405')
        expect(statuses.includes('501'), operation.operationId).to.equal(operation.operationId === 'getLoanForParty')
      }
    }
  })

  it('lists on every partner route the answers to a missing, bad or under-scoped key', () => {
    const partnerOperations = new Set<string>(OPERATIONS.filter((op) => op.auth === 'partner').map((op) => op.operationId))
    const described = operationsOf(documents.partner).filter((operation) => partnerOperations.has(operation.operationId))
    expect(described).to.have.length(partnerOperations.size)
    for (const operation of described) {
      const codes = (status: string) => Object.keys(((operation.responses[status]?.['content'] as Json | undefined)?.['application/json'] as { examples?: Json } | undefined)?.examples ?? {})
      expect(codes('401'), operation.operationId).to.deep.equal(['invalid_api_key', 'missing_api_key'])
      expect(codes('403'), operation.operationId).to.include('insufficient_scope')
      expect(codes('429'), operation.operationId).to.include('rate_limited')
    }
  })
})
