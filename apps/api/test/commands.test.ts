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

  it('refuses a query parameter on a write, even one naming a body field: fields do not belong in URLs', async () => {
    const reply = await request(server.url, `/public/onboarding-sessions?locale=en-GB`, { method: 'POST', headers, json: SESSION_INPUT })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'locale is not a known field', param: 'locale' })
  })

  it('refuses idempotency_key in the body of an operation whose command has none', async () => {
    // Only a payment's command has one, and it comes from the Idempotency-Key header alone.
    const reply = await request(server.url, `/public/onboarding-sessions`, { method: 'POST', headers, json: { ...SESSION_INPUT, idempotency_key: 'k' } })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'idempotency_key is not a known field', param: 'idempotency_key' })
  })

  it('takes the same Idempotency-Key with another query string for another request (422), never replaying the refusal', async () => {
    const keyed = { ...headers, 'Idempotency-Key': 'commands-query-retry' }
    const refused = await request(server.url, `/public/onboarding-sessions?locale=en-GB`, { method: 'POST', headers: keyed, json: SESSION_INPUT })
    expect(refused.status).to.equal(400)
    const retried = await request(server.url, `/public/onboarding-sessions`, { method: 'POST', headers: keyed, json: SESSION_INPUT })
    expect(retried.status).to.equal(422)
    expect(retried.body).to.deep.include({ error: 'idempotency_key_reused' })
  })

  it('refuses a __proto__ query parameter by name, like any field it does not know', async () => {
    const reply = await request(server.url, `/public/onboarding-sessions/${sessionId}/addresses?__proto__=x`, { headers })
    expect(reply.status).to.equal(400)
    expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: '__proto__ is not a known field', param: '__proto__' })
  })
})
