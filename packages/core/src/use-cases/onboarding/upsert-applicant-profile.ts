import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { ApplicantProfileInput, applicantProfileOf, sameProfile, type ApplicantProfile } from '../../domain/onboarding/applicant-profile.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { decode } from '../../domain/foundations/codecs.js'
import type { ConcurrentUpdate } from '../../domain/foundations/errors.js'
import { withContents, type OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { InvalidState } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { ensureEditable, loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

/** What `upsertApplicantProfile` needs. */
export type UpsertApplicantProfileDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient' | 'save'>
  readonly clock: Clock
}
const UpsertProfileCommand = commandOf(['sessionId'], ApplicantProfileInput)

/** Not loadable, not editable, or a concurrent PUT of another profile. */
export type UpsertApplicantProfileError = LoadOwnSessionError | InvalidState | ConcurrentUpdate

const alreadyStored = (session: OnboardingSession, profile: ApplicantProfile): ApplicantProfile | undefined =>
  session.profile !== null && sameProfile(session.profile, profile) ? session.profile : undefined

/**
 * Creates or replaces the profile (PUT: absent fields are cleared). A PUT of what is stored answers
 * it unchanged, also after losing a race to a PUT of the same profile.
 */
export const upsertApplicantProfile =
  (deps: UpsertApplicantProfileDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<UpsertApplicantProfileError, ApplicantProfile> => {
    const load = pipe(loadOwnSession(deps.sessions)(caller, command), TE.chainEitherKW(ensureEditable))
    const save = (session: OnboardingSession, profile: ApplicantProfile): TE.TaskEither<UpsertApplicantProfileError, ApplicantProfile> =>
      pipe(
        deps.sessions.save(withContents(session, { profile }, profile.updatedAt), NOT_AUDITED),
        TE.map((saved) => saved.profile as ApplicantProfile),
        TE.orElse((error) =>
          error._tag !== 'ConcurrentUpdate'
            ? TE.left(error)
            : pipe(
                load,
                TE.chainW((current) => {
                  const stored = alreadyStored(current, profile)
                  return stored === undefined ? TE.left<UpsertApplicantProfileError, ApplicantProfile>(error) : TE.right(stored)
                }),
              ),
        ),
      )
    return pipe(
      load,
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(UpsertProfileCommand)(command)),
          TE.chainEitherKW((cmd) => applicantProfileOf(cmd, deps.clock.now())),
          TE.chainW((profile) => {
            const stored = alreadyStored(session, profile)
            return stored === undefined ? save(session, profile) : TE.right(stored)
          }),
        ),
      ),
    )
  }
