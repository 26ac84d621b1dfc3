import { randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { TEST_VERIFICATION_CODE } from '@lendgate/core'
import { expect } from 'chai'
import { WORKING_CAPITAL } from './booked-loan.js'
import { BORROWER_PROFILE, BORROWER_REGISTERED_ADDRESS } from './borrower.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './client.js'

/** A partner's journey in test mode, step by step over HTTP, for the event and webhook suites. */

/** A bank account of the sandbox's magic table that settles every charge (docs/testing.md). */
export const SETTLING_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '110000000', account_number: '000123456789' }

/** Calls of one server as one key at a time. */
export const partnerCalls = (baseUrl: () => string) => {
  const call = (key: MintedKey, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    request(baseUrl(), path, { method, headers: { ...bearer(key.api_key), ...headers }, ...(json === undefined ? {} : { json }) })
  /** The body of a call that must answer `status`. */
  const ok = async (key: MintedKey, method: string, path: string, json: unknown, status: number, headers: Record<string, string> = {}): Promise<Reply['body']> => {
    const reply = await call(key, method, path, json, headers)
    expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(status)
    return reply.body
  }

  /** A partner (test key unless given) whose session the test helper approved: the party and a borrower key of it. */
  const onboarded = async (partner?: MintedKey) => {
    const p = partner ?? (await mintKey(baseUrl(), { environment: 'test' }))
    const sessionId = (await ok(p, 'POST', '/public/onboarding-sessions', { country_of_incorporation: 'US', locale: 'en-US' }, 201)).session_id as string
    const session = `/public/onboarding-sessions/${sessionId}`
    await ok(p, 'POST', `${session}/contact/phone`, { phone: '+14155550123' }, 201)
    await ok(p, 'POST', `${session}/contact/phone/verify`, { code: TEST_VERIFICATION_CODE }, 200)
    await ok(p, 'POST', `${session}/contact/email`, { email: 'jane@acme.example' }, 201)
    await ok(p, 'POST', `${session}/contact/email/verify`, { code: TEST_VERIFICATION_CODE }, 200)
    await ok(p, 'PUT', `${session}/applicant-profile`, BORROWER_PROFILE, 200)
    await ok(p, 'POST', `${session}/addresses`, BORROWER_REGISTERED_ADDRESS, 201)
    await ok(p, 'POST', `${session}/submit`, {}, 201)
    const approval = await ok(p, 'POST', `/public/test-helpers/onboarding-sessions/${sessionId}/approve`, {}, 200)
    const partyId = approval.party.party_id as string
    const party = await ok(p, 'GET', `${session}/party`, undefined, 200)
    const borrower = await mintKey(baseUrl(), { party_id: partyId, environment: 'test' })
    return { partner: p, sessionId, partyId, party, borrower }
  }

  /** `onboarded`, then a loan applied for, submitted and approved by the test helper, with a settling bank account. */
  const withLoan = async (partner?: MintedKey) => {
    const o = await onboarded(partner)
    const draft = await ok(o.borrower, 'POST', '/public/applications', { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }, 201)
    const applicationId = draft.application_id as string
    await ok(o.borrower, 'POST', `/public/applications/${applicationId}/submit`, {}, 200)
    const approved = await ok(o.borrower, 'POST', `/public/test-helpers/applications/${applicationId}/approve`, {}, 200)
    const loanId = approved.loan.loan_id as string
    const loanPath = `/public/parties/${o.partyId}/loans/${loanId}`
    const methodId = (await ok(o.borrower, 'POST', `${loanPath}/payment-methods`, SETTLING_ACCOUNT, 201)).payment_method_id as string
    /** Pays `amount` with a fresh Idempotency-Key. */
    const pay = (amount: number): Promise<Reply['body']> =>
      ok(o.borrower, 'POST', `${loanPath}/payments`, { amount, currency: 'USD', payment_method_id: methodId }, 201, { 'Idempotency-Key': randomUUID() })
    /** Pays what the payoff quote says. */
    const payOff = async (): Promise<Reply['body']> => pay((await ok(o.borrower, 'GET', `${loanPath}/payoff`, undefined, 200)).payoff_amount as number)
    return { ...o, applicationId, loanId, loanPath, methodId, pay, payOff }
  }

  return { call, ok, onboarded, withLoan }
}

/** One request a receiver got. */
export type Received = { readonly path: string; readonly headers: IncomingHttpHeaders; readonly body: string }

/** A partner's webhook receiver: records every request and answers `status()` (settable). */
export const startWebhookReceiver = async () => {
  const received: Received[] = []
  let status = 204
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body })
      res.statusCode = status
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    received,
    answer: (next: number) => {
      status = next
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Polls `probe` until it answers, for at most `ms`. */
export const waitFor = async <A>(what: string, probe: () => A | undefined, ms = 15_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const found = probe()
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
