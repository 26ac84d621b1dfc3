import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bookLoan, loanPaths, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { expectInvalid, expectInvalidState } from './support/expectations.js'
import { achSettings } from './support/ach-settings.js'
import { operatorHeaders, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const PARTY_MISMATCH = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }
const NO_SUCH_LOAN = { error: 'not_found', detail: 'No such loan.' }
const LACKS_PARTNER_API = { error: 'insufficient_scope', detail: 'This API key lacks the scope partner:api.', scope: 'partner:api' }

/** The autopay of a loan's (docs/ach.md "Scheduled (autopay) debits"), as getLoanAutopayForParty and setLoanAutopayForParty answer it. */
const autopayPath = (partyId: string, loanId: string): string => `${loanPaths(partyId, loanId).loan}/autopay`

for (const database of testDatabases()) {
  describe(`loan autopay over HTTP on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower
    /** Another borrower, whose loan must stay out of reach of `borrower`'s key. */
    let other: Borrower
    let theirs: BookedLoan

    const call = (method: string, path: string, json?: unknown, k: MintedKey = borrower.key): Promise<Reply> =>
      request(server.url, path, { method, headers: bearer(k.api_key), ...(json === undefined ? {} : { json }) })
    /** The loan's autopay as `k` reads it, which must answer 200. */
    const autopayOf = async (path: string, k: MintedKey = borrower.key): Promise<Record<string, unknown>> => {
      const reply = await call('GET', path, undefined, k)
      expect(reply.status, `GET ${path}: ${reply.text}`).to.equal(200)
      return reply.body
    }
    const off = (loanId: string) => ({ loan_id: loanId, enabled: false, enabled_at: null, livemode: true })
    /** A new loan of `borrower`'s, and the path of its autopay. */
    const newLoan = async (): Promise<{ readonly loan: BookedLoan; readonly path: string }> => {
      const loan = await bookLoan(server, borrower)
      return { loan, path: autopayPath(borrower.partyId, loan.loanId) }
    }

    let outbox: string
    before(async () => {
      receiver = await startCodeReceiver()
      // The live world's ACH rails take autopay debits: without them, autopay cannot be turned on (the last test).
      outbox = mkdtempSync(join(tmpdir(), 'lendgate-autopay-'))
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url, ach: achSettings(join(outbox, 'outbox')) })
      borrower = await onboardBorrower(server, receiver)
      other = await onboardBorrower(server, receiver)
      theirs = await bookLoan(server, other)
    })
    after(async () => {
      await server.stop()
      await receiver.close()
      rmSync(outbox, { recursive: true, force: true })
    })

    describe('turning it on and off', () => {
      let loan: BookedLoan
      let path: string
      let on: Record<string, unknown>
      before(async () => {
        ;({ loan, path } = await newLoan())
      })

      it('getLoanAutopayForParty answers off for a loan whose autopay was never turned on (200)', async () => {
        const reply = await call('GET', path)
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.headers.get('content-type')).to.match(/^application\/json/)
        expect(reply.body).to.deep.equal(off(loan.loanId))
      })

      it('setLoanAutopayForParty turns it on (200, enabled_at now), and getLoanAutopayForParty then answers the same', async () => {
        const before = Date.now()
        const reply = await call('PUT', path, { enabled: true })
        const after = Date.now()
        expect(reply.status, reply.text).to.equal(200)
        on = reply.body
        expect(on).to.deep.equal({ loan_id: loan.loanId, enabled: true, enabled_at: on['enabled_at'], livemode: true })
        expect(on['enabled_at']).to.match(ISO_MS)
        expect(Date.parse(on['enabled_at'] as string)).to.be.within(before, after)
        expect(await autopayOf(path)).to.deep.equal(on)
      })

      it('turning it on again keeps it as it was: the same enabled_at', async () => {
        expect(on['enabled'], 'turned on by the test before').to.equal(true)
        const again = await call('PUT', path, { enabled: true })
        expect(again.status, again.text).to.equal(200)
        expect(again.body).to.deep.equal(on)
        expect(await autopayOf(path)).to.deep.equal(on)
      })

      it('turns it off (200, enabled_at null), and turning it off again answers off', async () => {
        const reply = await call('PUT', path, { enabled: false })
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body).to.deep.equal(off(loan.loanId))
        expect(await autopayOf(path)).to.deep.equal(off(loan.loanId))
        const again = await call('PUT', path, { enabled: false })
        expect(again.status, again.text).to.equal(200)
        expect(again.body).to.deep.equal(off(loan.loanId))
        expect(await autopayOf(path)).to.deep.equal(off(loan.loanId))
      })

      it('turned on again after it was off, it is on from then (a new enabled_at)', async () => {
        const reply = await call('PUT', path, { enabled: true })
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body).to.deep.include({ loan_id: loan.loanId, enabled: true })
        expect(Date.parse(reply.body.enabled_at as string)).to.be.at.least(Date.parse(on['enabled_at'] as string))
        expect(await autopayOf(path)).to.deep.equal(reply.body)
      })

      it("is the loan's own: another loan of the party stays off", async () => {
        const { loan: sibling, path: siblingPath } = await newLoan()
        expect(await autopayOf(siblingPath)).to.deep.equal(off(sibling.loanId))
        expect((await autopayOf(path))['enabled']).to.equal(true)
      })
    })

    describe('refusals', () => {
      let loan: BookedLoan
      let path: string
      before(async () => {
        ;({ loan, path } = await newLoan())
      })

      it('refuses a missing, extra or non-boolean field with 400 naming it, changing nothing', async () => {
        for (const [json, param] of [
          [{}, 'enabled'],
          [{ enabled: 'true' }, 'enabled'],
          [{ enabled: 1 }, 'enabled'],
          [{ enabled: null }, 'enabled'],
          [{ enabled: true, payment_method_id: randomUUID() }, 'payment_method_id'],
          [{ enable: true }, 'enable'],
        ] as const) {
          expectInvalid(await call('PUT', path, json), param, JSON.stringify(json))
        }
        expect(await autopayOf(path)).to.deep.equal(off(loan.loanId))
      })

      it("answers 404 not_found for another party's loan under the key's own party and for an unknown loan, changing nothing", async () => {
        const crossed = autopayPath(borrower.partyId, theirs.loanId)
        const unknown = autopayPath(borrower.partyId, randomUUID())
        for (const [method, target, json] of [
          ['GET', crossed, undefined],
          ['PUT', crossed, { enabled: true }],
          ['GET', unknown, undefined],
          ['PUT', unknown, { enabled: true }],
        ] as const) {
          const reply = await call(method, target, json)
          expect(reply.status, `${method} ${target}: ${reply.text}`).to.equal(404)
          expect(reply.body, `${method} ${target}`).to.deep.equal(NO_SUCH_LOAN)
        }
        expect(await autopayOf(autopayPath(other.partyId, theirs.loanId), other.key)).to.deep.equal(off(theirs.loanId))
      })

      it("answers 403 party_mismatch on another party's path, and 400 naming loanId for a malformed loan id", async () => {
        const theirPath = autopayPath(other.partyId, theirs.loanId)
        for (const [method, json] of [['GET', undefined], ['PUT', { enabled: true }]] as const) {
          const reply = await call(method, theirPath, json)
          expect(reply.status, `${method}: ${reply.text}`).to.equal(403)
          expect(reply.body, method).to.deep.equal(PARTY_MISMATCH)
          expectInvalid(await call(method, autopayPath(borrower.partyId, 'loan-1'), json), 'loanId', `${method} a malformed id`)
        }
        expect(await autopayOf(theirPath, other.key)).to.deep.equal(off(theirs.loanId))
      })

      it('answers 401 missing_api_key without a key, and 403 insufficient_scope to a key of the party without partner:api, changing nothing', async () => {
        const narrow = await mintKey(server.url, { party_id: borrower.partyId, scopes: ['keys:manage'] })
        for (const [method, json] of [['GET', undefined], ['PUT', { enabled: true }]] as const) {
          const bare = await request(server.url, path, { method, ...(json === undefined ? {} : { json }) })
          expect(bare.status, `${method} without a key: ${bare.text}`).to.equal(401)
          expect(bare.body.error, method).to.equal('missing_api_key')
          const lacking = await call(method, path, json, narrow)
          expect(lacking.status, `${method} without partner:api: ${lacking.text}`).to.equal(403)
          expect(lacking.body, method).to.deep.equal(LACKS_PARTNER_API)
        }
        expect(await autopayOf(path)).to.deep.equal(off(loan.loanId))
      })

      it('refuses to turn on the autopay of a loan that is not ACTIVE (409 invalid_state), but turns it off', async () => {
        const { loan: chargedOff, path: chargedOffPath } = await newLoan()
        const on = await call('PUT', chargedOffPath, { enabled: true })
        expect(on.status, on.text).to.equal(200)
        const charged = await request(server.url, `/internal/loans/${chargedOff.loanId}/charge-off`, { method: 'POST', headers: operatorHeaders(), json: { reason: 'Borrower insolvent' } })
        expect([charged.status, charged.body.status], charged.text).to.deep.equal([200, 'CHARGED_OFF'])

        const turnedOff = await call('PUT', chargedOffPath, { enabled: false })
        expect(turnedOff.status, turnedOff.text).to.equal(200)
        expect(turnedOff.body).to.deep.equal(off(chargedOff.loanId))
        expectInvalidState(await call('PUT', chargedOffPath, { enabled: true }), 'CHARGED_OFF', 'turn on a charged-off loan')
        expect(await autopayOf(chargedOffPath)).to.deep.equal(off(chargedOff.loanId))
      })

      it('refuses to turn autopay on (409 invalid_state unavailable) where the lender does not collect by ACH, and reads it off there', async () => {
        const railless = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
        try {
          const reply = await request(railless.url, path, { method: 'PUT', headers: bearer(borrower.key.api_key), json: { enabled: true } })
          expectInvalidState(reply, 'unavailable', 'without ACH rails')
          const read = await request(railless.url, path, { method: 'GET', headers: bearer(borrower.key.api_key) })
          expect([read.status, read.body], read.text).to.deep.equal([200, off(loan.loanId)])
        } finally {
          await railless.stop()
        }
      })
    })
  })
}
