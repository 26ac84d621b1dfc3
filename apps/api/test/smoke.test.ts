import { expect } from 'chai'
import { testDatabases } from '@lendgate/adapters/testing'
import { bearer, mintKey, request } from './support/client.js'
import { startTestServer, type TestServer } from './support/test-server.js'

for (const database of testDatabases()) {
  describe(`API smoke on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())

    it('mints a key, creates a session with it and reads the session back', async () => {
      const key = await mintKey(server.url)
      const created = await request(server.url, '/public/onboarding-sessions', {
        method: 'POST',
        headers: bearer(key.api_key),
        json: { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' },
      })
      expect(created.status).to.equal(201)
      const read = await request(server.url, `/public/onboarding-sessions/${created.body.session_id}`, { headers: bearer(key.api_key) })
      expect(read.status).to.equal(200)
      expect(read.body).to.deep.equal(created.body)
    })
  })
}
