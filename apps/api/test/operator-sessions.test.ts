import { randomUUID } from 'node:crypto'
import { disableOperator, revokeOperatorSessions } from '@lendgate/core'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { bookLoan, DEFAULT_LOAN_TERMS } from './support/booked-loan.js'
import { onboardBorrower, submittedSession } from './support/borrower.js'
import { bearer, mintKey, request } from './support/client.js'
import { added, asOperator, COOKIE, newEmail, PASSWORD, sessionCookieOf, signIn, signedIn, type Signed } from './support/operators.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startInMemoryServer, startTestServer, testConfig, type TestServer } from './support/test-server.js'

/**
 * Named operators' console sessions over HTTP (decision 149), on each test database: an operator
 * added as the CLI adds one signs in with its password for a cookie (HttpOnly, Secure,
 * SameSite=Strict) and a CSRF token; its session acts on the internal routes its role allows and
 * is refused the others, a change without the CSRF token, and everything once signed out,
 * revoked or disabled; the audit log names the operator; failed sign-ins are limited.
 */

const INVALID_SESSION = {
  error: 'invalid_session',
  detail: 'There is no console session, or it has expired, was revoked or its operator was disabled: sign in again.',
}
const INVALID_CREDENTIALS = { error: 'invalid_credentials', detail: 'The e-mail or password is wrong, or the operator is disabled.' }

for (const database of testDatabases()) {
  describe(`operators' console sessions on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
    })
    after(async () => {
      await server?.stop()
      await receiver?.close()
    })

    it('signs an operator in with its e-mail in any case: a cookie only the server reads, for the session, and its CSRF token', async () => {
      const { email, id } = await added(server, 'reviewer')
      const reply = await signIn(server, email.toUpperCase(), PASSWORD)
      expect(reply.status, reply.text).to.equal(201)
      const [cookie, ...attributes] = (reply.headers.getSetCookie()[0] ?? '').split('; ')
      expect(cookie).to.match(new RegExp(`^${COOKIE}=[A-Za-z0-9_-]{43}$`))
      expect(attributes).to.deep.equal(['Path=/', 'Max-Age=28800', 'HttpOnly', 'Secure', 'SameSite=Strict'])
      const { session_id: sessionId, expires_at: expiresAt, csrf_token: csrf, operator } = reply.body
      expect(operator).to.deep.equal({ operator_id: id, email: email.toLowerCase(), role: 'reviewer', created_at: operator.created_at, disabled_at: null })
      expect(Date.parse(expiresAt) - Date.now()).to.be.within(8 * 3_600_000 - 60_000, 8 * 3_600_000)
      expect(csrf).to.match(/^[A-Za-z0-9_-]{43}$/)
      expect(reply.text).not.to.include((cookie ?? '').split('=')[1])

      const current = await request(server.url, '/internal/operator-sessions/current', { headers: { Cookie: cookie ?? '' } })
      expect(current.status).to.equal(200)
      expect(current.body).to.deep.equal({ session_id: sessionId, operator, expires_at: expiresAt, csrf_token: csrf })
    })

    it('refuses a wrong password, an unknown e-mail and a disabled operator alike, with no cookie', async () => {
      const { email } = await added(server, 'credit')
      const disabled = await added(server, 'servicing')
      await disableOperator(server.deps)({ email: disabled.email })()
      for (const [who, password] of [
        [email, 'not the passphrase at all'],
        [newEmail('nobody'), PASSWORD],
        [disabled.email, PASSWORD],
      ] as const) {
        const reply = await signIn(server, who, password)
        expect(reply.status, who).to.equal(401)
        expect(reply.body).to.deep.equal(INVALID_CREDENTIALS)
        expect(reply.headers.getSetCookie()).to.deep.equal([])
      }
      const malformed = await request(server.url, '/internal/operator-sessions', { method: 'POST', json: { email, password: PASSWORD, remember_me: true } })
      expect(malformed.status).to.equal(400)
      expect(malformed.body.param).to.equal('remember_me')
    })

    it('lets a reviewer read and approve onboarding, audited under its own id, and refuses it a credit decision', async () => {
      const reviewer = await signedIn(server, 'reviewer')
      const partnerKey = await mintKey(server.url)
      const sessionId = await submittedSession(server, receiver, partnerKey)

      const queue = await asOperator(server, reviewer, 'GET', '/internal/onboarding-sessions?status=SUBMITTED&limit=100')
      expect(queue.status, queue.text).to.equal(200)
      const approved = await asOperator(server, reviewer, 'POST', `/internal/onboarding-sessions/${sessionId}/approve`)
      expect(approved.status, approved.text).to.equal(200)
      const events = await request(server.url, `/internal/audit-events?subject_id=${sessionId}&action=onboarding_session.approved`, { headers: bearer(INTERNAL_TOKEN) })
      expect(events.body.data.map((e: { actor: unknown }) => e.actor)).to.deep.equal([{ type: 'operator', id: reviewer.operatorId }])

      const refused = await asOperator(server, reviewer, 'POST', `/internal/applications/${randomUUID()}/decline`, { reason: 'not ours to decide' })
      expect(refused.status).to.equal(403)
      expect(refused.body).to.deep.equal({
        error: 'insufficient_role',
        detail: 'The reviewer role may not do this: it needs the decide_credit permission.',
        role: 'reviewer',
        permission: 'decide_credit',
      })
    })

    it('refuses a change without the CSRF token, or with another session\'s, and changes nothing', async () => {
      const servicing = await signedIn(server, 'servicing')
      const other = await signedIn(server, 'servicing')
      const borrower = await onboardBorrower(server, receiver)
      const loan = await bookLoan(server, borrower, DEFAULT_LOAN_TERMS)
      const chargeOff = `/internal/loans/${loan.loanId}/charge-off`
      const expected = {
        error: 'invalid_csrf_token',
        detail: "A console session's request that changes something must send the session's csrf_token in X-CSRF-Token.",
      }
      expect((await asOperator(server, servicing, 'POST', chargeOff, undefined, false)).body).to.deep.equal(expected)
      const crossed = await request(server.url, chargeOff, { method: 'POST', headers: { Cookie: servicing.cookie, 'X-CSRF-Token': other.csrf } })
      expect(crossed.status).to.equal(403)
      expect(crossed.body).to.deep.equal(expected)
      const still = await request(server.url, `/public/parties/${borrower.partyId}/loans/${loan.loanId}`, { headers: bearer(borrower.key.api_key) })
      expect(still.body.status).to.equal('ACTIVE')
    })

    it('ends a session on sign-out, on revocation and when its operator is disabled', async () => {
      const { email } = await added(server, 'admin')
      const open = async (): Promise<Signed> => {
        const reply = await signIn(server, email, PASSWORD)
        return { cookie: sessionCookieOf(reply), csrf: reply.body.csrf_token, operatorId: reply.body.operator.operator_id, body: reply.body }
      }
      const live = async (signed: Signed): Promise<number> => (await asOperator(server, signed, 'GET', '/internal/loan-products')).status

      const first = await open()
      expect(await live(first)).to.equal(200)
      const out = await asOperator(server, first, 'DELETE', '/internal/operator-sessions/current')
      expect(out.status, out.text).to.equal(200)
      expect(out.body).to.deep.equal({ session_id: first.body.session_id, signed_out: true })
      expect(out.headers.getSetCookie()).to.deep.equal([`${COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`])
      const after = await asOperator(server, first, 'GET', '/internal/loan-products')
      expect(after.status).to.equal(401)
      expect(after.body).to.deep.equal(INVALID_SESSION)

      const [second, third] = [await open(), await open()]
      const revoked = await revokeOperatorSessions(server.deps)({ email })()
      expect(E.isRight(revoked) && revoked.right.sessionsRevoked).to.equal(2)
      expect([await live(second), await live(third)]).to.deep.equal([401, 401])

      const fourth = await open()
      expect(await live(fourth)).to.equal(200)
      await disableOperator(server.deps)({ email })()
      expect(await live(fourth)).to.equal(401)
    })

    it('keeps the internal token for automation: an Authorization header is the token\'s, a cookie beside it ignored', async () => {
      const reviewer = await signedIn(server, 'reviewer')
      const token = await request(server.url, '/internal/loan-products', { method: 'POST', headers: { Cookie: reviewer.cookie, ...bearer(INTERNAL_TOKEN) }, json: { name: 'nope' } })
      // The token may do what the reviewer may not: the request gets as far as the body's check.
      expect(token.status).to.equal(400)
      const wrongToken = await request(server.url, '/internal/loan-products', { headers: { Cookie: reviewer.cookie, ...bearer('not-the-internal-token-at-all') } })
      expect(wrongToken.status).to.equal(401)
      expect(wrongToken.body.error).to.equal('invalid_internal_token')
      const forged = await request(server.url, '/internal/loan-products', { headers: { Cookie: `${COOKIE}=${'A'.repeat(43)}` } })
      expect(forged.body).to.deep.equal(INVALID_SESSION)
      const noSession = await request(server.url, '/internal/operator-sessions/current', { headers: bearer(INTERNAL_TOKEN) })
      expect(noSession.status).to.equal(401)
      expect(noSession.body).to.deep.equal(INVALID_SESSION)
    })

    it('ends the session a browser still presents when it signs in again, and audits signing out', async () => {
      const { email } = await added(server, 'credit')
      const first = await signIn(server, email, PASSWORD)
      const firstCookie = sessionCookieOf(first)
      const second = await signIn(server, email, PASSWORD, { Cookie: firstCookie })
      expect(second.status).to.equal(201)
      const stale = await request(server.url, '/internal/loan-products', { headers: { Cookie: firstCookie } })
      expect(stale.status).to.equal(401)
      // A cookie that finds no session is cleared.
      expect(stale.headers.getSetCookie()).to.deep.equal([`${COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`])
      const events = await request(server.url, `/internal/audit-events?subject_id=${first.body.operator.operator_id}&action=operator.signed_out`, { headers: bearer(INTERNAL_TOKEN) })
      expect(events.body.data.map((e: { details: unknown }) => e.details)).to.deep.equal([{ session_id: first.body.session_id }])
    })

    it('writes operator.signed_in with the session, never its token', async () => {
      const admin = await signedIn(server, 'admin')
      const events = await request(server.url, `/internal/audit-events?subject_id=${admin.operatorId}&action=operator.signed_in`, { headers: bearer(INTERNAL_TOKEN) })
      expect(events.body.data).to.have.length(1)
      const [event] = events.body.data
      expect(event.actor).to.deep.equal({ type: 'operator', id: admin.operatorId })
      expect(event.details).to.deep.equal({ session_id: admin.body.session_id, expires_at: admin.body.expires_at })
      expect(JSON.stringify(event)).not.to.include(admin.cookie.split('=')[1])
    })
  })
}

describe('failed console sign-ins', () => {
  let server: TestServer
  /** How many passwords the server has hashed to check them. */
  let hashed = 0
  before(async () => {
    // Behind one trusted proxy, so that each request can come from an address of its own.
    server = await startInMemoryServer(
      (deps) => ({
        operatorSecrets: {
          ...deps.operatorSecrets,
          passwordMatches: (password, hash) => {
            hashed += 1
            return deps.operatorSecrets.passwordMatches(password, hash)
          },
        },
      }),
      { trustedProxyHops: 1, rateLimits: { ...testConfig().rateLimits, mintRequests: 3 } },
    )
  })
  after(async () => server?.stop())

  const from = (address: string): Record<string, string> => ({ 'X-Forwarded-For': address })

  it('are limited per client address: past the limit the right password is refused too, and a right one never counts', async () => {
    const { email } = await added(server, 'credit')
    const address = '198.51.100.7'
    for (let i = 0; i < 5; i += 1) expect((await signIn(server, email, PASSWORD, from(address))).status).to.equal(201)
    // Each failure at another e-mail, so that only the address's count reaches the limit.
    for (let i = 0; i < 3; i += 1) expect((await signIn(server, newEmail('guess'), PASSWORD, from(address))).status).to.equal(401)
    const refused = await signIn(server, email, PASSWORD, from(address))
    expect(refused.status).to.equal(429)
    expect(refused.body.policy).to.equal('sign_in')
    expect(refused.headers.getSetCookie()).to.deep.equal([])
    expect((await signIn(server, email, PASSWORD, from('198.51.100.8'))).status).to.equal(201)
  })

  it('hashes no password once the limit is reached', async () => {
    const { email } = await added(server, 'reviewer')
    const address = '192.0.2.77'
    for (let i = 0; i < 3; i += 1) expect((await signIn(server, email, `wrong password ${i}!`, from(address))).status).to.equal(401)
    const before = hashed
    for (let i = 0; i < 5; i += 1) expect((await signIn(server, email, PASSWORD, from(address))).status).to.equal(429)
    expect(hashed).to.equal(before)
  })

  it("charges cookies that find no session to the keyless budget, and never refuses a live session for them", async () => {
    // Four requests without a credential per window: the sign-in is one, each forged cookie another.
    const strict = await startInMemoryServer(undefined, { trustedProxyHops: 1, rateLimits: { ...testConfig().rateLimits, keylessRequests: 4 } })
    try {
      const { email } = await added(strict, 'admin')
      const address = '192.0.2.99'
      const live = sessionCookieOf(await signIn(strict, email, PASSWORD, from(address)))
      const statuses: number[] = []
      for (let i = 0; i < 5; i += 1) statuses.push((await request(strict.url, '/internal/loan-products', { headers: { ...from(address), Cookie: `${COOKIE}=forged-${i}` } })).status)
      expect(statuses).to.deep.equal([401, 401, 401, 429, 429])
      for (let i = 0; i < 5; i += 1) expect((await request(strict.url, '/internal/loan-products', { headers: { ...from(address), Cookie: live } })).status).to.equal(200)
    } finally {
      await strict.stop()
    }
  })

  it('are limited per e-mail across addresses, without locking out another operator', async () => {
    const { email } = await added(server, 'servicing')
    const other = await added(server, 'servicing')
    for (let i = 0; i < 3; i += 1) expect((await signIn(server, email, `wrong password ${i}!`, from(`203.0.113.${i + 1}`))).status).to.equal(401)
    const refused = await signIn(server, email, PASSWORD, from('203.0.113.50'))
    expect(refused.status).to.equal(429)
    expect(refused.body.policy).to.equal('sign_in_account')
    expect((await signIn(server, other.email, PASSWORD, from('203.0.113.50'))).status).to.equal(201)
  })
})
