import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import type { AlreadyExists, InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { CreateOnboardingSessionInput, newOnboardingSession, type OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { newId } from '../../domain/foundations/ids.js'

/** What `createOnboardingSession` needs. */
export type CreateOnboardingSessionDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'insert'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
/** Why `createOnboardingSession` fails: an invalid command, or the store (`AlreadyExists` only if an id repeats). */
export type CreateOnboardingSessionError = InvalidRequest | StoreUnavailable | AlreadyExists

/**
 * Starts onboarding a borrower: a session owned by the caller's API client (spec §4.2). The
 * command is `CreateOnboardingSessionInput`. Not idempotent: each call creates a session.
 */
export const createOnboardingSession =
  (deps: CreateOnboardingSessionDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<CreateOnboardingSessionError, OnboardingSession> =>
    pipe(
      TE.fromEither(decode(CreateOnboardingSessionInput)(command)),
      TE.map((cmd) => newOnboardingSession(cmd, caller.clientId, newId(deps.ids), deps.clock.now())),
      TE.chainFirstW(deps.sessions.insert),
    )
