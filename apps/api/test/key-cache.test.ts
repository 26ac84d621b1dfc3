import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bearer, mintKey, request } from './support/client.js'
import { startTestServer, type TestServer } from './support/test-server.js'

/**
 * Keys are cached in each instance (issue 8), yet a key revoked on one instance is refused by
 * another within a second: the revocation is announced with PostgreSQL NOTIFY in the same
 * transaction, and every instance LISTENs.
 */
for (const database of testDatabases()) {
  describe(`The key cache across two instances on ${database.name}`, () => {
    let a: TestServer
    let b: TestServer
    before(async () => {
      a = await startTestServer(database)
      b = await startTestServer(database)
    })
    after(async () => {
      await a.stop()
      await b.stop()
    })

    it('refuses on one instance, within a second, a key revoked on the other', async () => {
      const key = await mintKey(a.url)
      const path = '/public/partner/api-keys'
      // Both instances have now read, and cached, the key.
      expect((await request(a.url, path, { headers: bearer(key.api_key) })).status).to.equal(200)
      expect((await request(b.url, path, { headers: bearer(key.api_key) })).status).to.equal(200)
      expect((await request(b.url, path, { headers: bearer(key.api_key) })).status).to.equal(200)

      const revoked = await request(a.url, `${path}/${key.api_key_id}`, { method: 'DELETE', headers: bearer(key.api_key) })
      expect(revoked.status).to.equal(200)
      expect((await request(a.url, path, { headers: bearer(key.api_key) })).status, 'the revoking instance, at once').to.equal(401)

      const deadline = Date.now() + 1_000
      let status = 0
      while (Date.now() < deadline) {
        status = (await request(b.url, path, { headers: bearer(key.api_key) })).status
        if (status === 401) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(status, 'the other instance, within a second').to.equal(401)
    })

    it('serves a key minted on one instance from the other at once', async () => {
      const key = await mintKey(a.url)
      expect((await request(b.url, '/public/partner/api-keys', { headers: bearer(key.api_key) })).status).to.equal(200)
    })
  })
}
