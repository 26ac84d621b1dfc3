import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { strictObject, stringMatching, withSchema } from '../foundations/codecs.js'
import type { SessionId } from '../foundations/ids.js'

/** One-time codes for a phone or email: 6 digits, 10 minutes, 5 tries, 30 s between sends; hash stored, a new code closes the last. */
export const CODE_LENGTH = 6
const CODE_TTL_MS = 10 * 60 * 1000
export const MAX_CODE_ATTEMPTS = 5
export const RESEND_COOLDOWN_MS = 30 * 1000

/** Each contact is verified with its own code. */
export const CONTACT_CHANNELS = ['phone', 'email'] as const
/** One of `CONTACT_CHANNELS`. */
export type ContactChannel = (typeof CONTACT_CHANNELS)[number]

/** E.164: a plus, a non-zero digit, and 7 to 14 more digits. */
export const PhoneInput = strictObject(
  'PhoneInput',
  { phone: stringMatching('Phone', /^\+[1-9]\d{7,14}$/, 'must be an E.164 phone number such as +14155550123') },
  {},
)

/** The WHATWG "valid e-mail address" rule, at most 254 characters (RFC 5321), dotted domain; the domain is stored in lower case. */
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/
export const Email = withSchema(new t.Type<string, string, unknown>(
  'Email',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string' || u.length > 254 || !EMAIL_PATTERN.test(u)) return t.failure(u, c, 'must be a valid email address')
    const at = u.lastIndexOf('@')
    return t.success(`${u.slice(0, at)}@${u.slice(at + 1).toLowerCase()}`)
  },
  t.identity,
), { type: 'string', format: 'email', maxLength: 254 })
/** Stored with its domain in lower case. */
export const EmailInput = strictObject('EmailInput', { email: Email }, {})

/** The 6-digit code received. */
export const CodeInput = strictObject('CodeInput', { code: stringMatching('Code', /^\d{6}$/, 'must be the 6-digit code that was sent') }, {})

/** A code sent to a contact; only its hash is stored. */
export type VerificationChallenge = {
  readonly id: string
  readonly sessionId: SessionId
  readonly channel: ContactChannel
  readonly destination: string
  /** Salted with the challenge `id` (`OneTimeCodes.hash`). */
  readonly codeHash: string
  readonly createdAt: Date
  readonly expiresAt: Date
  /** Codes presented so far, right or wrong. */
  readonly attempts: number
  /** Set when the code verified or a newer code replaced it. */
  readonly closedAt: Date | null
}

/** A new code within 30 s of the last one. */
export type RateLimited = { readonly _tag: 'RateLimited'; readonly retryAfterSeconds: number }
export const rateLimited = (retryAfterSeconds: number): RateLimited => ({ _tag: 'RateLimited', retryAfterSeconds })

/** `attemptsRemaining` before a new code must be requested. */
export type InvalidCode = { readonly _tag: 'InvalidCode'; readonly attemptsRemaining: number }
/** Older than 10 minutes. */
export type CodeExpired = { readonly _tag: 'CodeExpired' }
/** Five wrong codes: request a new one. */
export type TooManyAttempts = { readonly _tag: 'TooManyAttempts' }
/** No open code: already verified (`alreadyVerified`), never sent, or replaced. */
export type NoPendingVerification = { readonly _tag: 'NoPendingVerification'; readonly channel: ContactChannel; readonly alreadyVerified: boolean }

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

/** An expired code is refused without counting an attempt. */
export const unexpired = (challenge: VerificationChallenge, now: Date): E.Either<CodeExpired, VerificationChallenge> =>
  now.getTime() >= challenge.expiresAt.getTime() ? E.left({ _tag: 'CodeExpired' }) : E.right(challenge)

/** Judges a code whose attempt the store already counted (concurrent guesses cannot outrun the limit); the fifth wrong one is `TooManyAttempts`. */
export const judgeCode = (counted: VerificationChallenge, codeMatches: boolean, now: Date): E.Either<InvalidCode | TooManyAttempts, VerificationChallenge> => {
  if (codeMatches) return E.right({ ...counted, closedAt: now })
  const remaining = MAX_CODE_ATTEMPTS - counted.attempts
  return E.left(remaining <= 0 ? tooManyAttempts : { _tag: 'InvalidCode', attemptsRemaining: remaining })
}
