import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { strictObject, stringMatching, withSchema } from '../foundations/codecs.js'
import type { SessionId } from '../foundations/ids.js'

/**
 * One-time codes that prove the applicant controls a phone number or email address.
 *
 * A code is 6 digits, lives 10 minutes, allows 5 wrong tries, and a new one cannot be sent
 * within 30 seconds of the last. Only its hash is stored. Issuing a new code supersedes the
 * previous one for that channel; a used, superseded, expired or exhausted code never verifies.
 */

/**
 * Digits in a one-time code. A code lives 10 minutes, allows 5 wrong tries, and a new one cannot
 * be sent within 30 seconds of the last.
 */
export const CODE_LENGTH = 6
const CODE_TTL_MS = 10 * 60 * 1000
export const MAX_CODE_ATTEMPTS = 5
export const RESEND_COOLDOWN_MS = 30 * 1000

/** The contacts a session verifies, each with its own code. */
export const CONTACT_CHANNELS = ['phone', 'email'] as const
/** One of `CONTACT_CHANNELS`. */
export type ContactChannel = (typeof CONTACT_CHANNELS)[number]

/** The phone number to verify, E.164: a plus, a non-zero digit, and 7 to 14 more digits. */
export const PhoneInput = strictObject(
  'PhoneInput',
  { phone: stringMatching('Phone', /^\+[1-9]\d{7,14}$/, 'must be an E.164 phone number such as +14155550123') },
  {},
)

/**
 * The WHATWG HTML "valid e-mail address" rule, with a 254-character limit (RFC 5321) and a
 * dotted domain; the address is stored as given, with the domain in lower case.
 */
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/
const Email = withSchema(new t.Type<string, string, unknown>(
  'Email',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string' || u.length > 254 || !EMAIL_PATTERN.test(u)) return t.failure(u, c, 'must be a valid email address')
    const at = u.lastIndexOf('@')
    return t.success(`${u.slice(0, at)}@${u.slice(at + 1).toLowerCase()}`)
  },
  t.identity,
), { type: 'string', format: 'email', maxLength: 254 })
/** The email address to verify (the WHATWG rule, at most 254 characters); stored with its domain in lower case. */
export const EmailInput = strictObject('EmailInput', { email: Email }, {})

/** The 6-digit code the applicant received. */
export const CodeInput = strictObject('CodeInput', { code: stringMatching('Code', /^\d{6}$/, 'must be the 6-digit code that was sent') }, {})

/**
 * A one-time code sent to a session's phone or email. Only the code's hash is stored; a new code
 * for the channel closes the previous one.
 */
export type VerificationChallenge = {
  readonly id: string
  readonly sessionId: SessionId
  readonly channel: ContactChannel
  /** The phone number or email address the code was sent to. */
  readonly destination: string
  /** The code's hash, salted with the challenge `id` (`OneTimeCodes.hash`). */
  readonly codeHash: string
  readonly createdAt: Date
  readonly expiresAt: Date
  /** Codes presented so far (right or wrong). */
  readonly attempts: number
  /** Set when the code verified, or when a newer code replaced it. */
  readonly closedAt: Date | null
}

/** A new code was asked for within 30 seconds of the last one; retry after `retryAfterSeconds`. */
export type RateLimited = { readonly _tag: 'RateLimited'; readonly retryAfterSeconds: number }
export const rateLimited = (retryAfterSeconds: number): RateLimited => ({ _tag: 'RateLimited', retryAfterSeconds })

/** The code is wrong; `attemptsRemaining` more may be tried before a new code must be requested. */
export type InvalidCode = { readonly _tag: 'InvalidCode'; readonly attemptsRemaining: number }
/** The code is older than 10 minutes: request a new one. */
export type CodeExpired = { readonly _tag: 'CodeExpired' }
/** Five wrong codes were presented: request a new one. */
export type TooManyAttempts = { readonly _tag: 'TooManyAttempts' }
/**
 * No open code for this channel: the contact is already verified (`alreadyVerified`), or no
 * code was sent to it, or the code was replaced.
 */
export type NoPendingVerification = { readonly _tag: 'NoPendingVerification'; readonly channel: ContactChannel; readonly alreadyVerified: boolean }

/** Whether a new code may be sent now, given the last one sent on this channel. */
export const mayIssue = (last: VerificationChallenge | undefined, now: Date): E.Either<RateLimited, void> => {
  if (last === undefined) return E.right(undefined)
  const wait = last.createdAt.getTime() + RESEND_COOLDOWN_MS - now.getTime()
  return wait > 0 ? E.left(rateLimited(Math.ceil(wait / 1000))) : E.right(undefined)
}

export const newChallenge = (
  fields: { readonly id: string; readonly sessionId: SessionId; readonly channel: ContactChannel; readonly destination: string; readonly codeHash: string },
  now: Date,
): VerificationChallenge => ({ ...fields, createdAt: now, expiresAt: new Date(now.getTime() + CODE_TTL_MS), attempts: 0, closedAt: null })

export const tooManyAttempts: TooManyAttempts = { _tag: 'TooManyAttempts' }

/** The challenge, if its code has not expired. An expired code is refused without counting an attempt. */
export const unexpired = (challenge: VerificationChallenge, now: Date): E.Either<CodeExpired, VerificationChallenge> =>
  now.getTime() >= challenge.expiresAt.getTime() ? E.left({ _tag: 'CodeExpired' }) : E.right(challenge)

/**
 * Judges a presented code against a challenge whose attempt at it has been counted already
 * (`counted.attempts` includes this one: the store counts before the code is compared, so
 * concurrent guesses cannot outrun the limit). The right code closes the challenge; a wrong
 * one tells how many attempts remain, and the fifth answers `TooManyAttempts`: a new code must
 * be requested.
 */
export const judgeCode = (counted: VerificationChallenge, codeMatches: boolean, now: Date): E.Either<InvalidCode | TooManyAttempts, VerificationChallenge> => {
  if (codeMatches) return E.right({ ...counted, closedAt: now })
  const remaining = MAX_CODE_ATTEMPTS - counted.attempts
  return E.left(remaining <= 0 ? tooManyAttempts : { _tag: 'InvalidCode', attemptsRemaining: remaining })
}
