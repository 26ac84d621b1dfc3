import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

const REGISTERED = { type: 'registered', line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' }
const PROFILE = { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789', incorporation_date: '2019-04-30' }

for (const database of testDatabases()) {
  describe(`onboarding flow, submission and internal review on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let key: MintedKey

    const partner = (method: string, path: string, json?: unknown, k: MintedKey = key): Promise<Reply> =>
      request(server.url, `/public/onboarding-sessions${path}`, { method, headers: bearer(k.api_key), ...(json === undefined ? {} : { json }) })
    const internal = (method: string, path: string, json?: unknown): Promise<Reply> =>
      request(server.url, `/internal/onboarding-sessions${path}`, { method, headers: bearer(INTERNAL_TOKEN), ...(json === undefined ? {} : { json }) })
    const lastCode = (): string => receiver.received[receiver.received.length - 1]!['code'] as string

    /** Spec §1 steps 1-3: a session with verified contacts, a profile and a registered address. */
    const completeSession = async (): Promise<string> => {
      const id = (await partner('POST', '', { country_of_incorporation: 'US', locale: 'en-US' })).body.session_id as string
      expect((await partner('POST', `/${id}/contact/phone`, { phone: '+14155550123' })).status).to.equal(201)
      expect((await partner('POST', `/${id}/contact/phone/verify`, { code: lastCode() })).status).to.equal(200)
      expect((await partner('POST', `/${id}/contact/email`, { email: 'jane@acme.example' })).status).to.equal(201)
      expect((await partner('POST', `/${id}/contact/email/verify`, { code: lastCode() })).status).to.equal(200)
      expect((await partner('PUT', `/${id}/applicant-profile`, PROFILE)).status).to.equal(200)
      expect((await partner('POST', `/${id}/addresses`, REGISTERED)).status).to.equal(201)
      return id
    }

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })
    beforeEach(async () => {
      key = await mintKey(server.url)
    })

    it('walks a session from creation to an approved party', async () => {
      const id = await completeSession()
      const document = await partner('POST', `/${id}/documents`, { type: 'certificate_of_incorporation', storage_ref: 's3://acme/coi.pdf' })
      expect(document.status).to.equal(201)
      expect((await partner('GET', `/${id}/requirements`)).body).to.deep.equal({ data: [], next_cursor: null })
      expect((await partner('GET', `/${id}`)).body.current_step).to.equal('REVIEW')
      const beforeApproval = await partner('GET', `/${id}/party`)
      expect(beforeApproval.status).to.equal(404)
      expect(beforeApproval.body).to.deep.equal({ error: 'not_found', detail: 'No such party.' })

      const submitted = await partner('POST', `/${id}/submit`, {})
      expect(submitted.status).to.equal(201)
      expect(submitted.body).to.deep.include({ session_id: id, status: 'SUBMITTED', current_step: 'REVIEW' })

      const queue = await internal('GET', '?status=SUBMITTED&limit=100')
      expect(queue.status).to.equal(200)
      expect(queue.body.data.map((s: { session_id: string }) => s.session_id)).to.include(id)

      const approved = await internal('POST', `/${id}/approve`, { reviewed_by: 'ops@lendgate' })
      expect(approved.status).to.equal(200)
      expect(approved.body.session).to.deep.include({ session_id: id, status: 'APPROVED', party_id: approved.body.party.party_id })
      expect(approved.body.session.review).to.deep.include({ decision: 'APPROVED', reviewed_by: 'ops@lendgate', reason: null })

      const party = await partner('GET', `/${id}/party`)
      expect(party.status).to.equal(200)
      expect(party.body).to.deep.equal(approved.body.party)
      const { party_id, created_at, addresses, ...rest } = party.body
      expect(rest).to.deep.equal({
        livemode: true,
        session_id: id,
        type: 'business',
        legal_name: 'Acme Widgets LLC',
        trading_name: null,
        legal_form: 'llc',
        registration_number: null,
        incorporation_date: '2019-04-30',
        industry_code: null,
        website: null,
        tax_id_masked: '******6789',
        country_of_incorporation: 'US',
        email: 'jane@acme.example',
        phone: '+14155550123',
      })
      expect(addresses).to.have.length(1)
      expect(addresses[0]).to.deep.include({ ...REGISTERED, line2: null })
      expect(party.text).not.to.contain('12-3456789')

      // Documents stay listed after the party exists.
      expect((await partner('GET', `/${id}/documents`)).body).to.deep.equal({ data: [document.body], next_cursor: null })

      const again = await internal('POST', `/${id}/approve`)
      expect(again.status).to.equal(409)
      expect(again.body).to.deep.include({ error: 'invalid_state', status: 'APPROVED' })
      expect((await internal('POST', `/${id}/reject`, { reason: 'late' })).status).to.equal(409)
    })

    it('refuses submission with 409 requirements_outstanding listing what is missing, and changes nothing', async () => {
      const id = (await partner('POST', '', { country_of_incorporation: 'US', locale: 'en-US' })).body.session_id as string
      await partner('PUT', `/${id}/applicant-profile`, PROFILE)
      const refused = await partner('POST', `/${id}/submit`, {})
      expect(refused.status).to.equal(409)
      expect(refused.body).to.deep.equal({
        error: 'requirements_outstanding',
        detail: 'The session cannot be submitted until every requirement is met.',
        requirements: [
          { code: 'phone_missing', step: 'PHONE_VERIFICATION', description: "Submit the applicant's phone number." },
          { code: 'email_missing', step: 'EMAIL_VERIFICATION', description: "Submit the applicant's email address." },
          { code: 'registered_address_missing', step: 'ADDRESSES', description: 'Add the registered address of the business.' },
        ],
      })
      expect((await partner('GET', `/${id}`)).body.status).to.equal('IN_PROGRESS')
    })

    it('makes a submitted session read-only for the partner (409 invalid_state)', async () => {
      const id = await completeSession()
      await partner('POST', `/${id}/submit`, {})
      for (const [method, path, json] of [
        ['PUT', '/applicant-profile', PROFILE],
        ['POST', '/addresses', { ...REGISTERED, type: 'mailing' }],
        ['POST', '/contact/phone', { phone: '+14155550199' }],
        ['POST', '/documents', { type: 'other', storage_ref: 'x' }],
        ['POST', '/submit', {}],
      ] as const) {
        const reply = await partner(method, `/${id}${path}`, json)
        expect(reply.status, `${method} ${path}`).to.equal(409)
        expect(reply.body.error).to.equal('invalid_state')
      }
      expect((await partner('GET', `/${id}/requirements`)).body.data).to.deep.equal([])
    })

    it('rejects a submitted session with a reason; a reason is required', async () => {
      const id = await completeSession()
      await partner('POST', `/${id}/submit`, {})
      const noReason = await internal('POST', `/${id}/reject`, {})
      expect(noReason.status).to.equal(400)
      expect(noReason.body.param).to.equal('reason')
      const rejected = await internal('POST', `/${id}/reject`, { reason: 'Could not verify the registration number.' })
      expect(rejected.status).to.equal(200)
      expect(rejected.body).to.deep.include({ session_id: id, status: 'REJECTED', party_id: null })
      expect(rejected.body.review).to.deep.include({ decision: 'REJECTED', reviewed_by: 'internal', reason: 'Could not verify the registration number.' })
      expect((await partner('GET', `/${id}/party`)).status).to.equal(404)
      expect((await internal('POST', `/${id}/approve`)).status).to.equal(409)
    })

    it('refuses review of an in-progress session (409), an unknown one (404) and a bad status filter (400)', async () => {
      const id = (await partner('POST', '', { country_of_incorporation: 'US', locale: 'en-US' })).body.session_id as string
      expect((await internal('POST', `/${id}/approve`)).body).to.deep.include({ error: 'invalid_state', status: 'IN_PROGRESS' })
      expect((await internal('POST', `/${randomUUID()}/approve`)).status).to.equal(404)
      const badFilter = await internal('GET', '?status=DONE')
      expect(badFilter.status).to.equal(400)
      expect(badFilter.body.param).to.equal('status')
    })

    it("keeps a party private to the client whose session produced it", async () => {
      const id = await completeSession()
      await partner('POST', `/${id}/submit`, {})
      await internal('POST', `/${id}/approve`)
      const stranger = await mintKey(server.url)
      expect((await partner('GET', `/${id}/party`, undefined, stranger)).status).to.equal(404)
    })
  })
}
