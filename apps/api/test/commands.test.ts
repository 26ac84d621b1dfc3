import { expect } from 'chai'
import { bearer, mintKey, request } from './support/client.js'
import { startInMemoryServer, type TestServer } from './support/test-server.js'

const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

/**
 * The command a route hands its use case (decision 77): path parameters, query parameters and
 * body fields in one object, none of them allowed to say what another already says.
 */
describe('HTTP commands', () => {
  let server: TestServer
  let headers: Record<string, string>
  let sessionId: string
  before(async () => {
    server = await startInMemoryServer()
    headers = bearer((await mintKey(server.url)).api_key)
    const created = await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers, json: SESSION_INPUT })
    sessionId = (created.body as { session_id: string }).session_id
  })
  after(async () => server.stop())

  it('refuses a body field named like a path parameter, naming it, and changes nothing', async () => {
    const other = '00000000-0000-4000-8000-000000000001'
    const reply = await request(server.url, `/public/onboarding-sessions/${sessionId}/documents`, {
      method: 'POST',
      headers,
      json: { sessionId: other, document_type: 'certificate_of_incorporation', file_name: 'c.pdf', content_type: 'application/pdf', size_bytes: 10 },
    })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.include({ error: 'invalid_request', param: 'sessionId' })
    const listed = await request(server.url, `/public/onboarding-sessions/${sessionId}/documents`, { headers })
    expect(listed.body).to.deep.equal({ data: [], next_cursor: null })
  })

  it('refuses a query parameter a write does not take, naming it', async () => {
    const reply = await request(server.url, `/public/onboarding-sessions?dry_run=true`, { method: 'POST', headers, json: SESSION_INPUT })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'dry_run is not a known field', param: 'dry_run' })
  })

  it('refuses a field given both in the query and in the body', async () => {
    const reply = await request(server.url, `/public/onboarding-sessions?locale=en-GB`, { method: 'POST', headers, json: SESSION_INPUT })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.include({ error: 'invalid_request', param: 'locale' })
  })

  it('refuses a body field named like the Idempotency-Key a payment takes from its header', async () => {
    // The key is the header's alone: a body cannot pass one, or override it.
    const reply = await request(server.url, `/public/onboarding-sessions`, { method: 'POST', headers, json: { ...SESSION_INPUT, idempotency_key: 'k' } })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'idempotency_key is not a known field', param: 'idempotency_key' })
  })
})
