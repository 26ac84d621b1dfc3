import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { startTestServer, type TestServer } from './support/test-server.js'

const ALLOWED_ORIGIN = 'https://app.example.com'

/** A comma-separated header as lower-case names. */
const namesIn = (header: string | null): string[] => (header ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '')

const preflight = (url: string, origin: string, requestHeaders = 'authorization,content-type,idempotency-key'): Promise<Reply> =>
  request(url, '/public/onboarding-sessions', {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': requestHeaders },
  })

for (const database of testDatabases()) {
  describe(`CORS on ${database.name}`, () => {
    describe('with CORS_ORIGINS set to https://app.example.com', () => {
      let server: TestServer
      before(async () => {
        server = await startTestServer(database, { corsOrigins: [ALLOWED_ORIGIN] })
      })
      after(async () => server.stop())

      it('answers a preflight from the allowed origin with 204 and the CORS grant, without a key', async () => {
        const reply = await preflight(server.url, ALLOWED_ORIGIN)
        expect(reply.status).to.equal(204)
        expect(reply.headers.get('access-control-allow-origin')).to.equal(ALLOWED_ORIGIN)
        expect(namesIn(reply.headers.get('access-control-allow-headers'))).to.include.members(['authorization', 'content-type', 'idempotency-key'])
        expect(namesIn(reply.headers.get('access-control-allow-methods'))).to.include('post')
        expect(namesIn(reply.headers.get('vary'))).to.include('origin')
        expect(reply.text).to.equal('')
      })

      it('gives a preflight from another origin no access-control-allow-origin', async () => {
        const reply = await preflight(server.url, 'https://evil.example')
        expect(reply.headers.get('access-control-allow-origin')).to.equal(null)
        expect(reply.headers.get('access-control-allow-headers')).to.equal(null)
      })

      it('marks an actual request from the allowed origin and exposes X-Request-Id', async () => {
        const key = await mintKey(server.url)
        const reply = await request(server.url, '/public/partner/api-keys', { headers: { ...bearer(key.api_key), Origin: ALLOWED_ORIGIN } })
        expect(reply.status).to.equal(200)
        expect(reply.headers.get('access-control-allow-origin')).to.equal(ALLOWED_ORIGIN)
        expect(namesIn(reply.headers.get('access-control-expose-headers'))).to.include('x-request-id')
      })

      it('marks an error response for the allowed origin too, so the browser can read it', async () => {
        const reply = await request(server.url, '/public/partner/api-keys', { headers: { Origin: ALLOWED_ORIGIN } })
        expect(reply.status).to.equal(401)
        expect(reply.headers.get('access-control-allow-origin')).to.equal(ALLOWED_ORIGIN)
        expect(namesIn(reply.headers.get('access-control-expose-headers'))).to.include('x-request-id')
      })

      it('does not mark an actual request from another origin', async () => {
        const reply = await request(server.url, '/health', { headers: { Origin: 'https://evil.example' } })
        expect(reply.status).to.equal(200)
        expect(reply.headers.get('access-control-allow-origin')).to.equal(null)
      })

      it('does not grant X-Partner-Mint-Key to a browser', async () => {
        const reply = await request(server.url, '/public/partner/api-keys', {
          method: 'OPTIONS',
          headers: { Origin: ALLOWED_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-partner-mint-key' },
        })
        expect(namesIn(reply.headers.get('access-control-allow-headers'))).not.to.include('x-partner-mint-key')
      })
    })

    describe('with no CORS_ORIGINS', () => {
      let server: TestServer
      before(async () => {
        server = await startTestServer(database)
      })
      after(async () => server.stop())

      it('grants no origin', async () => {
        const reply = await preflight(server.url, ALLOWED_ORIGIN)
        expect(reply.headers.get('access-control-allow-origin')).to.equal(null)
      })
    })
  })
}
