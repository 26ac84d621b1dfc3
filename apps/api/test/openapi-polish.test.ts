import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { PATH_PARAMETERS } from '@lendgate/core'
import { SEEDED_LOAN_PRODUCTS } from '@lendgate/core/testing'
import { expect } from 'chai'
import { PARAMETER_EXAMPLES, REQUEST_EXAMPLES } from '../src/openapi/examples.js'
import { PATH_PARAMETER_DESCRIPTIONS } from '../src/openapi/parameters.js'
import { bearer, request } from './support/client.js'
import { INTERNAL_TOKEN, startInMemoryServer, type TestServer } from './support/test-server.js'

/**
 * The polish of the OpenAPI documents (issue 58, item 4): every path parameter says what it
 * identifies and where it comes from; the unions of the payment and payment-method bodies are
 * named branches a generator cannot mix (Prism's dynamic mock); and the request examples that
 * name catalogue data name what a fresh server is seeded with.
 */

type Json = Record<string, unknown>
type Parameter = { readonly name: string; readonly in: string; readonly description?: unknown }
type Document = {
  readonly paths: Record<string, Record<string, { readonly operationId?: string; readonly parameters?: readonly (Parameter | { readonly $ref: string })[] }>>
  readonly components: { readonly schemas: Record<string, Json> }
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete']

/** Every path parameter of `document`, where it is. */
const pathParameters = (document: Document): readonly { readonly where: string; readonly parameter: Parameter }[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          .filter((p): p is Parameter => !('$ref' in p) && p.in === 'path')
          .map((parameter) => ({ where: `${method.toUpperCase()} ${path} {${parameter.name}}`, parameter })),
      ),
  )

/** An operator setting (an environment variable's name, such as `WEBHOOK_ALLOW_HTTP`) or a repository path. */
const OPERATOR_WORDS = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b(?:apps|packages|docs|src)\/|\.(?:ts|md)\b/

/** The ids of the products a fresh database is seeded with, read from the migration that seeds them. */
const seededProductIds = (): readonly string[] => {
  const source = readFileSync(fileURLToPath(new URL('../../../packages/adapters/src/postgres/migrations/0009-loans.ts', import.meta.url)), 'utf8')
  const block = /const SEED_PRODUCTS = \[([\s\S]*?)\n\]/.exec(source)?.[1]
  if (block === undefined) expect.fail('the loan migration has no SEED_PRODUCTS catalogue')
  return [...block.matchAll(/\bid: '([0-9a-f-]{36})'/g)].map((match) => match[1]!)
}

describe('OpenAPI polish (issue 58)', () => {
  let server: TestServer
  let partner: Document
  let operator: Document
  before(async () => {
    server = await startInMemoryServer()
    partner = (await request(server.url, '/public/openapi.json')).body as Document
    operator = (await request(server.url, '/internal/openapi.json', { headers: bearer(INTERNAL_TOKEN) })).body as Document
  })
  after(async () => server.stop())

  describe('path parameters', () => {
    it('every path parameter of both documents has a description of its own', () => {
      for (const [which, document] of [['partner', partner], ['operator', operator]] as const) {
        const parameters = pathParameters(document)
        expect(parameters, which).to.not.be.empty
        for (const { where, parameter } of parameters) {
          expect(parameter.description, `${which}: ${where}`).to.be.a('string')
          expect((parameter.description as string).trim(), `${which}: ${where}`).to.not.equal('')
        }
      }
    })

    it('describes every parameter of PATH_PARAMETERS in one sentence, each its own', () => {
      expect(Object.keys(PATH_PARAMETER_DESCRIPTIONS).sort()).to.deep.equal(Object.keys(PATH_PARAMETERS).sort())
      for (const [name, description] of Object.entries(PATH_PARAMETER_DESCRIPTIONS)) {
        expect(description, name).to.match(/^[A-Z].*\.$/)
        expect(description.split(/\.\s+[A-Z]/), name).to.have.length(1)
      }
      expect(new Set(Object.values(PATH_PARAMETER_DESCRIPTIONS)).size).to.equal(Object.keys(PATH_PARAMETER_DESCRIPTIONS).length)
    })

    it('names no operator setting and no repository path in the partner document', () => {
      for (const { where, parameter } of pathParameters(partner)) expect(parameter.description as string, where).to.not.match(OPERATOR_WORDS)
    })
  })

  describe('the unions of the payment and payment-method bodies', () => {
    for (const [union, property] of [
      ['PaymentMethod', 'type'],
      ['Payment', 'status'],
    ] as const) {
      it(`${union} is a oneOf of named schemas with a discriminator on \`${property}\`, each branch only one value of it and no other field`, () => {
        for (const [which, document] of [['partner', partner], ['operator', operator]] as const) {
          const schemas = document.components.schemas
          const schema = schemas[union]
          if (schema === undefined) continue
          const branches = schema['oneOf'] as readonly Json[]
          expect(branches, `${which} ${union}.oneOf`).to.be.an('array').with.length.greaterThan(1)
          const refs = branches.map((branch) => {
            expect(Object.keys(branch), `${which} ${union}: a branch is only a $ref`).to.deep.equal(['$ref'])
            return branch['$ref'] as string
          })
          const discriminator = schema['discriminator'] as { readonly propertyName: string; readonly mapping: Readonly<Record<string, string>> }
          expect(discriminator.propertyName).to.equal(property)
          expect([...new Set(Object.values(discriminator.mapping))].sort()).to.deep.equal([...refs].sort())
          for (const [value, ref] of Object.entries(discriminator.mapping)) {
            const name = ref.replace('#/components/schemas/', '')
            expect(ref, `${union} → ${value}`).to.equal(`#/components/schemas/${name}`)
            const branch = schemas[name] as { readonly required: readonly string[]; readonly additionalProperties: unknown; readonly properties: Record<string, Json> }
            expect(branch, `${which} ${name}`).to.be.an('object')
            expect(branch.additionalProperties, name).to.equal(false)
            expect(branch.required, name).to.include(property)
            expect(branch.properties[property], `${name}.${property}`).to.deep.include({ const: value })
          }
        }
      })
    }

    it('the body that adds a payment method is a oneOf of a named schema per `type`, with a discriminator', () => {
      const schemas = partner.components.schemas
      const input = schemas['PaymentMethodInput']!
      expect(input['oneOf']).to.deep.equal([{ $ref: '#/components/schemas/BankAccountPaymentMethodInput' }, { $ref: '#/components/schemas/CardPaymentMethodInput' }])
      expect(input['discriminator']).to.deep.equal({
        propertyName: 'type',
        mapping: { bank_account: '#/components/schemas/BankAccountPaymentMethodInput', card: '#/components/schemas/CardPaymentMethodInput' },
      })
      for (const [name, type] of [['BankAccountPaymentMethodInput', 'bank_account'], ['CardPaymentMethodInput', 'card']] as const) {
        const branch = schemas[name] as { readonly required: readonly string[]; readonly additionalProperties: unknown; readonly properties: Record<string, Json> }
        expect([branch.additionalProperties, branch.required.includes('type'), branch.properties['type']?.['enum']], name).to.deep.equal([false, true, [type]])
      }
    })

    it('both are in the partner document, where payments and payment methods are answered', () => {
      expect(partner.components.schemas).to.include.keys('PaymentMethod', 'BankAccountPaymentMethod', 'CardPaymentMethod', 'Payment', 'SucceededPayment', 'ReversedPayment', 'FailedPayment')
    })
  })

  describe('the request examples on a fresh server', () => {
    const seeded = seededProductIds()

    it('the seed read from the migration is the catalogue of a fresh server', () => {
      expect(seeded).to.have.length.greaterThan(0)
      expect(SEEDED_LOAN_PRODUCTS.map((p) => p.id)).to.deep.equal(seeded)
    })

    it('a loan application example is for a product a fresh server seeds, in its currency and within its amounts and terms', () => {
      const example = REQUEST_EXAMPLES.LoanApplicationInput as { readonly product_id: string; readonly amount: number; readonly currency: string; readonly term_months: number }
      expect(seeded).to.include(example.product_id)
      const product = SEEDED_LOAN_PRODUCTS.find((p) => p.id === example.product_id)!
      expect(example.currency).to.equal(product.currency)
      expect(example.amount).to.be.within(product.minAmount, product.maxAmount)
      expect(example.term_months).to.be.within(product.minTermMonths, product.maxTermMonths)
    })

    it('the product an operator updates is a seeded one', () => {
      expect(seeded).to.include(PARAMETER_EXAMPLES['productId'])
    })
  })
})
