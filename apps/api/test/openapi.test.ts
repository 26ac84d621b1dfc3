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
import { OPERATION_DOCS } from '../src/openapi/operation-docs.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { buildRouter } from '../src/routes/router.js'
import { bearer, mintKey, request } from './support/client.js'
import { sendRaw } from './support/fuzz-arbitraries.js'
import { INTERNAL_TOKEN, startInMemoryServer, testConfig, type TestServer } from './support/test-server.js'

/**
 * The OpenAPI documents (issues 7 and 39): the partner document served without a key, the
 * operator document behind the internal token; both valid, and together the routes the router
 * serves, each route in one.
 */

type Document = {
  readonly openapi: string
  readonly servers: readonly { readonly url: string }[]
  readonly paths: Record<string, Record<string, { readonly operationId: string; readonly requestBody?: unknown }>>
  readonly components: { readonly schemas: Record<string, object> }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/** `METHOD /path` of each operation, its path under `prefix` (the partner document's are relative to `/public/v1`, or `/public`). */
const routesOf = (document: Document, prefix = ''): string[] =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${prefix}${path}`))

describe('the OpenAPI documents', () => {
  let server: TestServer
  let partner: Document
  let operator: Document
  before(async () => {
    server = await startInMemoryServer()
    const reply = await request(server.url, '/public/openapi.json')
    expect(reply.status).to.equal(200)
    partner = reply.body as Document
    const internal = await request(server.url, '/internal/openapi.json', { headers: bearer(INTERNAL_TOKEN) })
    expect(internal.status).to.equal(200)
    operator = internal.body as Document
  })
  after(async () => server.stop())

  it('serves the partner document without a key, also under /public/v1, as JSON', async () => {
    const v1 = await request(server.url, '/public/v1/openapi.json')
    expect(v1.status).to.equal(200)
    expect(v1.headers.get('content-type')).to.match(/^application\/json/)
    expect(v1.body).to.deep.equal(partner)
  })

  it('serves the operator document only with the internal token: never to a partner key or nobody', async () => {
    expect((await request(server.url, '/internal/openapi.json')).status).to.equal(401)
    const { api_key: key } = await mintKey(server.url)
    const withKey = await request(server.url, '/internal/openapi.json', { headers: bearer(key!) })
    expect(withKey.status).to.equal(401)
    expect(withKey.body).to.include({ error: 'invalid_internal_token' })
  })

  it('keeps the audiences apart: partner routes in one, /internal routes and the probes in the other, each with its own credential', () => {
    // Partner paths are relative to the server's /public/v1: none names a prefix of its own.
    expect(routesOf(partner).filter((route) => / \/(public|internal|health)(\/|$)/.test(route))).to.deep.equal([])
    expect(routesOf(operator).filter((route) => !/ \/(internal|health)(\/|$)/.test(route))).to.deep.equal([])
    expect(Object.keys((partner.components as { securitySchemes?: object }).securitySchemes ?? {}).sort()).to.deep.equal(['bearerApiKey', 'headerApiKey', 'mintKey'])
    expect(Object.keys((operator.components as { securitySchemes?: object }).securitySchemes ?? {})).to.deep.equal(['internalToken', 'operatorSession'])
    expect(JSON.stringify(partner)).to.not.include('/internal/')
  })

  it('names as servers version 1 at the address the request reached, or at the configured public base URL; the same with and without the version segment', async () => {
    expect(partner.servers.map((s) => s.url)).to.deep.equal([`${server.url}/public/v1`, `${server.url}/public`])
    expect(operator.servers.map((s) => s.url)).to.deep.equal([server.url])
    const versioned = await request(server.url, '/public/v1/openapi.json')
    expect(versioned.status).to.equal(200)
    expect(versioned.text).to.equal((await request(server.url, '/public/openapi.json')).text)
    const configured = await startInMemoryServer(undefined, { publicBaseUrl: 'https://api.lendgate.example/lending' })
    try {
      const reply = await request(configured.url, '/public/openapi.json')
      expect((reply.body as Document).servers.map((s) => s.url)).to.deep.equal(['https://api.lendgate.example/lending/public/v1', 'https://api.lendgate.example/lending/public'])
      // Operator routes are not served where partners are: their document keeps the address it was asked at.
      const internal = await request(configured.url, '/internal/openapi.json', { headers: bearer(INTERNAL_TOKEN) })
      expect((internal.body as Document).servers.map((s) => s.url)).to.deep.equal([configured.url])
    } finally {
      await configured.stop()
    }
  })

  it('names no server a Host header could forge: no trusted proxy, no forwarded scheme or host; a host no URL can carry gives paths on this host', async () => {
    const forwarded = await request(server.url, '/public/openapi.json', { headers: { 'X-Forwarded-Proto': 'javascript', 'X-Forwarded-Host': 'evil.example' } })
    expect((forwarded.body as Document).servers.map((s) => s.url)).to.deep.equal([`${server.url}/public/v1`, `${server.url}/public`])
    const odd = await sendRaw(server.url, { method: 'GET', path: '/public/openapi.json', headers: [['Host', 'evil.example/"x']] })
    expect(odd.status).to.equal(200)
    expect((JSON.parse(odd.text) as Document).servers.map((s) => s.url)).to.deep.equal(['/public/v1', '/public'])
  })

  it('serves each address the document it names, however many addresses ask in turn (one serialisation kept per address)', async () => {
    const hosts = Array.from({ length: 12 }, (_, i) => `host-${i}.lendgate.example:${8000 + i}`)
    for (const round of [1, 2]) {
      for (const host of hosts) {
        const reply = await sendRaw(server.url, { method: 'GET', path: '/public/openapi.json', headers: [['Host', host]] })
        expect((JSON.parse(reply.text) as Document).servers.map((s) => s.url), `round ${round}`).to.deep.equal([`http://${host}/public/v1`, `http://${host}/public`])
      }
    }
  })

  it('both pass a standard OpenAPI 3.1 validator', async () => {
    for (const document of [partner, operator]) {
      const validator = new Validator()
      const result = await validator.validate(structuredClone(document) as never)
      expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([])
      expect(result.valid).to.equal(true)
      expect(document.openapi).to.equal('3.1.0')
    }
    // The validator is not vacuous: a document without its info is refused.
    const { info: _info, ...broken } = structuredClone(partner) as Record<string, unknown>
    expect((await new Validator().validate(broken as never)).valid).to.equal(false)
  })

  it('describe together exactly the routes the router serves, each once, with their operationIds', () => {
    const served = buildRouter(server.deps, testConfig(), (deps) => allRoutes(deps, testConfig()))
      .layers()
      .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:([A-Za-z]+)/g, '{$1}')}`))
      .sort()
    expect([...routesOf(partner, '/public'), ...routesOf(operator)].sort()).to.deep.equal(served)
    const ids = [partner, operator].flatMap((document) => Object.values(document.paths).flatMap((item) => Object.values(item).map((o) => o.operationId))).sort()
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

    it('every request body of the documents is a named schema that compiles as JSON Schema 2020-12', () => {
      let bodies = 0
      for (const document of [partner, operator]) {
        for (const item of Object.values(document.paths)) {
          for (const operation of Object.values(item)) {
            const schema = (operation.requestBody as { content?: Record<string, { schema: { $ref: string } }> } | undefined)?.content?.['application/json']?.schema
            if (schema === undefined) continue
            const name = /^#\/components\/schemas\/(\w+)$/.exec(schema.$ref)?.[1]
            expect(name, operation.operationId).to.be.a('string')
            // Compiled with the document's schemas around it: a body of several shapes refers to a named schema per shape.
            const root = { $id: `urn:lendgate:${document === partner ? 'partner' : 'operator'}:${operation.operationId}`, components: { schemas: document.components.schemas }, $ref: schema.$ref }
            expect(document.components.schemas[name!], operation.operationId).to.be.an('object')
            expect(() => ajv.compile(root), operation.operationId).to.not.throw()
            bodies += 1
          }
        }
      }
      expect(bodies).to.be.greaterThan(30)
    })
  })
})
