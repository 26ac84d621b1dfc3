import { expect } from 'chai'
import { deprecationHeaders } from '../src/http/deprecation.js'
import { OPERATIONS, type Deprecation } from '../src/routes/operations.js'
import { mintKey } from './support/client.js'
import { startInMemoryServer, type TestServer } from './support/test-server.js'

/**
 * The versioning rules (decision 134, the partner Versioning guide): `/public/v1` and `/public`
 * serve the same routes, and a route announced for removal says so on every answer with
 * `Deprecation` (RFC 9745) and `Sunset` (RFC 8594), and in the OpenAPI document.
 */

type Json = Record<string, unknown>
type OperationObject = { readonly deprecated?: boolean; readonly description: string; readonly responses: Record<string, { readonly headers?: Json }> }

const DEPRECATION: Deprecation = { since: '2026-12-01', sunset: '2027-12-01', link: 'https://lendgate.example/docs/changelog#events' }

describe('API versions and deprecation (issue 58)', () => {
  let server: TestServer
  before(async () => {
    // The event list announced for removal, as a later change would mark it in the route table.
    const operations = OPERATIONS.map((op) => (op.operationId === 'listEvents' ? { ...op, deprecated: DEPRECATION } : op))
    server = await startInMemoryServer(undefined, {}, { operations })
  })
  after(() => server?.stop())

  it('formats the headers as the RFCs say: a structured date, an HTTP date, a deprecation link', () => {
    expect(deprecationHeaders(DEPRECATION)).to.deep.equal({
      Deprecation: '@1796083200',
      Sunset: 'Wed, 01 Dec 2027 00:00:00 GMT',
      Link: '<https://lendgate.example/docs/changelog#events>; rel="deprecation"; type="text/html"',
    })
  })

  it('sends Deprecation, Sunset and Link on every answer of a deprecated route, a refusal included, under either prefix', async () => {
    const key = (await mintKey(server.url)).api_key
    for (const path of ['/public/events', '/public/v1/events']) {
      const answered = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${key}` } })
      expect(answered.status, path).to.equal(200)
      const refused = await fetch(`${server.url}${path}`)
      expect(refused.status, path).to.equal(401)
      for (const reply of [answered, refused]) {
        expect([reply.headers.get('deprecation'), reply.headers.get('sunset'), reply.headers.get('link')], path).to.deep.equal([
          '@1796083200',
          'Wed, 01 Dec 2027 00:00:00 GMT',
          '<https://lendgate.example/docs/changelog#events>; rel="deprecation"; type="text/html"',
        ])
      }
    }
  })

  it('sends none of them on a route that is not deprecated', async () => {
    const key = (await mintKey(server.url)).api_key
    const reply = await fetch(`${server.url}/public/v1/partner/api-keys`, { headers: { Authorization: `Bearer ${key}` } })
    expect(reply.status).to.equal(200)
    expect([reply.headers.get('deprecation'), reply.headers.get('sunset'), reply.headers.get('link')]).to.deep.equal([null, null, null])
  })

  it('marks the deprecated operation in the served document, with its headers on each answer and its dates in its description', async () => {
    const document = (await (await fetch(`${server.url}/public/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, OperationObject>> }
    const events = document.paths['/events']!['get']!
    expect(events.deprecated).to.equal(true)
    expect(events.description).to.match(/^\*\*Deprecated\*\* since 2026-12-01: it may stop answering after 2027-12-01\./)
    for (const [status, response] of Object.entries(events.responses)) {
      expect(Object.keys(response.headers ?? {}), status).to.include.members(['Deprecation', 'Sunset', 'Link'])
    }
    const keys = document.paths['/partner/api-keys']!['get']!
    expect(keys.deprecated).to.equal(undefined)
    expect(Object.keys(keys.responses['200']!.headers ?? {})).to.not.include('Deprecation')
  })
})
