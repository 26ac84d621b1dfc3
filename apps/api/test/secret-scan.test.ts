import { bankAccountOf, type PaymentMethodId } from '@lendgate/core'
import { tablesHoldingText, testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { bookLoan } from './support/booked-loan.js'
import { onboardBorrower } from './support/borrower.js'
import { bearer, mintKey, request } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
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

/** An account number no other test uses, so finding it anywhere means this test put it there. */
const ACCOUNT_NUMBER = '49172630588214'

for (const database of testDatabases()) {
  describe(`Bank account numbers at rest on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    it('keeps the account number only sealed: in no table as text, no answer, no log, and it opens for its own method only', async () => {
      const borrower = await onboardBorrower(server, receiver)
      const { paths } = await bookLoan(server, borrower)
      const body = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: ACCOUNT_NUMBER }
      const added = await request(server.url, paths.paymentMethods, { method: 'POST', headers: bearer(borrower.key.api_key), json: body })
      expect(added.status, added.text).to.equal(201)
      const listed = await request(server.url, paths.paymentMethods, { headers: bearer(borrower.key.api_key) })
      expect(added.text + listed.text).to.not.include(ACCOUNT_NUMBER)
      expect(added.body).to.include({ last4: '8214' })
      expect(findLeaks([server.logs.raw()], [ACCOUNT_NUMBER])).to.deep.equal([])

      // Every row of every table of both worlds, as text.
      const { db } = await database.open()
      expect(await tablesHoldingText(db, ACCOUNT_NUMBER)).to.deep.equal([])
      expect(await tablesHoldingText(db, added.body.payment_method_id as string)).to.include.members(['public.payment_methods', 'public.bank_account_secrets'])

      const methodId = added.body.payment_method_id as PaymentMethodId
      const open = bankAccountOf({ paymentMethods: server.deps.paymentMethods, accountSeal: server.deps.accountSeal! })
      expect(await open(methodId)()).to.deep.equal(E.right(O.some({ routingNumber: '011000015', accountNumber: ACCOUNT_NUMBER })))
      // Its sealed value copied onto another method opens to nothing.
      const other = await request(server.url, paths.paymentMethods, { method: 'POST', headers: bearer(borrower.key.api_key), json: { ...body, account_number: '000123456789' } })
      expect(other.status, other.text).to.equal(201)
      const sealed = await server.deps.paymentMethods.sealedAccount(methodId)()
      if (E.isLeft(sealed) || O.isNone(sealed.right)) throw new Error('no sealed numbers stored')
      expect(server.deps.accountSeal!.open(other.body.payment_method_id as PaymentMethodId, sealed.right.value)).to.deep.equal(O.none)
    })
  })
}
