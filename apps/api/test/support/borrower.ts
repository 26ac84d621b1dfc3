import { expect } from 'chai'
import { TEST_VERIFICATION_CODE } from '@lendgate/core'
import { bearer, mintKey, request, type MintedKey, type Reply } from './client.js'
import type { startCodeReceiver } from './code-receiver.js'
import { operatorHeaders, type TestServer } from './test-server.js'

export type CodeReceiver = Awaited<ReturnType<typeof startCodeReceiver>>

export const BORROWER_PROFILE = {
  legal_name: 'Acme Widgets LLC',
  legal_form: 'llc',
  registration_number: 'IL-123456',
  incorporation_date: '2019-04-30',
  industry_code: '332510',
  website: 'https://acme.example',
  tax_id: '12-3456789',
} as const
export const BORROWER_REGISTERED_ADDRESS = {
  type: 'registered',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
} as const
export const BORROWER_PHONE = '+14155550123'
export const BORROWER_EMAIL = 'jane@acme.example'

export type Borrower = {
  readonly partyId: string
  /** A key minted for the borrower's party: how a partner acts for the borrower. */
  readonly key: MintedKey
  /** The partner's own key, which created the onboarding session (its party is not a borrower). */
  readonly partnerKey: MintedKey
  readonly sessionId: string
  /** The party as `approveOnboardingSession` answered it. */
  readonly party: Record<string, unknown> & { readonly party_id: string; readonly addresses: readonly Record<string, unknown>[] }
}

export type SessionOptions = {
  /** Added to the session after the registered address (and copied to the party at approval). */
  readonly extraAddresses?: readonly Record<string, unknown>[]
  /** Document metadata sent before submission (`POST …/documents`), as a reviewer will read it. */
  readonly documents?: readonly Record<string, unknown>[]
  /** Registered before submission (`PUT …/webhook`). */
  readonly webhook?: { readonly webhook_url: string; readonly webhook_secret?: string }
  /** The world the borrower is onboarded in (decision 128): its keys' environment; default live. */
  readonly world?: 'live' | 'test'
}

/**
 * Walks an onboarding session of `partnerKey` to review over HTTP (docs/onboarding.md): opens
 * it, verifies phone and email with the codes `receiver` got, adds a profile with a tax id and a
 * registered address (and `options`), submits. The server must deliver codes to `receiver`.
 */
export const submittedSession = async (server: TestServer, receiver: CodeReceiver, partnerKey: MintedKey, options: SessionOptions = {}): Promise<string> => {
  const call = async (method: string, path: string, json: unknown, expected: number): Promise<Reply> => {
    const reply = await request(server.url, `/public/onboarding-sessions${path}`, { method, headers: bearer(partnerKey.api_key), json })
    expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(expected)
    return reply
  }
  const codeFor = (sessionId: string, destination: string): string => {
    // The test world sends nothing: its code is always the same (decision 130).
    if (partnerKey.environment === 'test') return TEST_VERIFICATION_CODE
    const sent = receiver.received.filter((r) => r['session_id'] === sessionId && r['destination'] === destination)
    const last = sent[sent.length - 1]
    if (last === undefined) throw new Error(`no code was delivered for ${destination} of session ${sessionId}`)
    return last['code'] as string
  }

  const sessionId = (await call('POST', '', { country_of_incorporation: 'US', locale: 'en-US' }, 201)).body.session_id as string
  await call('POST', `/${sessionId}/contact/phone`, { phone: BORROWER_PHONE }, 201)
  await call('POST', `/${sessionId}/contact/phone/verify`, { code: codeFor(sessionId, BORROWER_PHONE) }, 200)
  await call('POST', `/${sessionId}/contact/email`, { email: BORROWER_EMAIL }, 201)
  await call('POST', `/${sessionId}/contact/email/verify`, { code: codeFor(sessionId, BORROWER_EMAIL) }, 200)
  await call('PUT', `/${sessionId}/applicant-profile`, BORROWER_PROFILE, 200)
  await call('POST', `/${sessionId}/addresses`, BORROWER_REGISTERED_ADDRESS, 201)
  for (const address of options.extraAddresses ?? []) await call('POST', `/${sessionId}/addresses`, address, 201)
  for (const document of options.documents ?? []) await call('POST', `/${sessionId}/documents`, document, 201)
  if (options.webhook !== undefined) await call('PUT', `/${sessionId}/webhook`, options.webhook, 200)
  await call('POST', `/${sessionId}/submit`, {}, 201)
  return sessionId
}

/**
 * Onboards a borrower end to end over HTTP (docs/applications.md "Whose party is it?"): a
 * partner key walks a session to review (`submittedSession`), the operator approves, then a
 * key is minted for the new party.
 */
export const onboardBorrower = async (server: TestServer, receiver: CodeReceiver, options: SessionOptions = {}): Promise<Borrower> => {
  const environment = options.world ?? 'live'
  const partnerKey = await mintKey(server.url, { environment })
  const sessionId = await submittedSession(server, receiver, partnerKey, options)

  const approved = await request(server.url, `/internal/onboarding-sessions/${sessionId}/approve`, {
    method: 'POST',
    headers: operatorHeaders(environment),
    json: {},
  })
  expect(approved.status, `approve: ${approved.text}`).to.equal(200)
  const party = approved.body.party as Borrower['party']
  const key = await mintKey(server.url, { party_id: party.party_id, environment })
  return { partyId: party.party_id, key, partnerKey, sessionId, party }
}
