import { testDatabases } from '@lendgate/adapters/testing'
import { TEST_VERIFICATION_CODE, type VerificationMessage } from '@lendgate/core'
import type { recordingCodeSender, TestClock } from '@lendgate/core/testing'
import { expect } from 'chai'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver as startReceiver } from './support/code-receiver.js'
import { startInMemoryServer, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const newSession = async (url: string, key: MintedKey): Promise<string> =>
  (await request(url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: { country_of_incorporation: 'US', locale: 'en-US' } }))
    .body.session_id

for (const database of testDatabases()) {
  describe(`contact verification over HTTP delivery on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let key: MintedKey
    let sessionId: string
    const call = (method: string, path: string, json?: unknown): Promise<Reply> =>
      request(server.url, `/public/onboarding-sessions/${sessionId}${path}`, { method, headers: bearer(key.api_key), ...(json === undefined ? {} : { json }) })
    const lastCode = (): string => receiver.received[receiver.received.length - 1]!['code'] as string

    before(async () => {
      receiver = await startReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })
    beforeEach(async () => {
      receiver.answerWith(202)
      key = await mintKey(server.url)
      sessionId = await newSession(server.url, key)
    })

    it('sends the pinned JSON to the delivery URL and verifies the phone with the code', async () => {
      const submitted = await call('POST', '/contact/phone', { phone: '+14155550123' })
      expect(submitted.status).to.equal(201)
      const { expires_at, resend_available_at, ...rest } = submitted.body
      expect(rest).to.deep.equal({ session_id: sessionId, channel: 'phone', destination: '+14155550123', status: 'pending', current_step: 'PHONE_VERIFICATION', livemode: true })
      expect(expires_at).to.match(ISO_MS)
      expect(resend_available_at).to.match(ISO_MS)
      const message = receiver.received[receiver.received.length - 1]!
      expect(Object.keys(message).sort()).to.deep.equal(['channel', 'code', 'destination', 'expires_at', 'session_id'])
      expect(message).to.deep.include({ session_id: sessionId, channel: 'phone', destination: '+14155550123', expires_at })
      expect(message['code']).to.match(/^\d{6}$/)
      expect(submitted.text).not.to.contain(message['code'] as string)

      const code = lastCode()
      const wrong = await call('POST', '/contact/phone/verify', { code: code === '000000' ? '111111' : '000000' })
      expect(wrong.status).to.equal(422)
      expect(wrong.body).to.deep.equal({ error: 'invalid_code', detail: 'The code is wrong.', attempts_remaining: 4 })
      const verified = await call('POST', '/contact/phone/verify', { code })
      expect(verified.status).to.equal(200)
      expect(verified.body.current_step).to.equal('EMAIL_VERIFICATION')
      const requirements = await call('GET', '/requirements')
      expect(requirements.body.data.map((r: { code: string }) => r.code)).not.to.include('phone_unverified')
      expect(server.logs.raw()).not.to.contain(code)
    })

    it('counts every attempt before comparing: 26 concurrent wrong codes lock the code after 5, and the right one is refused after', async () => {
      await call('POST', '/contact/phone', { phone: '+14155550123' })
      const code = lastCode()
      const wrong = code === '000000' ? '111111' : '000000'
      const replies = await Promise.all(Array.from({ length: 26 }, () => call('POST', '/contact/phone/verify', { code: wrong })))
      const errors = replies.map((r) => `${r.status} ${r.body.error}`)
      expect(errors.filter((e) => e === '422 invalid_code'), errors.join(', ')).to.have.length(4)
      expect(errors.filter((e) => e === '429 too_many_attempts'), errors.join(', ')).to.have.length(22)
      const right = await call('POST', '/contact/phone/verify', { code })
      expect([right.status, right.body.error]).to.deep.equal([429, 'too_many_attempts'])
      const requirements = await call('GET', '/requirements')
      expect(requirements.body.data.map((r: { code: string }) => r.code)).to.include('phone_unverified')
    })

    it('refuses to verify or resend for a contact already verified with 409 verification_not_pending, changing nothing', async () => {
      await call('POST', '/contact/phone', { phone: '+14155550123' })
      const code = lastCode()
      const headers = { ...bearer(key.api_key), 'Idempotency-Key': `verify-${sessionId}` }
      const verify = (json: unknown) =>
        request(server.url, `/public/onboarding-sessions/${sessionId}/contact/phone/verify`, { method: 'POST', headers, json })
      const first = await verify({ code })
      expect(first.status).to.equal(200)
      const before = await call('GET', '')

      const replayed = await verify({ code })
      expect(replayed.status, 'a retry with the same Idempotency-Key replays the first answer').to.equal(200)
      expect(replayed.headers.get('idempotent-replayed')).to.equal('true')
      expect(replayed.body).to.deep.equal(first.body)

      const refusal = { error: 'verification_not_pending', detail: 'The phone is already verified: there is nothing to verify.', reason: 'already_verified' }
      for (const again of [code, code === '000000' ? '111111' : '000000']) {
        const reply = await call('POST', '/contact/phone/verify', { code: again })
        expect(reply.status).to.equal(409)
        expect(reply.body).to.deep.equal(refusal)
      }
      const resend = await call('POST', '/contact/phone/retry', {})
      expect(resend.status).to.equal(409)
      expect(resend.body).to.deep.equal(refusal)
      expect((await call('GET', '')).body).to.deep.equal(before.body)
    })

    it('verifies a test-mode session with the code 000000, sending nothing, even while delivery is down; a wrong code still counts', async () => {
      receiver.answerWith(500)
      const testKey = await mintKey(server.url, { environment: 'test' })
      const testSession = await newSession(server.url, testKey)
      const inTest = (path: string, json: unknown): Promise<Reply> =>
        request(server.url, `/public/onboarding-sessions/${testSession}${path}`, { method: 'POST', headers: bearer(testKey.api_key), json })
      const received = receiver.received.length
      expect((await inTest('/contact/phone', { phone: '+14155550123' })).status).to.equal(201)
      expect((await inTest('/contact/email', { email: 'jane@example.com' })).status).to.equal(201)
      const wrong = await inTest('/contact/phone/verify', { code: '123456' })
      expect([wrong.status, wrong.body.attempts_remaining]).to.deep.equal([422, 4])
      expect((await inTest('/contact/phone/verify', { code: TEST_VERIFICATION_CODE })).body.current_step).to.equal('EMAIL_VERIFICATION')
      expect((await inTest('/contact/email/verify', { code: TEST_VERIFICATION_CODE })).status).to.equal(200)
      expect(receiver.received.length, 'messages delivered for a test session').to.equal(received)
      // A live session's code is a random one, delivered: 000000 is no master key there.
      receiver.answerWith(202)
      await call('POST', '/contact/phone', { phone: '+14155550123' })
      expect(receiver.received.length).to.equal(received + 1)
      if (lastCode() !== TEST_VERIFICATION_CODE) expect((await call('POST', '/contact/phone/verify', { code: TEST_VERIFICATION_CODE })).status).to.equal(422)
    })

    it('answers 502 verification_delivery_failed when delivery fails, and leaves no code behind', async () => {
      receiver.answerWith(500)
      const failed = await call('POST', '/contact/email', { email: 'jane@example.com' })
      expect(failed.status).to.equal(502)
      expect(failed.body).to.deep.equal({
        error: 'verification_delivery_failed',
        detail: 'The verification code could not be delivered; no code was issued. Retry shortly.',
      })
      const pending = await call('POST', '/contact/email/verify', { code: '123456' })
      expect(pending.status).to.equal(409)
      expect(pending.body.error).to.equal('verification_not_pending')
      receiver.answerWith(202)
      const again = await call('POST', '/contact/email', { email: 'jane@example.com' })
      expect(again.status).to.equal(201)
    })

    it('refuses a resend within 30 seconds with 429 rate_limited and Retry-After', async () => {
      await call('POST', '/contact/phone', { phone: '+14155550123' })
      const retry = await call('POST', '/contact/phone/retry', {})
      expect(retry.status).to.equal(429)
      expect(retry.body.error).to.equal('rate_limited')
      expect(Number(retry.headers.get('retry-after'))).to.be.within(1, 30)
    })

    it('refuses invalid phones and emails with 400, and verification before submission with 409', async () => {
      const phone = await call('POST', '/contact/phone', { phone: '415-555-0123' })
      expect(phone.status).to.equal(400)
      expect(phone.body.param).to.equal('phone')
      const email = await call('POST', '/contact/email', { email: 'not-an-email' })
      expect(email.status).to.equal(400)
      expect(email.body.param).to.equal('email')
      const verify = await call('POST', '/contact/email/verify', { code: '123456' })
      expect(verify.status).to.equal(409)
      expect(verify.body).to.deep.equal({
        error: 'verification_not_pending',
        detail: 'There is no email awaiting verification: submit one first.',
        reason: 'no_pending_code',
      })
      const retry = await call('POST', '/contact/phone/retry', {})
      expect(retry.status).to.equal(409)
    })
  })
}

describe('contact verification with a controllable clock', () => {
  let server: TestServer
  let key: MintedKey
  let sessionId: string
  const clock = (): TestClock => server.deps.clock as TestClock
  const sent = (): readonly VerificationMessage[] => (server.deps.sender as ReturnType<typeof recordingCodeSender>).sent()
  const lastCode = (): string => sent()[sent().length - 1]!.code
  const call = (method: string, path: string, json?: unknown): Promise<Reply> =>
    request(server.url, `/public/onboarding-sessions/${sessionId}${path}`, { method, headers: bearer(key.api_key), ...(json === undefined ? {} : { json }) })
  const wrongFor = (code: string): string => (code === '000000' ? '111111' : '000000')

  before(async () => {
    server = await startInMemoryServer()
  })
  after(async () => server.stop())
  beforeEach(async () => {
    key = await mintKey(server.url)
    sessionId = await newSession(server.url, key)
  })

  it('expires a code after 10 minutes with 422 code_expired', async () => {
    await call('POST', '/contact/phone', { phone: '+14155550123' })
    const code = lastCode()
    clock().advance(10 * 60 * 1000)
    const reply = await call('POST', '/contact/phone/verify', { code })
    expect(reply.status).to.equal(422)
    expect(reply.body.error).to.equal('code_expired')
  })

  it('locks a code after 5 wrong tries with 429 too_many_attempts, even for the right code', async () => {
    await call('POST', '/contact/phone', { phone: '+14155550123' })
    const code = lastCode()
    const remaining = []
    for (let i = 0; i < 4; i += 1) remaining.push((await call('POST', '/contact/phone/verify', { code: wrongFor(code) })).body.attempts_remaining)
    expect(remaining).to.deep.equal([4, 3, 2, 1])
    const fifth = await call('POST', '/contact/phone/verify', { code: wrongFor(code) })
    expect(fifth.status).to.equal(429)
    expect(fifth.body.error).to.equal('too_many_attempts')
    expect((await call('POST', '/contact/phone/verify', { code })).status).to.equal(429)
  })

  it('issues a fresh code on retry after the cooldown; the old code stops working', async () => {
    await call('POST', '/contact/email', { email: 'jane@example.com' })
    const old = lastCode()
    clock().advance(30_000)
    const retry = await call('POST', '/contact/email/retry', {})
    expect(retry.status).to.equal(201)
    const fresh = lastCode()
    expect(sent()).to.have.length.greaterThan(1)
    if (old !== fresh) expect((await call('POST', '/contact/email/verify', { code: old })).status).to.equal(422)
    const ok = await call('POST', '/contact/email/verify', { code: fresh })
    expect(ok.status).to.equal(200)
  })

  it('keeps no 429 under an Idempotency-Key: a resend refused as too soon, sent again with its key after Retry-After, sends a code (issue 53)', async () => {
    await call('POST', '/contact/email', { email: 'jane@example.com' })
    const resend = () =>
      request(server.url, `/public/onboarding-sessions/${sessionId}/contact/email/retry`, {
        method: 'POST',
        headers: { ...bearer(key.api_key), 'Idempotency-Key': `resend-${sessionId}` },
        json: {},
      })
    const tooSoon = await resend()
    expect([tooSoon.status, tooSoon.body.error]).to.deep.equal([429, 'rate_limited'])
    const count = sent().length
    clock().advance(Number(tooSoon.headers.get('Retry-After')) * 1000)
    const resent = await resend()
    expect(resent.status, resent.text).to.equal(201)
    expect(resent.headers.get('Idempotent-Replayed')).to.equal(null)
    expect(sent()).to.have.length(count + 1)
    // Kept now: the same request again is its replay, and sends nothing.
    const replayed = await resend()
    expect([replayed.status, replayed.headers.get('Idempotent-Replayed')]).to.deep.equal([201, 'true'])
    expect(sent()).to.have.length(count + 1)
  })

  it('makes a verified phone unverified again when it is changed, and keeps it when resubmitted unchanged', async () => {
    await call('POST', '/contact/phone', { phone: '+14155550123' })
    await call('POST', '/contact/phone/verify', { code: lastCode() })
    const count = sent().length
    const same = await call('POST', '/contact/phone', { phone: '+14155550123' })
    expect(same.status).to.equal(201)
    expect(same.body).to.deep.include({ status: 'verified', expires_at: null, current_step: 'EMAIL_VERIFICATION' })
    expect(sent()).to.have.length(count)
    clock().advance(30_000)
    const changed = await call('POST', '/contact/phone', { phone: '+14155550199' })
    expect(changed.body).to.deep.include({ status: 'pending', destination: '+14155550199', current_step: 'PHONE_VERIFICATION' })
  })

  it('answers 500 server_misconfigured in production without a delivery URL', async () => {
    const bare = await startInMemoryServer(() => ({ sender: undefined }))
    try {
      const k = await mintKey(bare.url)
      const id = await newSession(bare.url, k)
      const reply = await request(bare.url, `/public/onboarding-sessions/${id}/contact/phone`, { method: 'POST', headers: bearer(k.api_key), json: { phone: '+14155550123' } })
      expect(reply.status).to.equal(500)
      expect(reply.body).to.deep.equal({
        error: 'server_misconfigured',
        detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it).",
      })
    } finally {
      await bare.stop()
    }
  })
})
