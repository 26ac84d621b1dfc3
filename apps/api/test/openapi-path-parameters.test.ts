import { randomUUID } from 'node:crypto'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { expect } from 'chai'
import fc from 'fast-check'
import { bothDocuments } from './support/openapi-documents.js'
import { OPERATIONS, type Operation } from '../src/routes/operations.js'
import { testDatabases } from '@lendgate/adapters/testing'
import { bookLoan, WORKING_CAPITAL } from './support/booked-loan.js'
import { onboardBorrower, type Borrower, type CodeReceiver } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, testConfig, type TestServer } from './support/test-server.js'

/**
 * Issue 33: every path parameter the OpenAPI document declares takes the values the route's own
 * codec takes, and only those. For each operation and each of its path parameters, values drawn
 * from the declared schema are sent to the running server and must never be refused as a bad
 * parameter, and a value the schema refuses must be refused naming the parameter. A parameter
 * declared `format: uuid` while its route decodes `evt_…` fails the first half; one declared
 * looser than its codec fails the second.
 */

type ParameterObject = { readonly name: string; readonly in: string; readonly schema: Record<string, unknown> }
type OperationObject = { readonly operationId: string; readonly parameters?: readonly ParameterObject[] }

const document = bothDocuments().combined as { paths: Record<string, Record<string, OperationObject>> }
const ajv = new Ajv2020({ strict: false })
addFormats.default(ajv)

const operationObject = (op: Operation): OperationObject => {
  const found = document.paths[op.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[op.method.toLowerCase()]
  if (found === undefined) throw new Error(`${op.operationId} is not in the document`)
  return found
}

const pathParametersOf = (op: Operation): readonly ParameterObject[] => (operationObject(op).parameters ?? []).filter((p) => p.in === 'path')

/** Values the declared schema takes, drawn from the schema itself. */
const drawnFrom = (schema: Record<string, unknown>): fc.Arbitrary<string> => {
  if (schema['format'] === 'uuid') return fc.uuid()
  if (typeof schema['pattern'] === 'string') return fc.stringMatching(new RegExp(schema['pattern']))
  throw new Error(`no way to draw values of ${JSON.stringify(schema)}`)
}

/** Values every identifier schema refuses (checked against the schema below). */
const MALFORMED = ['not-an-id', 'evt_xyz', '0b6a3f2e8f5c4d8e9a371c2d3e4f5a6b']

const withParameters = (op: Operation, values: Readonly<Record<string, string>>): string =>
  op.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => encodeURIComponent(values[name]!))

/**
 * Bodies the routes that check their body before their path take, so that the path is reached
 * (every other JSON route here checks its path first, and is sent `{}`).
 */
const VALID_BODIES: Readonly<Record<string, (ids: Readonly<Record<string, string>>) => unknown>> = {
  createPaymentMethodForPartyLoan: () => ({ type: 'bank_account', account_holder_name: 'Acme', routing_number: '011000015', account_number: '000123456789' }),
  createPaymentIntentForPartyLoan: (ids) => ({ amount: 100, currency: 'USD', payment_method_id: ids['paymentMethodId'] }),
  advanceTestClock: () => ({ frozen_time: '2030-01-01T00:00:00Z' }),
  updateWebhookEndpoint: () => ({ description: 'checking the path' }),
  recoverWebhookEvents: () => ({ since: '2026-01-01T00:00:00Z' }),
  rejectOnboardingSession: () => ({ reason: 'checking the path' }),
  declineLoanApplication: () => ({ reason: 'checking the path' }),
  addLoanCollateral: () => ({ type: 'equipment', description: 'a press', valuation: 100, currency: 'USD' }),
  attachLoanDocument: () => ({ type: 'notice', storage_ref: 's3://docs/notice.pdf' }),
  rejectOperatorRequest: () => ({ reason: 'checking the path' }),
}

describe('OpenAPI path parameters agree with the codecs the routes decode them with', () => {
  let server: TestServer
  let receiver: CodeReceiver
  let borrower: Borrower
  /** A real id for every path parameter: each route is reached with its enclosing resources present. */
  let ids: Record<string, string>
  /** Test-world keys of the borrower's two clients, for the test helpers (their path is decoded before anything is looked up). */
  let inTest: { readonly partner: string; readonly borrower: string }
  const withParams = OPERATIONS.filter((op) => op.path.includes(':'))

  before(async () => {
    receiver = await startCodeReceiver()
    const base = testConfig().rateLimits
    server = await startTestServer(testDatabases()[0]!, {
      verificationDeliveryUrl: receiver.url,
      rateLimits: { ...base, requests: 100_000, verificationRequests: 100_000 },
    })
    borrower = await onboardBorrower(server, receiver)
    const loan = await bookLoan(server, borrower)
    const asBorrower = async (path: string, json: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
      const reply = await request(server.url, path, { method: 'POST', headers: { ...bearer(borrower.key.api_key), ...headers }, json })
      expect(reply.status, reply.text).to.equal(201)
      return reply
    }
    const method = await asBorrower(loan.paths.paymentMethods, VALID_BODIES['createPaymentMethodForPartyLoan']!({}))
    const paymentMethodId = method.body.payment_method_id as string
    const payment = await asBorrower(loan.paths.payments, { amount: 100, currency: 'USD', payment_method_id: paymentMethodId }, { 'Idempotency-Key': randomUUID() })
    const address = await asBorrower(`/public/parties/${borrower.partyId}/addresses`, { line1: '2 Side St', city: 'Springfield', postal_code: '62701', country: 'US' })
    const events = await request(server.url, `/public/onboarding-sessions/${borrower.sessionId}/webhook/deliveries`, { headers: bearer(borrower.partnerKey.api_key) })
    // An IP address literal: a public host without a DNS lookup.
    const endpoint = await asBorrower('/public/webhook-endpoints', { url: 'https://93.184.216.34/hooks', enabled_events: ['*'] })
    const testKey = async (key: MintedKey): Promise<string> => (await mintKey(server.url, { party_id: key.party_id, client_name: key.client_name, environment: 'test' })).api_key
    inTest = { partner: await testKey(borrower.partnerKey), borrower: await testKey(borrower.key) }
    ids = {
      apiKeyId: borrower.key.api_key_id,
      sessionId: borrower.sessionId,
      addressId: address.body.address_id,
      eventId: events.body.data[0].event_id,
      partyId: borrower.partyId,
      applicationId: loan.applicationId,
      loanId: loan.loanId,
      paymentMethodId,
      paymentId: payment.body.payment_id,
      productId: WORKING_CAPITAL,
      // The borrower's party is a live one: it has no clock, and the path is decoded before the lookup.
      clockId: randomUUID(),
      endpointId: endpoint.body.webhook_endpoint_id,
      // This server has no ACH rails: the path is decoded before they are asked (409).
      inboundFileId: randomUUID(),
      // None is asked: the path is decoded before the request is looked up (404), and the token may not decide (403).
      operatorRequestId: randomUUID(),
    }
  })
  after(async () => {
    await server.stop()
    await receiver.close()
  })

  const keyFor = (op: Operation): string =>
    op.auth === 'internal'
      ? INTERNAL_TOKEN
      : op.testOnly === true
        ? op.path.includes('/onboarding-sessions/') ? inTest.partner : inTest.borrower
        : op.path.startsWith('/public/onboarding-sessions') ? borrower.partnerKey.api_key : borrower.key.api_key

  const send = (op: Operation, values: Readonly<Record<string, string>>): Promise<Reply> =>
    request(server.url, withParameters(op, values), {
      method: op.method,
      headers: { ...bearer(keyFor(op)), ...(op.method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {}) },
      ...(op.jsonBody ? { json: VALID_BODIES[op.operationId]?.(ids) ?? {} } : {}),
    })

  it('has a real id for every path parameter, and covers every path parameter of the route table', () => {
    const names = new Set(withParams.flatMap((op) => pathParametersOf(op).map((p) => p.name)))
    for (const name of names) expect(ids[name], name).to.be.a('string')
    const declared = withParams.flatMap((op) => pathParametersOf(op).map((p) => `${op.operationId}.${p.name}`))
    const inRoutes = withParams.flatMap((op) => [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => `${op.operationId}.${m[1]}`))
    expect(declared.sort()).to.deep.equal(inRoutes.sort())
    expect(declared.length).to.be.above(60)
  })

  for (const op of withParams) {
    it(`${op.operationId}: takes every value its schema takes, and refuses naming the parameter one it refuses`, async () => {
      for (const parameter of pathParametersOf(op)) {
        const schema = ajv.compile(parameter.schema)
        // The party of a party path must be the key's own (party_mismatch otherwise, whatever its form).
        const expectedRefusal = parameter.name === 'partyId' ? [403, 'party_mismatch', undefined] : [400, 'invalid_request', parameter.name]
        await fc.assert(
          fc.asyncProperty(drawnFrom(parameter.schema), async (value) => {
            expect(schema(value), `the schema takes its own draw ${value}`).to.equal(true)
            const reply = await send(op, { ...ids, [parameter.name]: value })
            const seen = [reply.status, reply.body?.error, reply.body?.param]
            expect(seen, `${op.operationId} ${parameter.name}=${value}: ${reply.text}`).not.to.deep.equal([400, 'invalid_request', parameter.name])
            expect(reply.status, reply.text).to.be.below(500)
          }),
          { numRuns: 5 },
        )
        for (const value of MALFORMED) {
          expect(schema(value), `the schema of ${parameter.name} refuses ${value}`).to.equal(false)
          const reply = await send(op, { ...ids, [parameter.name]: value })
          expect([reply.status, reply.body.error, reply.body.param], `${op.operationId} ${parameter.name}=${value}: ${reply.text}`).to.deep.equal(expectedRefusal)
        }
      }
    })
  }
})
