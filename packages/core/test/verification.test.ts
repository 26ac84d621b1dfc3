import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { decode } from '../src/domain/foundations/codecs.js'
import { invalidRequest } from '../src/domain/foundations/errors.js'
import {
  judgeCode,
  CodeInput,
  EmailInput,
  mayIssue,
  newChallenge,
  unexpired,
  PhoneInput,
  rateLimited,
  type VerificationChallenge,
} from '../src/domain/onboarding/verification.js'
import { testId } from '../src/testing/test-ids.js'

const t0 = new Date('2026-06-01T12:00:00.000Z')
const after = (ms: number): Date => new Date(t0.getTime() + ms)
const challenge: VerificationChallenge = newChallenge(
  { id: 'c1', sessionId: testId('s1'), channel: 'phone', destination: '+14155550123', codeHash: 'h' },
  t0,
)

describe('verification rules', () => {
  describe('inputs', () => {
    it('accepts E.164 phones and refuses anything else, naming the field', () => {
      expect(decode(PhoneInput)({ phone: '+14155550123' })).to.deep.equal(E.right({ phone: '+14155550123' }))
      for (const phone of ['4155550123', '+04155550123', '+1 415 555 0123', '+1234567', '+1234567890123456']) {
        expect(decode(PhoneInput)({ phone })).to.deep.equal(
          E.left(invalidRequest('phone must be an E.164 phone number such as +14155550123', 'phone')),
        )
      }
    })

    it('accepts valid emails, lower-casing the domain only, and refuses invalid ones', () => {
      expect(decode(EmailInput)({ email: 'Jane.Doe+loans@Example.COM' })).to.deep.equal(E.right({ email: 'Jane.Doe+loans@example.com' }))
      for (const email of ['jane', 'jane@', '@example.com', 'jane@example', 'jane doe@example.com', `${'a'.repeat(250)}@example.com`]) {
        expect(decode(EmailInput)({ email })).to.deep.equal(E.left(invalidRequest('email must be a valid email address', 'email')))
      }
    })

    it('wants a 6-digit code', () => {
      expect(decode(CodeInput)({ code: '012345' })).to.deep.equal(E.right({ code: '012345' }))
      expect(decode(CodeInput)({ code: '12345' })).to.deep.equal(E.left(invalidRequest('code must be the 6-digit code that was sent', 'code')))
    })
  })

  describe('mayIssue', () => {
    it('allows the first code at once', () => {
      expect(mayIssue(undefined, t0)).to.deep.equal(E.right(undefined))
    })

    it('refuses a new code within 30 seconds, saying how long to wait, and allows it after', () => {
      expect(mayIssue(challenge, after(1_000))).to.deep.equal(E.left(rateLimited(29)))
      expect(mayIssue(challenge, after(29_500))).to.deep.equal(E.left(rateLimited(1)))
      expect(mayIssue(challenge, after(30_000))).to.deep.equal(E.right(undefined))
    })
  })

  describe('unexpired', () => {
    it('expires codes after 10 minutes', () => {
      expect(newChallenge({ id: 'c', sessionId: testId('s'), channel: 'email', destination: 'a@b.co', codeHash: 'h' }, t0).expiresAt).to.deep.equal(after(600_000))
      expect(unexpired(challenge, after(599_999))).to.deep.equal(E.right(challenge))
      expect(unexpired(challenge, after(600_000))).to.deep.equal(E.left({ _tag: 'CodeExpired' }))
    })
  })

  describe('judgeCode', () => {
    it('verifies the right code and closes the challenge', () => {
      const counted = { ...challenge, attempts: 1 }
      expect(judgeCode(counted, true, after(5_000))).to.deep.equal(E.right({ ...counted, closedAt: after(5_000) }))
    })

    it('tells the attempts left after each counted wrong code, and the fifth answers TooManyAttempts', () => {
      for (let n = 1; n <= 4; n += 1) {
        expect(judgeCode({ ...challenge, attempts: n }, false, after(n))).to.deep.equal(E.left({ _tag: 'InvalidCode', attemptsRemaining: 5 - n }))
      }
      expect(judgeCode({ ...challenge, attempts: 5 }, false, after(5))).to.deep.equal(E.left({ _tag: 'TooManyAttempts' }))
    })
  })
})
