import { Validator } from '@seriousme/openapi-schema-validator'
import {
  AddressInput,
  AddressPatch,
  CreateOnboardingSessionInput,
  decode,
  jsonSchemaOf,
  LoanApplicationInput,
  LoanProductInput,
  MintApiKeyInput,
  PaymentMethodInput,
} from '@lendgate/core'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { allRoutes } from '../src/app.js'
import { OPERATION_DOCS } from '../src/openapi/document.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { buildRouter } from '../src/routes/router.js'
import { request } from './support/client.js'
import { startInMemoryServer, testConfig, type TestServer } from './support/test-server.js'

/** The OpenAPI document (issue 7): served without a key, valid, and the same routes as the router. */

type Document = {
  readonly openapi: string
  readonly paths: Record<string, Record<string, { readonly operationId: string; readonly requestBody?: unknown }>>
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

describe('the OpenAPI document', () => {
  let server: TestServer
  let document: Document
  before(async () => {
    server = await startInMemoryServer()
    const reply = await request(server.url, '/public/openapi.json')
    expect(reply.status).to.equal(200)
    document = reply.body as Document
  })
  after(async () => server.stop())

  it('is served without a key, also under /public/v1, as JSON', async () => {
    const v1 = await request(server.url, '/public/v1/openapi.json')
    expect(v1.status).to.equal(200)
    expect(v1.headers.get('content-type')).to.match(/^application\/json/)
    expect(v1.body).to.deep.equal(document)
  })

  it('passes a standard OpenAPI 3.1 validator', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document) as never)
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([])
    expect(result.valid).to.equal(true)
    expect(document.openapi).to.equal('3.1.0')
    // The validator is not vacuous: a document without its info is refused.
    const { info: _info, ...broken } = structuredClone(document) as Record<string, unknown>
    expect((await new Validator().validate(broken as never)).valid).to.equal(false)
  })

  it('describes exactly the routes the router serves, with their operationIds', () => {
    const served = buildRouter(server.deps, testConfig(), allRoutes(server.deps))
      .layers()
      .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:([A-Za-z]+)/g, '{$1}')}`))
      .sort()
    const described = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort()
    expect(described).to.deep.equal(served)
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((o) => o.operationId)).sort()
    expect(ids).to.deep.equal(OPERATIONS.map((op) => op.operationId).sort())
    expect(Object.keys(OPERATION_DOCS).sort()).to.deep.equal(OPERATIONS.map((op) => op.operationId).sort())
  })

  describe('request schemas come from the codecs that validate the requests', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats.default(ajv)

    /** Bodies the API accepts must pass the schema; structurally wrong ones must fail both. */
    const cases: readonly { readonly codec: t.Mixed; readonly valid: readonly unknown[]; readonly invalid: readonly unknown[] }[] = [
      {
        codec: LoanApplicationInput,
        valid: [
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1_200_000, currency: 'USD', term_months: 12 },
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1, currency: 'EUR', term_months: 480, purpose: 'stock', party_id: null },
        ],
        invalid: [
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: '1200000', currency: 'USD', term_months: 12 },
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1.5, currency: 'USD', term_months: 12 },
          { product_id: 'nope', amount: 1, currency: 'USD', term_months: 12 },
          { amount: 1, currency: 'USD', term_months: 12 },
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1, currency: 'usd', term_months: 12 },
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1, currency: 'USD', term_months: 481 },
          { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1, currency: 'USD', term_months: 12, amout: 2 },
        ],
      },
      {
        codec: AddressInput,
        valid: [
          { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US', region: null },
          { line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' },
        ],
        invalid: [
          { type: 'home', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' },
          { type: 'registered', line1: '', city: 'Springfield', postal_code: '62701', country: 'US' },
          { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'us' },
          [],
        ],
      },
      {
        codec: AddressPatch,
        valid: [{ line2: null }, { city: 'Shelbyville', region: null }, { type: 'mailing' }],
        invalid: [{}, { city: null }, { type: null }, { line3: 'x' }, { line2: '' }],
      },
      {
        codec: PaymentMethodInput,
        valid: [
          { type: 'bank_account', account_holder_name: 'Acme', routing_number: '011000015', account_number: '000123456789' },
          { type: 'card', card_token: 'tok_visa_123', last4: '4242', exp_month: 12, exp_year: 2030, brand: 'visa' },
        ],
        invalid: [
          { type: 'cash' },
          { type: 'card', card_token: 'tok_visa_123', last4: '42', exp_month: 12, exp_year: 2030 },
          { type: 'bank_account', account_holder_name: 'Acme', routing_number: '11000015', account_number: '000123456789' },
          { type: 'bank_account', account_holder_name: 'Acme', routing_number: '011000015', account_number: '12' },
        ],
      },
      {
        codec: LoanProductInput,
        valid: [{ name: 'Term', currency: 'USD', min_amount: 1, max_amount: 2, min_term_months: 1, max_term_months: 12, interest_rate_bps: 0, active: false }],
        invalid: [
          { name: 'Term', currency: 'USD', min_amount: 0, max_amount: 2, min_term_months: 1, max_term_months: 12, interest_rate_bps: 0 },
          { name: 'Term', currency: 'USD', min_amount: 1, max_amount: 2, min_term_months: 1, max_term_months: 12, interest_rate_bps: 10_001 },
          { name: 'Term', currency: 'USD', min_amount: 1, max_amount: 2, min_term_months: 1, max_term_months: 12, interest_rate_bps: 0, active: 'yes' },
        ],
      },
      {
        codec: MintApiKeyInput,
        valid: [{ party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b' }, { party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b', scopes: ['partner:api'] }],
        invalid: [{}, { party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b', scopes: [] }, { party_id: 7 }],
      },
      {
        codec: CreateOnboardingSessionInput,
        valid: [{ country_of_incorporation: 'US', locale: 'en-US' }],
        invalid: [{ locale: 'en-US' }, { country_of_incorporation: 'US', locale: 'english' }, { country_of_incorporation: 'US', locale: 'en-US', local: 'x' }],
      },
    ]

    for (const { codec, valid, invalid } of cases) {
      it(`${codec.name}: the schema compiles, takes what the codec takes and refuses what it refuses`, () => {
        const validate = ajv.compile(jsonSchemaOf(codec))
        for (const body of valid) {
          expect(E.isRight(decode(codec)(body)), `codec takes ${JSON.stringify(body)}`).to.equal(true)
          expect(validate(body), `schema takes ${JSON.stringify(body)}: ${JSON.stringify(validate.errors)}`).to.equal(true)
        }
        for (const body of invalid) {
          expect(E.isLeft(decode(codec)(body)), `codec refuses ${JSON.stringify(body)}`).to.equal(true)
          expect(validate(body), `schema refuses ${JSON.stringify(body)}`).to.equal(false)
        }
      })
    }

    it('every request body of the document compiles as JSON Schema 2020-12', () => {
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item)) {
          const schema = (operation.requestBody as { content?: Record<string, { schema: object }> } | undefined)?.content?.['application/json']?.schema
          if (schema !== undefined) expect(() => ajv.compile(schema), operation.operationId).to.not.throw()
        }
      }
    })
  })
})
