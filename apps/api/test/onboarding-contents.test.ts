import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const REGISTERED = { type: 'registered', line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' }
const PROFILE = {
  legal_name: 'Acme Widgets LLC',
  legal_form: 'llc',
  registration_number: 'IL-123456',
  incorporation_date: '2019-04-30',
  industry_code: '332510',
  website: 'https://acme.example',
  tax_id: '12-3456789',
}

for (const database of testDatabases()) {
  describe(`onboarding contents on ${database.name}`, () => {
    let server: TestServer
    let key: MintedKey
    let sessionId: string
    const call = (method: string, path: string, json?: unknown, k: MintedKey = key): Promise<Reply> =>
      request(server.url, `/public/onboarding-sessions/${sessionId}${path}`, { method, headers: bearer(k.api_key), ...(json === undefined ? {} : { json }) })

    before(async () => {
      server = await startTestServer(database)
    })
    after(async () => server.stop())
    beforeEach(async () => {
      key = await mintKey(server.url)
      const created = await request(server.url, '/public/onboarding-sessions', {
        method: 'POST',
        headers: bearer(key.api_key),
        json: { country_of_incorporation: 'US', locale: 'en-US' },
      })
      sessionId = created.body.session_id
    })

    describe('PUT …/applicant-profile', () => {
      it('creates the profile (200) with the tax id masked, then replaces it', async () => {
        const first = await call('PUT', '/applicant-profile', PROFILE)
        expect(first.status).to.equal(200)
        const { updated_at, ...rest } = first.body
        expect(rest).to.deep.equal({
          livemode: true,
          legal_name: 'Acme Widgets LLC',
          trading_name: null,
          legal_form: 'llc',
          registration_number: 'IL-123456',
          incorporation_date: '2019-04-30',
          industry_code: '332510',
          website: 'https://acme.example',
          tax_id_masked: '******6789',
        })
        expect(updated_at).to.match(ISO_MS)
        expect(first.text).not.to.contain('12-3456789')
        const replaced = await call('PUT', '/applicant-profile', { legal_name: 'Acme Holdings Inc' })
        expect(replaced.status).to.equal(200)
        expect(replaced.body.legal_name).to.equal('Acme Holdings Inc')
        expect(replaced.body.tax_id_masked).to.equal(null)
      })

      it('refuses invalid profiles with 400 naming the field', async () => {
        for (const [json, param] of [
          [{}, 'legal_name'],
          [{ ...PROFILE, incorporation_date: '2999-01-01' }, 'incorporation_date'],
          [{ ...PROFILE, industry_code: 'widgets' }, 'industry_code'],
          [{ ...PROFILE, taxId: 'x' }, 'taxId'],
        ] as const) {
          const reply = await call('PUT', '/applicant-profile', json)
          expect(reply.status, JSON.stringify(json)).to.equal(400)
          expect(reply.body.error).to.equal('invalid_request')
          expect(reply.body.param).to.equal(param)
        }
      })

      it('refuses a NUL or an unpaired surrogate in any text field with 400 naming it, storing nothing and logging no data', async () => {
        for (const [json, param] of [
          [{ ...PROFILE, legal_name: 'Acme\u0000 Widgets' }, 'legal_name'],
          [{ ...PROFILE, trading_name: 'Acme \ud800' }, 'trading_name'],
          [{ ...PROFILE, website: 'https://acme.example/\u0000' }, 'website'],
        ] as const) {
          const reply = await call('PUT', '/applicant-profile', json)
          expect([reply.status, reply.body.error, reply.body.param], JSON.stringify(json)).to.deep.equal([400, 'invalid_request', param])
        }
        const address = await call('POST', '/addresses', { ...REGISTERED, line2: 'Suite\u0000 5' })
        expect([address.status, address.body.param]).to.deep.equal([400, 'line2'])
        expect((await call('GET', '')).body.current_step).to.equal('PHONE_VERIFICATION')
        expect((await call('GET', '/addresses')).body.data).to.deep.equal([])
        expect(server.logs.raw()).not.to.contain('store unavailable')
      })

      it("answers 404 for another client's session", async () => {
        const stranger = await mintKey(server.url)
        const reply = await call('PUT', '/applicant-profile', PROFILE, stranger)
        expect(reply.status).to.equal(404)
        expect(reply.body).to.deep.equal({ error: 'not_found', detail: 'No such onboarding session.' })
      })
    })

    describe('addresses', () => {
      it('creates (201), lists with the envelope in creation order, and patches (200) partially', async () => {
        const created = await call('POST', '/addresses', REGISTERED)
        expect(created.status).to.equal(201)
        const { address_id, created_at, updated_at, ...rest } = created.body
        expect(rest).to.deep.equal({ ...REGISTERED, line2: null, livemode: true })
        expect(created_at).to.match(ISO_MS)
        expect(updated_at).to.equal(created_at)
        const mailing = await call('POST', '/addresses', { ...REGISTERED, type: 'mailing', line1: 'PO Box 9' })
        expect(mailing.status).to.equal(201)

        const firstPage = await call('GET', '/addresses?limit=1')
        expect(firstPage.status).to.equal(200)
        expect(firstPage.body.data).to.deep.equal([created.body])
        const secondPage = await call('GET', `/addresses?limit=1&cursor=${firstPage.body.next_cursor}`)
        expect(secondPage.body).to.deep.equal({ data: [mailing.body], next_cursor: null })

        const patched = await call('PATCH', `/addresses/${address_id}`, { line2: 'Suite 100', city: 'Chicago' })
        expect(patched.status).to.equal(200)
        expect(patched.body).to.deep.include({ ...REGISTERED, address_id, line2: 'Suite 100', city: 'Chicago', created_at })
        const all = await call('GET', '/addresses')
        expect(all.body.data.map((a: { city: string }) => a.city)).to.deep.equal(['Chicago', 'Springfield'])
      })

      it('keeps one registered address per session', async () => {
        await call('POST', '/addresses', REGISTERED)
        const second = await call('POST', '/addresses', REGISTERED)
        expect(second.status).to.equal(400)
        expect(second.body).to.deep.equal({
          error: 'invalid_request',
          detail: 'The session already has a registered address; update that one instead.',
          param: 'type',
        })
        const operating = await call('POST', '/addresses', { ...REGISTERED, type: 'operating' })
        const promote = await call('PATCH', `/addresses/${operating.body.address_id}`, { type: 'registered' })
        expect(promote.status).to.equal(400)
      })

      it('updates by JSON Merge Patch: null clears line2 and region, and is refused on a field that cannot be empty', async () => {
        const created = await call('POST', '/addresses', { ...REGISTERED, line2: 'Suite 5' })
        const path = `/addresses/${created.body.address_id}`
        const cleared = await call('PATCH', path, { line2: null })
        expect(cleared.status).to.equal(200)
        expect(cleared.body).to.deep.include({ ...REGISTERED, line2: null })
        const both = await call('PATCH', path, { region: null, city: 'Chicago' })
        expect(both.status).to.equal(200)
        expect(both.body).to.deep.include({ ...REGISTERED, line2: null, region: null, city: 'Chicago' })
        for (const field of ['line1', 'city', 'postal_code', 'country', 'type']) {
          const refused = await call('PATCH', path, { [field]: null, line2: 'Suite 9' })
          expect(refused.status, field).to.equal(400)
          expect(refused.body).to.deep.equal({
            error: 'invalid_request',
            detail: `${field} cannot be cleared: send a value, or leave the field out to keep it`,
            param: field,
          })
        }
        expect((await call('GET', '/addresses')).body.data).to.deep.equal([both.body])
      })

      it('takes a PATCH as application/merge-patch+json too, and no other media type', async () => {
        const created = await call('POST', '/addresses', REGISTERED)
        const patch = (contentType: string) =>
          request(server.url, `/public/onboarding-sessions/${sessionId}/addresses/${created.body.address_id}`, {
            method: 'PATCH',
            headers: { ...bearer(key.api_key), 'Content-Type': contentType },
            rawBody: JSON.stringify({ region: null }),
          })
        const merged = await patch('application/merge-patch+json')
        expect(merged.status).to.equal(200)
        expect(merged.body.region).to.equal(null)
        const jsonPatch = await patch('application/json-patch+json')
        expect(jsonPatch.status).to.equal(400)
        expect(jsonPatch.body).to.deep.equal({ error: 'invalid_request', detail: 'Content-Type must be application/json or application/merge-patch+json.' })
        const onPost = await request(server.url, `/public/onboarding-sessions/${sessionId}/addresses`, {
          method: 'POST',
          headers: { ...bearer(key.api_key), 'Content-Type': 'application/merge-patch+json' },
          rawBody: JSON.stringify(REGISTERED),
        })
        expect(onPost.status).to.equal(400)
        expect(onPost.body).to.deep.equal({ error: 'invalid_request', detail: 'Content-Type must be application/json.' })
      })

      it('answers 400 for invalid input, an empty patch or a bad id, and 404 for an unknown address', async () => {
        expect((await call('POST', '/addresses', { ...REGISTERED, country: 'USA' })).body.param).to.equal('country')
        const created = await call('POST', '/addresses', REGISTERED)
        const empty = await call('PATCH', `/addresses/${created.body.address_id}`, {})
        expect(empty.status).to.equal(400)
        expect(empty.body).to.deep.equal({ error: 'invalid_request', detail: 'Send at least one field to update.' })
        const badId = await call('PATCH', '/addresses/123', { city: 'X' })
        expect(badId.status).to.equal(400)
        expect(badId.body.param).to.equal('addressId')
        const unknown = await call('PATCH', `/addresses/${randomUUID()}`, { city: 'X' })
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal({ error: 'not_found', detail: 'No such onboarding address.' })
      })
    })

    describe('documents', () => {
      it('registers metadata (201) and lists it with the envelope, oldest first', async () => {
        const first = await call('POST', '/documents', { type: 'certificate_of_incorporation', storage_ref: 's3://acme/coi.pdf', content_type: 'application/pdf' })
        expect(first.status).to.equal(201)
        const { document_id, created_at, ...rest } = first.body
        expect(rest).to.deep.equal({
          livemode: true,
          type: 'certificate_of_incorporation',
          storage_ref: 's3://acme/coi.pdf',
          file_name: null,
          content_type: 'application/pdf',
          description: null,
        })
        expect(created_at).to.match(ISO_MS)
        const second = await call('POST', '/documents', { type: 'bank_statement', storage_ref: 'gs://acme/2026-05.pdf', file_name: 'May 2026.pdf' })
        const page1 = await call('GET', '/documents?limit=1')
        expect(page1.body.data).to.deep.equal([first.body])
        const page2 = await call('GET', `/documents?limit=1&cursor=${page1.body.next_cursor}`)
        expect(page2.body).to.deep.equal({ data: [second.body], next_cursor: null })
      })

      it('refuses an unknown type or a missing storage reference with 400', async () => {
        const unknownType = await call('POST', '/documents', { type: 'selfie', storage_ref: 'x' })
        expect(unknownType.status).to.equal(400)
        expect(unknownType.body.param).to.equal('type')
        const noRef = await call('POST', '/documents', { type: 'other' })
        expect(noRef.body).to.deep.equal({ error: 'invalid_request', detail: 'storage_ref is required', param: 'storage_ref' })
      })

      it("answers 404 for another client's session", async () => {
        const stranger = await mintKey(server.url)
        expect((await call('GET', '/documents', undefined, stranger)).status).to.equal(404)
      })
    })

    describe('GET …/requirements and current_step', () => {
      it('lists what is outstanding and moves current_step to the first unmet step', async () => {
        const before = await call('GET', '/requirements')
        expect(before.status).to.equal(200)
        expect(before.body).to.deep.equal({
          data: [
            { code: 'phone_missing', step: 'PHONE_VERIFICATION', description: "Submit the applicant's phone number.", livemode: true },
            { code: 'email_missing', step: 'EMAIL_VERIFICATION', description: "Submit the applicant's email address.", livemode: true },
            { code: 'applicant_profile_missing', step: 'APPLICANT_PROFILE', description: 'Submit the applicant profile (at least the legal name).', livemode: true },
            { code: 'registered_address_missing', step: 'ADDRESSES', description: 'Add the registered address of the business.', livemode: true },
          ],
          next_cursor: null,
        })
        await call('PUT', '/applicant-profile', PROFILE)
        await call('POST', '/addresses', REGISTERED)
        const after = await call('GET', '/requirements')
        expect(after.body.data.map((r: { code: string }) => r.code)).to.deep.equal(['phone_missing', 'email_missing'])
        const session = await call('GET', '')
        expect(session.body.current_step).to.equal('PHONE_VERIFICATION')
        expect(session.body.updated_at).not.to.equal(session.body.created_at)
      })
    })
  })
}
