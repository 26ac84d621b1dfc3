import { TEST_VERIFICATION_CODE } from '@lendgate/core'
import { expect } from 'chai'
import { WORKING_CAPITAL } from './booked-loan.js'
import { BORROWER_PROFILE, BORROWER_REGISTERED_ADDRESS } from './borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './client.js'
import type { TestServer } from './test-server.js'

/** Requests to the server `current` gives, with a key: `call` answers the reply, `ok` expects `status` and answers the body. */
export const requestsTo = (current: () => TestServer) => {
  const call = (key: MintedKey, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    request(current().url, path, { method, headers: { ...bearer(key.api_key), ...headers }, ...(json === undefined ? {} : { json }) })
  const ok = async (key: MintedKey, method: string, path: string, json: unknown, status: number, headers: Record<string, string> = {}): Promise<Reply['body']> => {
    const reply = await call(key, method, path, json, headers)
    expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(status)
    return reply.body
  }
  return { call, ok }
}

/** A submitted session of `partner`'s client (a test key), its contacts verified with the test code. */
export const submittedTestSession = async (server: TestServer, partner: MintedKey): Promise<string> => {
  const ok = (method: string, path: string, json: unknown, status: number) => requestsTo(() => server).ok(partner, method, path, json, status)
  const id = (await ok('POST', '/public/onboarding-sessions', { country_of_incorporation: 'US', locale: 'en-US' }, 201)).session_id as string
  const session = `/public/onboarding-sessions/${id}`
  await ok('POST', `${session}/contact/phone`, { phone: '+14155550123' }, 201)
  await ok('POST', `${session}/contact/phone/verify`, { code: TEST_VERIFICATION_CODE }, 200)
  await ok('POST', `${session}/contact/email`, { email: 'jane@acme.example' }, 201)
  await ok('POST', `${session}/contact/email/verify`, { code: TEST_VERIFICATION_CODE }, 200)
  await ok('PUT', `${session}/applicant-profile`, BORROWER_PROFILE, 200)
  await ok('POST', `${session}/addresses`, BORROWER_REGISTERED_ADDRESS, 201)
  await ok('POST', `${session}/submit`, {}, 201)
  return id
}

/** A test-world borrower with a booked loan, through test keys and the test helpers alone: the partner's key, the party's key, the loan's path, and the party's test clock's id (null without one). */
export type TestModeLoan = { readonly partner: MintedKey; readonly borrower: MintedKey; readonly partyId: string; readonly loanId: string; readonly loan: string; readonly clockId: string | null }

/** Onboards a borrower and books a USD 12,000 loan of 12 months for it, in the test world; with `clock`, on a test clock of the party's, made before the loan is booked. */
export const testModeLoan = async (server: TestServer, options: { readonly clock?: boolean; readonly amount?: number } = {}): Promise<TestModeLoan> => {
  const { ok } = requestsTo(() => server)
  const partner = await mintKey(server.url, { environment: 'test' })
  const approval = await ok(partner, 'POST', `/public/test-helpers/onboarding-sessions/${await submittedTestSession(server, partner)}/approve`, {}, 200)
  const partyId = approval.party.party_id as string
  const borrower = await mintKey(server.url, { party_id: partyId, environment: 'test' })
  const clockId = options.clock === true ? ((await ok(borrower, 'POST', '/public/test-helpers/clocks', {}, 201)).test_clock_id as string) : null
  const draft = await ok(borrower, 'POST', '/public/applications', { product_id: WORKING_CAPITAL, amount: options.amount ?? 1_200_000, currency: 'USD', term_months: 12 }, 201)
  await ok(borrower, 'POST', `/public/applications/${draft.application_id as string}/submit`, {}, 200)
  const booked = await ok(borrower, 'POST', `/public/test-helpers/applications/${draft.application_id as string}/approve`, {}, 200)
  const loanId = booked.loan.loan_id as string
  return { partner, borrower, partyId, loanId, loan: `/public/parties/${partyId}/loans/${loanId}`, clockId }
}
