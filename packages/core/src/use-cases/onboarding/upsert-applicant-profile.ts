import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/api-key.js'
import { ApplicantProfileInput, applicantProfileOf, type ApplicantProfile } from '../../domain/applicant-profile.js'
import { NOT_AUDITED } from '../../domain/audit-event.js'
import { decode } from '../../domain/codecs.js'
import type { ConcurrentUpdate } from '../../domain/errors.js'
import { withContents } from '../../domain/onboarding-session.js'
import type { InvalidState } from '../../domain/errors.js'
import type { Clock } from '../../ports/clock.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { ensureEditable, loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

export type UpsertApplicantProfileDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient' | 'save'>
  readonly clock: Clock
}
export type UpsertApplicantProfileError = LoadOwnSessionError | InvalidState | ConcurrentUpdate

/** Creates or replaces the session's applicant profile (PUT semantics: absent fields are cleared). */
export const upsertApplicantProfile =
  (deps: UpsertApplicantProfileDeps) =>
  (caller: Caller, params: unknown, input: unknown): TE.TaskEither<UpsertApplicantProfileError, ApplicantProfile> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, params),
      TE.chainEitherKW(ensureEditable),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(ApplicantProfileInput)(input)),
          TE.chainEitherKW((cmd) => applicantProfileOf(cmd, deps.clock.now())),
          TE.chainW((profile) => deps.sessions.save(withContents(session, { profile }, profile.updatedAt), NOT_AUDITED)),
        ),
      ),
      TE.map((saved) => saved.profile as ApplicantProfile),
    )
