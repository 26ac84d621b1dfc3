import { expect } from 'chai'
import { testDatabases } from '@lendgate/adapters/testing'
import { bearer, mintKey, request } from './support/client.js'
import { findLeaks, rememberHeaderSecrets, rememberResponseSecrets, scanTotals } from './support/secret-scan.js'
import { INTERNAL_TOKEN, MINT_SECRET, startTestServer, type TestServer } from './support/test-server.js'

describe('The suite-wide secret scan', () => {
  it('reports every log that contains a remembered secret, by a short prefix only', () => {
    const secret = 'lgk_test_abcdefghijklmnop_0123456789'
    expect(findLeaks(['{"msg":"ok"}', `{"msg":"${secret}"}`, `a ${secret} b ${MINT_SECRET}`], [secret, MINT_SECRET])).to.deep.equal([
      { log: 1, secretPrefix: 'lgk_test…' },
      { log: 2, secretPrefix: 'lgk_test…' },
      { log: 2, secretPrefix: 'test-min…' },
    ])
    expect(findLeaks(['{"authorization":"[redacted]"}'], [secret])).to.deep.equal([])
  })

  it('remembers the secrets of request headers and one-time response fields, not short values', () => {
    const before = scanTotals().secrets
    rememberHeaderSecrets({ Authorization: 'Bearer scan-test-bearer-0123456789', 'X-Api-Key': ' scan-test-x-api-key-0123456789 ', Accept: 'application/json-0123456789' })
    rememberResponseSecrets({ api_key: 'scan-test-api-key-0123456789', webhook_secret: 'whsec_scan-test-0123456789', name: 'not-a-secret-0123456789' })
    rememberHeaderSecrets({ 'X-Api-Key': 'short' })
    expect(scanTotals().secrets - before).to.equal(4)
  })
})

// The scan itself runs after the whole suite (a root hook); here it is checked over one server.
for (const database of testDatabases()) {
  describe(`Secrets in one server's logs on ${database.name}`, () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => {
      await server.stop()
    })

    it('keeps minted keys, the mint secret and the internal token out of the logs, even on refusals', async () => {
      const key = await mintKey(server.url, { scopes: ['partner:api', 'keys:manage'] })
      const forged = `${key.api_key.slice(0, -4)}AAAA`
      await request(server.url, '/public/partner/api-keys', { headers: bearer(key.api_key) })
      await request(server.url, '/public/partner/api-keys', { headers: { 'X-Api-Key': forged } })
      await request(server.url, '/public/partner/api-keys', { method: 'POST', headers: { 'X-Partner-Mint-Key': `${MINT_SECRET}x` }, json: {} })
      await request(server.url, '/internal/onboarding-sessions', { headers: bearer(INTERNAL_TOKEN) })
      await request(server.url, '/internal/onboarding-sessions', { headers: bearer(key.api_key) })
      expect(server.logs.lines().length).to.be.greaterThan(5)
      expect(findLeaks([server.logs.raw()], [key.api_key, forged, MINT_SECRET, `${MINT_SECRET}x`, INTERNAL_TOKEN])).to.deep.equal([])
    })
  })
}
