import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { storeUnavailable } from '@lendgate/core'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { bearer, mintKey, request } from './support/client.js'
import { startInMemoryServer } from './support/test-server.js'
import { testId } from '@lendgate/core/testing'

/**
 * Issue 35, finding 3: a database error caused by a request's data is a 4xx, not a 500 telling
 * the client to retry what will always fail, and no error log carries a statement's parameters
 * or rows. The errors are real ones, raised by each database.
 */

const APPLICANT = testId('Acme Legal Name Ltd')
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

for (const database of testDatabases()) {
  describe(`store failures on ${database.name} (issue 35)`, function () {
    this.timeout(60_000)
    /** What the database raises for each statement, caught. */
    const raised: Record<'refusedValue' | 'badDate' | 'uniqueViolation' | 'undefinedTable', unknown> = {
      refusedValue: undefined,
      badDate: undefined,
      uniqueViolation: undefined,
      undefinedTable: undefined,
    }
    const caught = async (run: () => Promise<unknown>): Promise<unknown> => {
      try {
        await run()
      } catch (error) {
        return error
      }
      throw new Error('the statement was expected to fail')
    }

    before(async () => {
      const { db } = await database.open()
      raised.refusedValue = await caught(() => db.selectFrom('api_clients').selectAll().where('id', '=', APPLICANT).execute())
      raised.badDate = await caught(() => db.selectFrom('api_clients').selectAll().where('created_at', '=', `2026-13-45 ${APPLICANT}` as unknown as Date).execute())
      // One statement inserting the same id twice: refused whole, nothing stored.
      const id = testId(randomUUID())
      const row = { id, party_id: id, name: APPLICANT, created_at: new Date() }
      raised.uniqueViolation = await caught(() => db.insertInto('api_clients').values([row, row]).execute())
      raised.undefinedTable = await caught(() =>
        db
          .selectFrom('no_such_table_for_this_test' as 'api_clients')
          .selectAll()
          .where('name', '=', APPLICANT)
          .execute(),
      )
    })

    /** An in-memory server whose session insert fails with `cause`. */
    const failingWith = (cause: unknown) =>
      startInMemoryServer((base) => ({ sessions: { ...base.sessions, insert: () => TE.left(storeUnavailable(cause)) } }))

    const createSession = async (cause: unknown) => {
      const server = await failingWith(cause)
      try {
        const key = await mintKey(server.url)
        const reply = await request(server.url, '/public/onboarding-sessions', { method: 'POST', headers: { ...bearer(key.api_key), 'Idempotency-Key': 'k-1' }, json: SESSION_INPUT })
        return { reply, logs: server.logs.raw() }
      } finally {
        await server.stop()
      }
    }

    it('answers a value the store refused with 400 invalid_request, never 500 store_unavailable', async () => {
      for (const cause of [raised.refusedValue, raised.badDate]) {
        const { reply } = await createSession(cause)
        expect(reply.status, String(cause)).to.equal(400)
        expect(reply.body).to.deep.equal({ error: 'invalid_request', detail: 'A value in the request cannot be stored (too long, out of range, or not of its type).' })
      }
    })

    it('answers a unique violation nothing else caught with 409 conflict (a concurrent request won)', async () => {
      const { reply } = await createSession(raised.uniqueViolation)
      expect(reply.status).to.equal(409)
      expect(reply.body.error).to.equal('conflict')
    })

    it('does not keep a 409 conflict for replay: a retry with the same Idempotency-Key runs again', async () => {
      let failures = 1
      const server = await startInMemoryServer((base) => ({
        sessions: { ...base.sessions, insert: (session) => (failures-- > 0 ? TE.left(storeUnavailable(raised.uniqueViolation)) : base.sessions.insert(session)) },
      }))
      try {
        const key = await mintKey(server.url)
        const send = () => request(server.url, '/public/onboarding-sessions', { method: 'POST', headers: { ...bearer(key.api_key), 'Idempotency-Key': 'race-1' }, json: SESSION_INPUT })
        expect((await send()).status).to.equal(409)
        const retried = await send()
        expect(retried.status, retried.text).to.equal(201)
        expect(retried.headers.get('idempotent-replayed')).to.equal(null)
        const replayed = await send()
        expect(replayed.status).to.equal(201)
        expect(replayed.headers.get('idempotent-replayed')).to.equal('true')
        expect(replayed.body).to.deep.equal(retried.body)
      } finally {
        await server.stop()
      }
    })

    it('still answers any other failure with 500 store_unavailable', async () => {
      const { reply } = await createSession(raised.undefinedTable)
      expect(reply.status).to.equal(500)
      expect(reply.body.error).to.equal('store_unavailable')
    })

    it("logs each failure by its SQLSTATE and names, never the statement's parameters, rows, context or stack", async () => {
      for (const [label, cause] of Object.entries(raised)) {
        const { logs } = await createSession(cause)
        const line = logs.split('\n').find((l) => l.includes('"err"'))
        expect(line, label).to.be.a('string')
        const { err } = JSON.parse(line!) as { err: Record<string, unknown> }
        expect(err['code'], label).to.equal((cause as { code: string }).code)
        expect(err['type'], label).to.equal('DatabaseError')
        for (const field of ['detail', 'where', 'hint', 'stack', 'internalQuery']) expect(err, `${label} ${field}`).not.to.have.property(field)
        expect(logs, label).not.to.contain('Acme')
      }
    })
  })
}
