import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { decode } from '../../domain/foundations/codecs.js'
import type { ConcurrentUpdate, InvalidRequest } from '../../domain/foundations/errors.js'
import { withContents, type Contact, type OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { InvalidState } from '../../domain/foundations/errors.js'
import {
  CodeInput,
  EmailInput,
  judgeCode,
  MAX_CODE_ATTEMPTS,
  mayIssue,
  newChallenge,
  PhoneInput,
  RESEND_COOLDOWN_MS,
  type CodeExpired,
  type ContactChannel,
  type InvalidCode,
  type NoPendingVerification,
  type RateLimited,
  tooManyAttempts,
  type TooManyAttempts,
  unexpired,
  type VerificationChallenge,
} from '../../domain/onboarding/verification.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OneTimeCodes } from '../../ports/one-time-codes.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import type { VerificationChallengeRepository } from '../../ports/verification-challenge-repository.js'
import type { VerificationCodeSender, VerificationDeliveryFailed } from '../../ports/verification-code-sender.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { ensureEditable, loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'
import { instantText, instantTextOrNull } from '../../domain/foundations/instant.js'

/** What the contact verification use cases need. */
export type ContactVerificationDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient' | 'save'>
  readonly challenges: VerificationChallengeRepository
  readonly codes: OneTimeCodes
  readonly sender: VerificationCodeSender
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** Where a channel's verification stands after a submit or retry. */
export type ContactVerification = {
  readonly session: OnboardingSession
  readonly channel: ContactChannel
  /** Null when nothing was sent (the contact was already verified). */
  readonly challenge: VerificationChallenge | null
}

/** `VerificationDeliveryFailed` stores nothing; `RateLimited` within 30 s of the last code. */
export type IssueCodeError = LoadOwnSessionError | InvalidState | ConcurrentUpdate | RateLimited | VerificationDeliveryFailed
/** No pending code, or a wrong, expired or exhausted one. */
export type VerifyContactError = LoadOwnSessionError | InvalidState | ConcurrentUpdate | NoPendingVerification | InvalidCode | CodeExpired | TooManyAttempts

const contactOf = (session: OnboardingSession, channel: ContactChannel): Contact | null => (channel === 'phone' ? session.phone : session.email)
const withContact = (session: OnboardingSession, channel: ContactChannel, contact: Contact, now: Date): OnboardingSession =>
  withContents(session, channel === 'phone' ? { phone: contact } : { email: contact }, now)

const noPending = (channel: ContactChannel, alreadyVerified = false): NoPendingVerification => ({ _tag: 'NoPendingVerification', channel, alreadyVerified })

/** Sends a fresh code, then stores its challenge: a failed delivery stores nothing and starts no cooldown. */
const issueCode = (deps: ContactVerificationDeps, session: OnboardingSession, channel: ContactChannel, destination: string) => {
  const now = deps.clock.now()
  return pipe(
    deps.challenges.latest(session.id, channel),
    TE.chainEitherKW((last) => mayIssue(O.toUndefined(last), now)),
    TE.chainW(() => {
      const id = deps.ids.next()
      const code = deps.codes.generate()
      return pipe(
        TE.fromTask(deps.codes.hash(code, id)),
        TE.map((codeHash) => ({ code, challenge: newChallenge({ id, sessionId: session.id, channel, destination, codeHash }, now) })),
      )
    }),
    TE.chainFirstW(({ code, challenge }) =>
      deps.sender.send({ sessionId: session.id, channel, destination, code, expiresAt: challenge.expiresAt }),
    ),
    TE.chainFirstW(({ challenge }) => deps.challenges.issue(challenge)),
    TE.map(({ challenge }) => challenge),
  )
}

const PhoneCommand = commandOf(['sessionId'], PhoneInput)
const EmailCommand = commandOf(['sessionId'], EmailInput)
const CodeCommand = commandOf(['sessionId'], CodeInput)

const destinationOf = (channel: ContactChannel, command: unknown): E.Either<InvalidRequest, string> =>
  channel === 'phone'
    ? pipe(decode(PhoneCommand)(command), E.map((v) => v.phone))
    : pipe(decode(EmailCommand)(command), E.map((v) => v.email))

/** Submits or changes the contact and sends a code; the value already verified changes nothing and sends nothing. */
export const submitContact =
  (channel: ContactChannel) =>
  (deps: ContactVerificationDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<IssueCodeError | InvalidRequest, ContactVerification> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(destinationOf(channel, command)),
          TE.chainW((destination) => {
            const current = contactOf(session, channel)
            if (current !== null && current.value === destination && current.verifiedAt !== null) {
              return TE.right<IssueCodeError, ContactVerification>({ session, channel, challenge: null })
            }
            return pipe(
              issueCode(deps, session, channel, destination),
              TE.chainW((challenge) =>
                pipe(
                  deps.sessions.save(withContact(session, channel, { value: destination, verifiedAt: null }, challenge.createdAt), NOT_AUDITED),
                  TE.map((saved) => ({ session: saved, channel, challenge })),
                ),
              ),
            )
          }),
        ),
      ),
    )

/** Sends a new code to the pending contact; the previous one stops working. */
export const retryContactVerification =
  (channel: ContactChannel) =>
  (deps: ContactVerificationDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<IssueCodeError | NoPendingVerification, ContactVerification> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) => {
        const contact = contactOf(session, channel)
        if (contact === null || contact.verifiedAt !== null) {
          return TE.left<IssueCodeError | NoPendingVerification, ContactVerification>(noPending(channel, contact !== null))
        }
        return pipe(
          issueCode(deps, session, channel, contact.value),
          TE.map((challenge) => ({ session, channel, challenge })),
        )
      }),
    )

/**
 * Verifies the pending contact of `channel` with the command's `code`. Each check uses an attempt,
 * counted before comparing; a verified contact has nothing pending (`NoPendingVerification`).
 */
export const verifyContact =
  (channel: ContactChannel) =>
  (deps: ContactVerificationDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<VerifyContactError, OnboardingSession> => {
    /** The open challenge, one attempt counted by the store before any compare (concurrent guesses each take one). */
    const countedChallenge = (session: OnboardingSession, contact: Contact): TE.TaskEither<VerifyContactError, VerificationChallenge> =>
      pipe(
        deps.challenges.latest(session.id, channel),
        TE.chainW(TE.fromOption((): VerifyContactError => noPending(channel))),
        TE.filterOrElseW(
          (challenge) => challenge.closedAt === null && challenge.destination === contact.value,
          (): VerifyContactError => noPending(channel),
        ),
        TE.chainEitherKW((challenge) => unexpired(challenge, deps.clock.now())),
        TE.chainW((challenge) => deps.challenges.takeAttempt(challenge.id, MAX_CODE_ATTEMPTS)),
        TE.chainW(TE.fromOption((): VerifyContactError => tooManyAttempts)),
      )

    const verify = (session: OnboardingSession, contact: Contact, code: string): TE.TaskEither<VerifyContactError, OnboardingSession> =>
      pipe(
        countedChallenge(session, contact),
        TE.chainW((counted) =>
          pipe(
            TE.fromTask(deps.codes.matches(code, counted.id, counted.codeHash)),
            TE.chainEitherKW((matches) => judgeCode(counted, matches, deps.clock.now())),
          ),
        ),
        TE.chainFirstW(deps.challenges.update),
        TE.chainW((closed) =>
          deps.sessions.save(withContact(session, channel, { value: contact.value, verifiedAt: closed.closedAt }, deps.clock.now()), NOT_AUDITED),
        ),
      )

    return pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(CodeCommand)(command)),
          TE.chainW(({ code }) => {
            const contact = contactOf(session, channel)
            if (contact === null) return TE.left<VerifyContactError, OnboardingSession>(noPending(channel))
            if (contact.verifiedAt !== null) return TE.left<VerifyContactError, OnboardingSession>(noPending(channel, true))
            return verify(session, contact, code)
          }),
        ),
      ),
    )
  }

/** A submit's or retry's answer. */
export type ContactVerificationView = {
  readonly session_id: string
  readonly channel: ContactChannel
  readonly destination: string
  readonly status: 'pending' | 'verified'
  readonly expires_at: string | null
  readonly resend_available_at: string | null
  readonly current_step: string
}

/** The API's view of a submit or retry. */
export const contactVerificationView = (v: ContactVerification): ContactVerificationView => {
  const contact = contactOf(v.session, v.channel)
  return {
    session_id: v.session.id,
    channel: v.channel,
    destination: contact?.value ?? '',
    status: contact?.verifiedAt != null ? 'verified' : 'pending',
    expires_at: instantTextOrNull(v.challenge?.expiresAt),
    resend_available_at: v.challenge === null ? null : instantText(new Date(v.challenge.createdAt.getTime() + RESEND_COOLDOWN_MS)),
    current_step: v.session.currentStep,
  }
}
